"""
backward-hook-view-inplace
==========================

.. autograd-entry:: backward-hook-view-inplace

What a full backward hook does to a module's tensors
----------------------------------------------------

``module.register_full_backward_hook(hook)`` promises to call ``hook(module, grad_input,
grad_output)`` with the gradients of the module's inputs and outputs. To find them, every call
of the module (with grad mode on, on tensors that require grad) passes its tensor inputs, and
then its tensor outputs, through ``BackwardHookFunction``: a custom autograd Function whose
forward returns its arguments as they are and whose backward hands the gradients to your hook.
Returned as they are means returned as views (see
:doc:`/errors/views/custom-function-view-inplace`): the tensor the module's ``forward``
receives is not the one you passed, but a view of it whose ``grad_fn`` is the hook's.
"""

import torch
import torch.nn.functional as F
from torch import nn

seen = {}


class Probe(nn.Module):
    def forward(self, x):
        seen["input"] = x
        return x * 2


probe = Probe()
probe.register_full_backward_hook(lambda module, grad_input, grad_output: None)
given = torch.randn(3, requires_grad=True) * 1
output = probe(given)
print(f"forward received a view of the tensor passed: {seen['input']._base is given}")
print(f"its grad_fn: {seen['input'].grad_fn.name()}; the output's: {output.grad_fn.name()}")

# %%
# Changing such a view in place would make autograd rebuild its history with a plain view
# operation and skip the hook's node, so the change is refused, as for any custom Function.
# The error comes during the forward pass, before any gradient exists. Under
# ``torch.no_grad()`` nothing is wrapped and nothing raises: a hooked model fails only when it
# runs with gradients.
#
# The repro
# ---------
# A classifier head whose forward starts with an in-place ReLU on its input. Hooking the head to
# collect its gradients makes that ReLU write into the hook's view:


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)  # cause: hooked-input-inplace
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(self.relu(x))


def print_gradient_shapes(module, grad_input, grad_output):
    print("grad_output:", [tuple(g.shape) for g in grad_output])


backbone = nn.Linear(4, 8)
head = Head()
images = torch.randn(5, 4)
try:
    head.register_full_backward_hook(print_gradient_shapes)  # cause: hooked-input-inplace
    head(backbone(images))  # cause: hooked-input-inplace
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same happens to the module's *output*, when what follows it changes it in place. That is
# how Grad-CAM users meet it: the gradient of a class score with respect to the feature maps is
# taken by hooking the last feature layer, and torchvision's DenseNet applies
# ``F.relu(features, inplace=True)`` right after it. A small model with the same forward:


class TinyDenseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8))
        self.classifier = nn.Linear(8, 10)

    def forward(self, x):
        out = F.relu(self.features(x), inplace=True)  # cause: hooked-output-inplace
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.classifier(out)


model = TinyDenseNet().eval()
pictures = torch.randn(2, 3, 6, 6)
try:
    model.features.register_full_backward_hook(print_gradient_shapes)  # broken
    model(pictures)  # broken  # cause: hooked-output-inplace
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A residual block that adds its shortcut in place after the hooked layer does the same:


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        out = self.conv(x)
        out += x  # cause: hooked-output-inplace
        return F.relu(out)


block = Block()
try:
    block.conv.register_full_backward_hook(print_gradient_shapes)  # cause: hooked-output-inplace
    block(pictures)  # cause: hooked-output-inplace
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: hook the tensor, from a forward hook
# -------------------------------------------
# A forward hook receives the module's output; registering a tensor hook on it gives its
# gradient, which is what a full backward hook passes as ``grad_output``. No view is created, so
# the in-place ReLU that follows is allowed. This is what Grad-CAM libraries moved to:

model = TinyDenseNet().eval()
kept = {}


def keep_activation_and_gradient(module, inputs, output):  # fixed
    kept["activation"] = output.detach().clone()  # fixed
    output.register_hook(lambda grad: kept.__setitem__("gradient", grad))  # fixed


