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
# Fix 1: copy into the parameter
# ------------------------------
# The parameter stays the same object, so an optimizer created earlier still updates it; the
# shape must match. The gradient of ``sum(W x + b)`` with respect to ``W`` is the sum of the
# inputs:

net = nn.Sequential(nn.Linear(in_features=3, out_features=1, bias=True))
new_weight = torch.randn(1, 3)
with torch.no_grad():  # fixed
    net[0].weight.copy_(new_weight)  # fixed
inputs = torch.randn(5, 3)
net(inputs).sum().backward()
torch.testing.assert_close(net[0].weight.detach(), new_weight)
torch.testing.assert_close(net[0].weight.grad, inputs.sum(0, keepdim=True))
print("weight.grad =", net[0].weight.grad)

# %%
# Fix 2: assign a new ``nn.Parameter``
# ------------------------------------
# Allowed, and the shape may change, but an existing optimizer still holds the *old* parameter:
# rebuild it.

net = nn.Sequential(nn.Linear(in_features=3, out_features=1, bias=True))
net[0].weight = nn.Parameter(torch.randn(1, 3))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
assert any(p is net[0].weight for p in optimizer.param_groups[0]["params"])
print([name for name, _ in net.named_parameters()])

# %%
# Pitfall: ``net[0].weight.data = torch.randn(3)``, the notes' workaround, also avoids the
# error, but checks nothing: here the shape is wrong, and the layer fails only when it is next
# called (:doc:`/errors/modules/mat2-not-matrix`).

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: parameter-assign
