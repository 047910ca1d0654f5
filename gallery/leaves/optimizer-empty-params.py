"""
optimizer-empty-params
======================

.. autograd-entry:: optimizer-empty-params

What an optimizer is given
--------------------------

An optimizer holds a list of tensors, its *parameter groups*, and at each ``step()`` updates
every one of them in place from its ``.grad``. ``torch.optim.Optimizer.__init__`` turns what it
is given into that list with ``list(params)``, once: whatever the iterable yields at that moment
is all the optimizer will ever update. If it yields nothing, there is nothing to train, and the
constructor refuses rather than build an optimizer whose ``step()`` does nothing.

``model.parameters()`` is a *generator* over the module's registered parameters: those
assigned as ``nn.Parameter`` attributes of the module or of its registered submodules
(attributes that are modules, ``nn.ModuleList``, ``nn.ModuleDict``, ``nn.Sequential``).
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# A fine-tuning script freezes the backbone, then builds the optimizer from the parameters that
# still require grad. Here every parameter was frozen, so the filter yields nothing:

model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
model.requires_grad_(False)
try:
    torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()))  # broken
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Common causes
# -------------
# Every parameter frozen before the optimizer is built: a loop that was meant to freeze the
# backbone but freezes the whole model, or a configuration that names no trainable part.

backbone, head = nn.Linear(4, 3), nn.Linear(3, 2)
model = nn.Sequential(backbone, nn.ReLU(), head)
for param in model.parameters():  # meant: backbone.parameters()
    param.requires_grad = False
try:
    trainable = [p for p in model.parameters() if p.requires_grad]
    torch.optim.SGD(trainable, lr=0.1)  # cause: all-frozen
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Layers kept in a plain Python list (or dict) are not registered: ``nn.Module`` only finds the
# parameters of attributes that are modules or ``nn.Parameter`` themselves, so the model has
# none.


class Stack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = [nn.Linear(4, 4) for _ in range(2)]  # a list: not registered

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


try:
    torch.optim.SGD(Stack().parameters(), lr=0.1)  # cause: unregistered-layers
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# A parameter moved after it was made: ``nn.Parameter(t).cuda()`` (or ``.double()``, ``.to(...)``
# to another device or dtype) returns a copy, an ordinary tensor computed from the parameter.
# Assigned to the module, that copy is a plain attribute, not a registered parameter:


class CenterLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.centers = nn.Parameter(torch.randn(3, 2)).double()  # a copy: not a Parameter


try:
    torch.optim.SGD(CenterLoss().parameters(), lr=0.5)  # cause: parameter-then-moved
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# A generator already used up. ``model.parameters()`` and ``filter(...)`` can be iterated only
# once: counting the parameters, or an optimizer wrapper that iterates them first, leaves
# nothing for the optimizer.

model = nn.Linear(4, 2)
params = filter(lambda p: p.requires_grad, model.parameters())
print("trainable tensors:", sum(1 for _ in params))
try:
    torch.optim.SGD(params, lr=0.1)  # cause: exhausted-generator
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 1: freeze only what should stay fixed
# -----------------------------------------
# Freeze the backbone's parameters, not the model's; the head keeps ``requires_grad=True`` and
# the filtered list holds its weight and bias. One step of SGD on ``sum(head(relu(backbone(x))))``
# moves the head's bias by ``-lr * batch size`` and leaves the backbone as it was:

backbone, head = nn.Linear(4, 3), nn.Linear(3, 2)
model = nn.Sequential(backbone, nn.ReLU(), head)
backbone.requires_grad_(False)  # fix: all-frozen
trainable = [p for p in model.parameters() if p.requires_grad]  # fix: all-frozen
optimizer = torch.optim.SGD(trainable, lr=0.1)  # fix: all-frozen
before_bias, before_weight = head.bias.detach().clone(), backbone.weight.detach().clone()
model(torch.randn(5, 4)).sum().backward()
optimizer.step()
torch.testing.assert_close(head.bias.detach(), before_bias - 0.1 * 5)
torch.testing.assert_close(backbone.weight.detach(), before_weight)
print("trainable:", [tuple(p.shape) for p in trainable])

# %%
# Fix 2: register the layers
# --------------------------
# ``nn.ModuleList`` (``nn.ModuleDict`` for a dict) registers each layer, so ``parameters()``
# finds their weights and the optimizer trains them:


class RegisteredStack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(2))  # registered

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


stack = RegisteredStack()
optimizer = torch.optim.SGD(stack.parameters(), lr=0.1)  # fix: unregistered-layers
assert len(optimizer.param_groups[0]["params"]) == 4
last_bias = stack.layers[1].bias.detach().clone()
stack(torch.randn(3, 4)).sum().backward()
optimizer.step()
torch.testing.assert_close(stack.layers[1].bias.detach(), last_bias - 0.1 * 3)

# %%
# Move (or convert) the tensor first and make the parameter last, so that the module registers
# the ``nn.Parameter`` itself; or move the whole module afterwards with ``.to(...)``, which
# keeps its parameters registered:


class RegisteredCenterLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.centers = nn.Parameter(torch.randn(3, 2).double())  # the Parameter itself


centers_loss = RegisteredCenterLoss()
optimizer = torch.optim.SGD(centers_loss.parameters(), lr=0.5)  # fix: parameter-then-moved
before = centers_loss.centers.detach().clone()
centers_loss.centers.sum().backward()
optimizer.step()
torch.testing.assert_close(centers_loss.centers.detach(), before - 0.5)

# %%
# Fix 3: make a list once
# -----------------------
# A list can be iterated as often as needed: count it, log it, then give it to the optimizer.

model = nn.Linear(4, 2)
params = [p for p in model.parameters() if p.requires_grad]  # fix: exhausted-generator
print("trainable tensors:", len(params))
optimizer = torch.optim.SGD(params, lr=0.1)  # fix: exhausted-generator
before = model.bias.detach().clone()
model(torch.randn(6, 4)).sum().backward()
optimizer.step()
torch.testing.assert_close(model.bias.detach(), before - 0.1 * 6)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: optimizer-empty-params