model.features.register_forward_hook(keep_activation_and_gradient)  # fixed
score = model(pictures)[0, 3]  # fix: hooked-output-inplace
score.backward()

# %%
# To check the gradient, recompute the model from the feature maps, out of place, and ask
# autograd for the gradient of the same score with respect to them:

feature_maps = model.features(pictures).detach().requires_grad_()
pooled = F.adaptive_avg_pool2d(F.relu(feature_maps), 1).flatten(1)
(reference,) = torch.autograd.grad(model.classifier(pooled)[0, 3], feature_maps)
torch.testing.assert_close(kept["gradient"], reference)
torch.testing.assert_close(kept["activation"], feature_maps.detach())
weights = kept["gradient"][0].mean(dim=(1, 2))
cam = F.relu((weights[:, None, None] * kept["activation"][0]).sum(0))
print("Grad-CAM map:", tuple(cam.shape))

# %%
# For the gradients of a module's inputs, do the same from a forward *pre*-hook
# (``register_forward_pre_hook``), which receives the inputs before ``forward`` runs.
#
# Fix 2: turn the in-place operations off
# ---------------------------------------
# When the in-place operation sits in a module, switch it off; the full backward hook then works.
# For ``loss = sum(head(x))``, ``grad_output`` is all ones and ``grad_input`` is the ReLU mask
# times the column sums of the linear layer's weight:

head = Head()
head.relu.inplace = False  # fix: hooked-input-inplace
received = {}
head.register_full_backward_hook(
    lambda module, grad_input, grad_output: received.update(inputs=grad_input, outputs=grad_output)
)
hidden = backbone(images)
head(hidden).sum().backward()
torch.testing.assert_close(received["outputs"][0], torch.ones(5, 2))
expected = (hidden.detach() > 0) * head.fc.weight.detach().sum(0)
torch.testing.assert_close(received["inputs"][0], expected)
print("grad_input[0] shape:", tuple(received["inputs"][0].shape))

# %%
# In the residual block, write the shortcut out of place. The hook then receives the gradient
# of the convolution's output, which for ``sum(relu(conv(x) + x))`` is the ReLU's mask:


class OutOfPlaceBlock(Block):
    def forward(self, x):
        out = self.conv(x)
        out = out + x  # fix: hooked-output-inplace
        return F.relu(out)


block = OutOfPlaceBlock()  # fix: hooked-output-inplace
block.conv.register_full_backward_hook(
    lambda module, grad_input, grad_output: received.update(outputs=grad_output)
)
block(pictures.clone().requires_grad_()).sum().backward()
mask = (block.conv(pictures) + pictures > 0).float()
torch.testing.assert_close(received["outputs"][0], mask)

# %%
# ``for m in model.modules(): if isinstance(m, nn.ReLU): m.inplace = False`` does it for a
# whole model, but not for ``F.relu(..., inplace=True)`` or ``+=`` written in a ``forward``:
# those need Fix 1, or an edited ``forward``.
#
# Pitfall: activations kept by a forward hook
# -------------------------------------------
# A forward hook runs before the operations that follow the module. ``output.detach()`` shares
# the output's storage, so an in-place ReLU after the module rewrites what the hook kept, and
# the "activations" come out already rectified. That is why Fix 1 clones:

model = TinyDenseNet().eval()
views = {}


def keep_without_copy(module, inputs, output):
    views["shared"] = output.detach()
    views["copy"] = output.detach().clone()


model.features.register_forward_hook(keep_without_copy)
with torch.no_grad():
    model(pictures)
print("negative values kept without a copy:", int((views["shared"] < 0).sum()))
print("negative values kept with a copy:   ", int((views["copy"] < 0).sum()))
assert (views["shared"] >= 0).all()
assert (views["copy"] < 0).any()

# %%
# The older ``register_backward_hook`` adds no Function and so does not raise, but for a
# module made of several operations it reports the gradients of the last one only; it is
# deprecated in favour of the full hook.
#
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: backward-hook-view-inplace
