"""
buffer-assign
=============

.. autograd-entry:: buffer-assign

Buffers: state that is not trained
----------------------------------

A module's *buffers* are tensors it keeps without training them: ``BatchNorm``'s running mean
and variance, attention masks, step counters. ``register_buffer(name, tensor)`` puts them in a
registry of their own; ``state_dict()`` saves them, ``.to(device)`` moves them, and the
optimizer never sees them. Once a name is a buffer, ``nn.Module.__setattr__`` accepts only a
tensor there (an ``nn.Buffer`` from torch 2.5, or ``None``): a Python number, a list or a NumPy
array would silently fall out of the state dict and stay behind when the module moves.
"""

import numpy as np
import torch
from torch import nn

bn = nn.BatchNorm1d(2)
print("parameters:", [name for name, _ in bn.named_parameters()])
print("buffers:   ", [name for name, _ in bn.named_buffers()])

# %%
# The repro
# ---------
# Keeping the best validation loss as a buffer, so that it is saved with the model, then
# writing a Python float into it:


class Tracker(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("best_loss", torch.tensor(float("inf")))


tracker = Tracker()
loss = torch.tensor(0.25)
try:
    tracker.best_loss = loss.item()  # broken
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# The common causes
# -----------------
# A Python number, from ``.item()`` or a counter, and the same number given to
# ``register_buffer``, which refuses non-tensors with its own wording:

tracker = Tracker()
try:
    tracker.best_loss = 0.5  # cause: python-number
except TypeError as error:
    print(f"TypeError: {error}")

module = nn.Module()
try:
    module.register_buffer("pos_weight", 3)  # cause: python-number
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# A list or a NumPy array, for running statistics or a mask:

bn = nn.BatchNorm1d(2)
try:
    bn.running_mean = [0.5, -0.5]  # cause: list-or-array
except TypeError as error:
    print(f"TypeError: {error}")

try:
    bn.running_var = np.ones(2, dtype=np.float32)  # cause: list-or-array
except TypeError as error:
    print(f"TypeError: {error}")

module = nn.Module()
try:
    module.register_buffer("mask", np.ones(3, dtype=bool))  # cause: list-or-array
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Fix 1: update the buffer in place
# ---------------------------------
# The buffer is already a tensor of the right dtype, on the right device: write the new values
# into it with ``fill_`` or ``copy_``. Buffers do not require grad, so no ``torch.no_grad()``
# is needed.

tracker = Tracker()
tracker.best_loss.fill_(loss.item())  # fixed
torch.testing.assert_close(tracker.state_dict()["best_loss"], torch.tensor(0.25))
tracker.best_loss.fill_(0.5)  # fix: python-number
torch.testing.assert_close(tracker.state_dict()["best_loss"], torch.tensor(0.5))

counter = nn.Module()
counter.register_buffer("steps", torch.tensor(0))
for _ in range(3):
    counter.steps += 1  # fix: python-number
assert counter.state_dict()["steps"].item() == 3

bn = nn.BatchNorm1d(2)
bn.running_mean.copy_(torch.as_tensor([0.5, -0.5]))  # fix: list-or-array
bn.running_var.copy_(torch.as_tensor([4.0, 1.0]))
print("running_mean:", bn.running_mean, bn.running_mean.dtype)
torch.testing.assert_close(bn.running_mean, torch.tensor([0.5, -0.5]))

# %%
# In evaluation mode the layer normalises with those statistics: ``(x - mean) / sqrt(var +
# eps)``, times the weight, plus the bias. So the gradient of its summed output with respect to
# ``x`` is ``weight / sqrt(var + eps)`` in every row:

bn.eval()
x = torch.randn(5, 2, requires_grad=True)
bn(x).sum().backward()
expected = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach().expand(5, 2)
torch.testing.assert_close(x.grad, expected)
print("x.grad =\n", x.grad)

# %%
# Fix 2: assign a tensor
# ----------------------
# Assigning a tensor replaces the buffer and keeps it registered. Convert NumPy arrays with
# ``torch.from_numpy`` (or ``torch.as_tensor``), and register new buffers as tensors too. On
# torch 2.5 and later, ``module.mask = nn.Buffer(tensor)`` registers a new buffer by
# assignment. With the statistics assigned this way, the gradient is again
# ``weight / sqrt(var + eps)``:

bn = nn.BatchNorm1d(2).eval()
bn.running_mean = torch.from_numpy(np.array([0.5, -0.5], dtype=np.float32))
bn.running_var = torch.as_tensor([4.0, 1.0])
x = torch.randn(5, 2, requires_grad=True)
bn(x).sum().backward()
expected = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach().expand(5, 2)
torch.testing.assert_close(x.grad, expected)
assert {"running_mean", "running_var"} <= set(bn.state_dict())

module = nn.Module()
module.register_buffer("mask", torch.from_numpy(np.ones(3, dtype=bool)))  # fix: list-or-array
module.register_buffer("pos_weight", torch.tensor(3.0))  # fix: python-number
module.scale = nn.Buffer(torch.ones(2))  # torch 2.5 and later: a buffer by assignment
assert "scale" in dict(module.named_buffers())
print("state:", {name: value.tolist() for name, value in module.state_dict().items()})

# %%
# If the value should not be saved or moved with the module at all (a Python number kept for
# logging, say), it should not be a buffer: ``del`` the buffer, then assign. The name is then
# an ordinary attribute, outside ``state_dict()``.

tracker = Tracker()
del tracker.best_loss
tracker.best_loss = loss.item()
print("state after del:", list(tracker.state_dict()), " best_loss =", tracker.best_loss)

# %%
# The pitfall of assigning: dtype and device
# ------------------------------------------
# A replacement brings its own dtype and device. Integers in the literal make an int64
# running mean, and the next forward pass fails far from this line ("expected scalar type
# Float but found Long"); an in-place ``copy_`` would have converted the values to the
# buffer's float32, and kept it on the module's device:

bn = nn.BatchNorm1d(2)
bn.running_mean = torch.tensor([0, 0])
print("running_mean dtype after assigning:", bn.running_mean.dtype)
assert bn.running_mean.dtype == torch.int64
bn.running_mean = torch.zeros(2)

# %%
# The pitfall of assigning a tensor with a graph
# ----------------------------------------------
# Any tensor is accepted, including one computed from the model: a running average of
# activations, or the last loss. The buffer then holds that step's graph. The next step's loss
# uses the buffer, so its ``backward()`` reaches into the previous step's graph, whose saved
# tensors are already freed (:doc:`/errors/graph/backward-twice`):


class RunningMean(nn.Module):
    def __init__(self, keep_graph: bool) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 1)
        self.register_buffer("average", torch.zeros(1))
        self.keep_graph = keep_graph

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.linear(x)
        new_average = 0.9 * self.average + 0.1 * out.mean()
        self.average = new_average if self.keep_graph else new_average.detach()
        return out


