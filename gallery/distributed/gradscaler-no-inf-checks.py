"""
gradscaler-no-inf-checks
========================

.. autograd-entry:: gradscaler-no-inf-checks

What ``scaler.step`` checks
---------------------------

With mixed precision, a step's gradients may overflow; ``GradScaler`` then skips the step and
lowers its scale. To know, ``scaler.step(optimizer)`` unscales the optimizer's gradients and
records, per device, whether any was inf or NaN. It looks only at parameters whose ``.grad`` is
set. If the backward pass gave none of the optimizer's parameters a gradient, nothing is
recorded, and the scaler stops with an assertion rather than silently doing nothing: the loss
and the optimizer are not connected.

The scaler runs on the CPU here (``torch.amp.GradScaler("cpu")``); on a GPU the code is the same
with ``"cuda"``.
"""

import torch
from torch import nn

x, target = torch.randn(8, 4), torch.randn(8, 1)


def expected_weight_grad(layer: nn.Linear) -> torch.Tensor:
    """Gradient of the mean squared error of ``layer(x)`` with respect to its weight."""
    residual = x @ layer.weight.detach().T + layer.bias.detach() - target
    return 2 / len(x) * residual.T @ x


# %%
# The repro
# ---------
# A custom loss that rebuilds its value with ``torch.tensor(...)``: the result is a new leaf,
# not connected to the model, so the model's parameters get no gradient.

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
error_value = (model(x) - target).pow(2).mean()
loss = torch.tensor(error_value.item(), requires_grad=True)  # broken
scaler.scale(loss).backward()
try:
    scaler.step(optimizer)  # broken  # cause: loss-detached-from-parameters
except AssertionError as error:
    print(f"AssertionError: {error}")
print("gradients:", [p.grad for p in model.parameters()])

# %%
# Fix 1: keep the loss in the graph
# ---------------------------------
# Use the tensor the model computed. After ``unscale_`` the gradients are the true ones.

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loss = (model(x) - target).pow(2).mean()  # fixed  # fix: loss-detached-from-parameters
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.testing.assert_close(model.weight.grad, expected_weight_grad(model))
scaler.step(optimizer)
scaler.update()

# %%
# An optimizer for other tensors
# ------------------------------
# The optimizer is created, then the model is rebuilt (from a checkpoint, or by a wrapper that
# replaces its parameters). The loss reaches the new parameters; the optimizer holds the old.

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model = nn.Linear(4, 1)  # reloaded after the optimizer was made
scaler = torch.amp.GradScaler("cpu")
scaler.scale((model(x) - target).pow(2).mean()).backward()
try:
    scaler.step(optimizer)  # cause: optimizer-holds-other-tensors
except AssertionError as error:
    print(f"AssertionError: {error}")

# %%
# Fix 2: create the optimizer last
# --------------------------------
# Build it from the parameters of the model that will run, and check that it holds them.

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # fix: optimizer-holds-other-tensors
held = {id(p) for group in optimizer.param_groups for p in group["params"]}
assert held == {id(p) for p in model.parameters()}
scaler = torch.amp.GradScaler("cpu")
scaler.scale((model(x) - target).pow(2).mean()).backward()
scaler.unscale_(optimizer)
torch.testing.assert_close(model.weight.grad, expected_weight_grad(model))
before = model.weight.detach().clone()
scaler.step(optimizer)
scaler.update()
torch.testing.assert_close(model.weight.detach(), before - 0.1 * model.weight.grad)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: gradscaler-no-inf-checks
