"""
module-assign
=============

.. autograd-entry:: module-assign

How a module keeps its layers
-----------------------------

``nn.Module.__setattr__`` sorts what you assign. A module goes into the registry of child
modules, ``_modules``; ``children()``, ``parameters()``, ``state_dict()``, ``.to(device)``,
``train()`` and ``eval()`` all walk that registry. Once ``fc`` names a child module, the name
is reserved: assigning anything else to it would silently drop the layer, and its parameters,
from everything that walks the registry, so torch refuses.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.fc(x))


net = Net()
print("child modules:", list(net._modules))
print("parameters:   ", [name for name, _ in net.named_parameters()])

# %%
# The repro
# ---------
# The classic: storing a layer's *output* under the layer's own name, in ``forward``. The
# output is a tensor, and ``fc`` holds a module:


class Broken(Net):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.fc = self.fc(x)  # broken
        return self.act(self.fc)  # broken


try:
    Broken()(torch.randn(3, 4))
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# The common causes
# -----------------
# A function, a lambda or a bound method in place of a layer (wrappers that compile or offload a
# layer sometimes store its ``forward`` back under its name):

net = Net()
try:
    net.act = F.gelu  # cause: function-for-layer
except TypeError as error:
    print(f"TypeError: {error}")

try:
    net.act = lambda x: x + 1  # cause: function-for-layer
except TypeError as error:
    print(f"TypeError: {error}")

net.other = nn.Linear(4, 2)
try:
    net.fc = net.other.forward  # cause: function-for-layer
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# A tensor under a layer's name: the layer's output, as in the repro, or a fixed kernel given to
# ``add_module``, which words the refusal differently:

try:
    net.fc = net.fc(torch.randn(3, 4))  # cause: tensor-for-layer
except TypeError as error:
    print(f"TypeError: {error}")

try:
    net.add_module("kernel", torch.ones(3, 3))  # cause: tensor-for-layer
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# The class instead of an instance, and a trailing comma that makes a tuple:

try:
    net.fc = nn.Linear  # cause: class-not-instance
except TypeError as error:
    print(f"TypeError: {error}")

try:
    net.fc = (nn.Linear(4, 2),)  # cause: trailing-comma
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Containers check their items the same way, with the shorter message:

try:
    head = nn.Sequential(nn.Linear(4, 2), F.relu)  # cause: function-for-layer
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Fix 1: keep outputs in local variables
# --------------------------------------
# ``forward`` computes values; it should not rebind the layers. With a local variable the layer
# stays registered, trains, and the gradient of ``sum(relu(W x + b))`` with respect to ``W`` is
# the sum, over the batch, of the inputs where the unit is active:


class Fixed(Net):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.fc(x)  # fixed
        return self.act(hidden)  # fixed


net = Fixed()
x = torch.randn(3, 4)
net(x).sum().backward()  # fix: tensor-for-layer
active = (net.fc(x) > 0).to(x.dtype)
torch.testing.assert_close(net.fc.weight.grad, active.T @ x)
print("fc.weight.grad =\n", net.fc.weight.grad)

# %%
# Fix 2: assign a module
# ----------------------
# Every common function has a module twin: ``nn.GELU()`` for ``F.gelu``, ``nn.ReLU()`` for
# ``F.relu``; ``nn.Identity()`` removes a layer (a classifier head, say). Anything else can be
# wrapped in a small module of your own:


class Lambda(nn.Module):
    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x)


net = Net()
net.act = nn.GELU()  # fix: function-for-layer
x = torch.randn(3, 4, requires_grad=True)
net(x).sum().backward()
expected = torch.autograd.grad(F.gelu(net.fc(x)).sum(), x)[0]
torch.testing.assert_close(x.grad, expected)

# %%
# With the wrapper, the gradient of ``sum(tanh(W x + b))`` with respect to ``x`` is
# ``(1 - tanh^2) W`` summed over the outputs:

net.act = Lambda(torch.tanh)
x = torch.randn(3, 4, requires_grad=True)
net(x).sum().backward()
slope = 1 - torch.tanh(net.fc(x.detach())).detach() ** 2
torch.testing.assert_close(x.grad, slope @ net.fc.weight.detach())

# %%
# A fixed kernel is a buffer, not a module. In a container, the module twin goes in the list,
# and ``nn.Identity()`` removes a layer:

net.register_buffer("kernel", torch.ones(3, 3))  # fix: tensor-for-layer
assert "kernel" in net.state_dict()
head = nn.Sequential(nn.Linear(4, 2), nn.ReLU())  # fix: function-for-layer
x = torch.randn(3, 4)
head(x).sum().backward()
active = (head[0](x) > 0).to(x.dtype)
torch.testing.assert_close(head[0].weight.grad, active.T @ x)
net.fc = nn.Identity()
print("parameters after removing fc:", [name for name, _ in net.named_parameters()])
print(net)

# %%
# The class must be called, and the comma dropped:

net = Net()
net.fc = nn.Linear(4, 2)  # fix: class-not-instance
net.act = nn.ReLU()
x = torch.randn(3, 4)
net(x).sum().backward()
active = (net.fc(x) > 0).to(x.dtype)
torch.testing.assert_close(net.fc.weight.grad, active.T @ x)
net.fc = nn.Linear(4, 2)  # fix: trailing-comma
assert isinstance(net.fc, nn.Linear)

# %%
# Storing something else under the name
# -------------------------------------
# If the name really should hold something else from now on, delete the child module first:
# ``del`` takes it out of the registry, and the name becomes an ordinary attribute.

net = Net()
del net.fc
net.fc = torch.randn(2, 4)
print("child modules:", list(net._modules))

# %%
# The pitfall of ``del``
# ----------------------
# An ordinary attribute is invisible to the module's machinery. The tensor above is not a
# parameter, is not saved by ``state_dict()``, and does not follow ``net.double()`` or
# ``net.to(device)``: the layer it replaced did all of that.

net.double()
print("fc dtype after net.double():", net.fc.dtype)
assert net.fc.dtype == torch.float32
assert "fc.weight" not in net.state_dict()

# %%
# The pitfall of a parameter
# --------------------------
# An ``nn.Parameter`` is the one thing accepted under a child module's name. The assignment
# succeeds, and the child module, with all its parameters, silently leaves the model:

net = Net()
net.fc = nn.Parameter(torch.randn(2, 4))
print("child modules after assigning a parameter:", list(net._modules))
print("parameters:", [name for name, _ in net.named_parameters()])
assert "fc" not in net._modules
assert "fc.weight" not in net.state_dict()

# %%
# To keep a tensor that must follow the module, register it: as an ``nn.Parameter`` if it is
# trained (see :doc:`/errors/modules/parameter-assign`), as a buffer if it is not (see
# :doc:`/errors/modules/buffer-assign`).

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: module-assign