def second_step_fails(model: RunningMean) -> bool:
    try:
        for _ in range(2):
            (model(torch.randn(4, 3)).sum() + model.average.sum()).backward()
    except RuntimeError as error:
        print(f"second step: RuntimeError: {str(error)[:60]}...")
        return True
    return False


assert second_step_fails(RunningMean(keep_graph=True))

# %%
# Assign ``.detach()``: the buffer keeps the values, not the history, and enters the next loss
# as a constant. Each step's gradient is then its own: for the weight, the column sums of that
# step's inputs:

model = RunningMean(keep_graph=False)
assert not second_step_fails(model)
model.zero_grad()
x = torch.randn(4, 3)
(model(x).sum() + model.average.sum()).backward()
torch.testing.assert_close(model.linear.weight.grad, x.sum(0, keepdim=True))

# %%
# The pitfall of assigning a parameter
# ------------------------------------
# An ``nn.Parameter`` *is* accepted under a buffer's name, and quietly changes its nature: the
# name leaves the buffers and becomes a trained parameter, which the next optimizer will update.

module = nn.Module()
module.register_buffer("scale", torch.ones(1))
module.scale = nn.Parameter(torch.ones(1))
print("parameters:", [name for name, _ in module.named_parameters()])
print("buffers:   ", [name for name, _ in module.named_buffers()])
assert [name for name, _ in module.named_buffers()] == []

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: buffer-assign
