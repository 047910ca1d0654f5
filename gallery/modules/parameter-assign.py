"""
parameter-assign
================

.. autograd-entry:: parameter-assign

How a module keeps its parameters
---------------------------------

``nn.Module.__setattr__`` sorts what you assign: an ``nn.Parameter`` goes into
``_parameters``, a module into ``_modules``, a registered buffer name into ``_buffers``.
``parameters()``, ``state_dict()``, ``.to(device)`` and every optimizer read those registries.
Once ``weight`` is a parameter, the name is reserved for parameters.
"""

import torch
import torch.nn.functional as F
from torch import nn

net = nn.Sequential(nn.Linear(in_features=3, out_features=1, bias=True))
print([name for name, _ in net.named_parameters()])

# %%
# The repro
# ---------
# Assigning a plain tensor to the parameter's name:

net = nn.Sequential(nn.Linear(in_features=3, out_features=1, bias=True))
try:
    net[0].weight = torch.randn(1, 3)  # broken
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# If this were allowed, ``weight`` would silently leave ``parameters()``: the optimizer would
# stop updating it and ``state_dict()`` would stop saving it.
#
# The common causes
# -----------------
# Most reports write a value *computed from* the parameter back under its name, in ``forward``
# or in a statistics update. Any operation on a parameter, ``.to()`` included, returns a plain
# tensor:


class Mixer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer_weights = nn.Parameter(torch.zeros(3))

    def forward(self, layers: torch.Tensor) -> torch.Tensor:
        self.layer_weights = F.softmax(self.layer_weights, dim=0)
        return (self.layer_weights[:, None] * layers).sum(0)


layers = torch.randn(3, 4)
try:
    Mixer()(layers)  # cause: computed-from-parameter
except TypeError as error:
    print(f"TypeError: {error}")

try:
    net[0].weight = net[0].weight.to(torch.float64)  # cause: computed-from-parameter
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Weight drop, meta-learning and hypernetworks compute a layer's weight from other tensors on
# every step, and need the graph behind it:

layer = nn.Linear(3, 1)
inputs = torch.randn(5, 3)
loss = layer(inputs).pow(2).mean()
(grad_w,) = torch.autograd.grad(loss, layer.weight, create_graph=True)
try:
    layer.weight = layer.weight - 0.1 * grad_w  # cause: functional-weights
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Loading, pruning or re-initialising with a plain tensor, and ``register_parameter`` with one:

try:
    layer.weight = torch.randn(1, 3)  # cause: replace-values
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# A classifier's head re-initialised for another number of classes (10 to 5) the same way:

model = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
try:
    model[2].weight = torch.randn(5, 64) * 0.01  # cause: replace-values
except TypeError as error:
    print(f"TypeError: {error}")

try:
    layer.weight = 0.5  # cause: replace-values
except TypeError as error:
    print(f"TypeError: {error}")

module = nn.Module()
try:
    module.register_parameter("scale", torch.ones(3))  # cause: register-parameter-tensor
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# ``nn.ParameterList.append`` raised that second wording in older releases (it called
# ``register_parameter``); torch 2.13 wraps a plain tensor in a parameter instead:

parameters = nn.ParameterList()
parameters.append(torch.ones(3))
assert isinstance(parameters[0], nn.Parameter)
assert parameters[0].requires_grad

# %%
# Fix 1: copy into the parameter
# ------------------------------
# The parameter stays the same object, so an optimizer created earlier still updates it. The
# gradient of ``sum(W x + b)`` with respect to ``W`` is the sum of the inputs:

net = nn.Sequential(nn.Linear(in_features=3, out_features=1, bias=True))
new_weight = torch.randn(1, 3)
with torch.no_grad():  # fixed
    net[0].weight.copy_(new_weight)  # fixed
net(inputs).sum().backward()
torch.testing.assert_close(net[0].weight.detach(), new_weight)
torch.testing.assert_close(net[0].weight.grad, inputs.sum(0, keepdim=True))
print("weight.grad =", net[0].weight.grad)

layer = nn.Linear(3, 1)
values = torch.randn(1, 3)
with torch.no_grad():
    layer.weight.copy_(values)  # fix: replace-values
layer(inputs).sum().backward()
torch.testing.assert_close(layer.weight.grad, inputs.sum(0, keepdim=True))

with torch.no_grad():
    layer.weight.fill_(0.5)  # fix: replace-values
torch.testing.assert_close(layer.weight.detach(), torch.full((1, 3), 0.5))

# %%
# ``copy_`` cannot change the shape, so it is no fix for the new head: the ``[5, 64]`` values
# do not fit the ``[10, 64]`` weight (see Fix 3 for that case).


def copy_into_head() -> str:
    try:
        with torch.no_grad():
            model[2].weight.copy_(torch.randn(5, 64) * 0.01)
    except RuntimeError as error:
        return f"RuntimeError: {error}"
    return "copied"


print(copy_into_head())
assert copy_into_head().startswith("RuntimeError: The size of tensor a (10)")

# %%
# ``copy_`` keeps the parameter's shape, but it only checks that the values *broadcast* to it:
# three values fill every row of a ``[2, 3]`` weight without complaint.

wide = nn.Linear(3, 2)
with torch.no_grad():
    wide.weight.copy_(torch.tensor([1.0, 2.0, 3.0]))
torch.testing.assert_close(wide.weight.detach(), torch.tensor([[1.0, 2.0, 3.0]] * 2))

# %%
# Fix 2: keep computed values in local variables
# ----------------------------------------------
# The softmax of the layer weights belongs to this forward pass; the parameter stays what the
# optimizer trains. The gradient of ``sum(softmax(a) . s)``, ``s`` the summed layers, is
# ``p * (s - p . s)`` with ``p = softmax(a)``:


class FixedMixer(Mixer):
    def forward(self, layers: torch.Tensor) -> torch.Tensor:
        weights = F.softmax(self.layer_weights, dim=0)
        return (weights[:, None] * layers).sum(0)


mixer = FixedMixer()
mixer(layers).sum().backward()  # fix: computed-from-parameter
p, s = torch.full((3,), 1 / 3), layers.sum(1)
torch.testing.assert_close(mixer.layer_weights.grad, p * (s - (p * s).sum()))

# %%
# Fix 3: a new ``nn.Parameter``, and a new optimizer
# --------------------------------------------------
# Allowed, and the shape may change, but an existing optimizer still holds the *old* parameter:
# rebuild it.

net = nn.Sequential(nn.Linear(in_features=3, out_features=1, bias=True))
net[0].weight = nn.Parameter(torch.randn(1, 3))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
assert any(p is net[0].weight for p in optimizer.param_groups[0]["params"])

# %%
# For the head with another number of classes, the bias must change too: replace the layer
# (or assign an ``nn.Parameter`` to both its weight and its bias), then build the optimizer
# again. One SGD step then moves the new weight by ``-lr`` times its gradient, which for
# ``sum(head(h))`` is the column sums of ``h`` on every row:

model[2] = nn.Linear(64, 5)  # fix: replace-values
with torch.no_grad():
    model[2].weight.copy_(torch.randn(5, 64) * 0.01)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # fix: replace-values
batch = torch.randn(8, 4)
hidden = model[1](model[0](batch)).detach()
before = model[2].weight.detach().clone()
optimizer.zero_grad()
model(batch).sum().backward()
optimizer.step()
expected_grad = hidden.sum(0).expand(5, 64)
torch.testing.assert_close(model[2].weight.detach(), before - 0.1 * expected_grad)
assert model(batch).shape == (8, 5)

module = nn.Module()
module.register_parameter("scale", nn.Parameter(torch.ones(3)))  # fix: register-parameter-tensor
(module.scale * torch.arange(3.0)).sum().backward()
torch.testing.assert_close(module.scale.grad, torch.arange(3.0))

# %%
# The pitfall: ``nn.Parameter(t)`` cuts the graph behind ``t``
# ------------------------------------------------------------
# A parameter is a new leaf. Wrapping a weight that a hypernetwork computed silences the
# error, and the hypernetwork never gets a gradient:

hyper = nn.Linear(2, 3)
target = nn.Linear(3, 1)
code = torch.randn(2)
target.weight = nn.Parameter(hyper(code).unsqueeze(0))
target(inputs).sum().backward()
print("hypernetwork grad after nn.Parameter(t):", hyper.weight.grad)
assert hyper.weight.grad is None

# %%
# Fix 4: compute the weight, and call the layer with it
# -----------------------------------------------------
# ``torch.func.functional_call`` runs a module with some of its tensors swapped for the ones
# you pass, graph included. For ``sum(x @ w^T)`` with ``w = H c + h`` (``H, h`` the
# hypernetwork), the gradient with respect to ``H`` is the outer product of the input sums
# and the code:

hyper = nn.Linear(2, 3)
generated = hyper(code).unsqueeze(0)
swapped = {"weight": generated}
output = torch.func.functional_call(target, swapped, (inputs,))  # fix: functional-weights
output.sum().backward()
torch.testing.assert_close(hyper.weight.grad, torch.outer(inputs.sum(0), code))

# %%
# A meta-learning inner step works the same way, and the outer gradient flows through the
# update:

layer = nn.Linear(3, 1)
loss = layer(inputs).pow(2).mean()
(grad_w,) = torch.autograd.grad(loss, layer.weight, create_graph=True)
adapted = layer.weight - 0.1 * grad_w
outer = torch.func.functional_call(layer, {"weight": adapted}, inputs)  # fix: functional-weights
(meta_grad,) = torch.autograd.grad(outer.sum(), layer.weight)
reference_weight = layer.weight.detach().clone().requires_grad_()
reference_loss = F.linear(inputs, reference_weight, layer.bias).pow(2).mean()
(reference_grad,) = torch.autograd.grad(reference_loss, reference_weight, create_graph=True)
reference_outer = F.linear(inputs, reference_weight - 0.1 * reference_grad, layer.bias).sum()
torch.testing.assert_close(meta_grad, torch.autograd.grad(reference_outer, reference_weight)[0])

# %%
# Two other ways keep the graph. ``del`` the parameter once, after which the name is an
# ordinary attribute that takes the computed tensor before each call (it is no longer in
# ``parameters()`` or the state dict). Or register a parametrization, which recomputes the
# weight from the trained original on every access; here a fixed mask:

hyper = nn.Linear(2, 3)
target = nn.Linear(3, 1)
del target.weight
target.weight = hyper(code).unsqueeze(0)  # fix: functional-weights
target(inputs).sum().backward()
torch.testing.assert_close(hyper.weight.grad, torch.outer(inputs.sum(0), code))


class Mask(nn.Module):
    def __init__(self, mask: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("mask", mask)

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return weight * self.mask


layer = nn.Linear(3, 1)
mask = torch.tensor([[1.0, 0.0, 1.0]])
nn.utils.parametrize.register_parametrization(layer, "weight", Mask(mask))
layer(inputs).sum().backward()
original = layer.parametrizations.weight.original
torch.testing.assert_close(original.grad, inputs.sum(0, keepdim=True) * mask)

# %%
# Pitfall: ``net[0].weight.data = torch.randn(3)`` also avoids the error, but checks nothing:
# here the shape is wrong, and the layer fails only when it is next called
# (:doc:`/errors/modules/mat2-not-matrix`).

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: parameter-assign
