"""
numpy-requires-grad
===================

.. autograd-entry:: numpy-requires-grad

An array that shares the tensor's memory
----------------------------------------

``t.numpy()`` does not copy: it returns a NumPy array that views the tensor's own memory (CPU
tensors only). NumPy knows nothing of autograd, so two things would go wrong with a tensor that
requires grad: whatever you compute from the array has no ``grad_fn`` and no gradient, and a
write into the array changes the tensor without autograd seeing it. Torch therefore refuses,
and makes you say explicitly that you are leaving the graph.
"""

import numpy as np
import torch

plain = torch.zeros(3)
array = plain.numpy()
array[0] = 7.0
print("the tensor after writing into its array:", plain)

# %%
# The repro
# ---------
# Taking a model's output to NumPy, to plot it or compute a metric:

model = torch.nn.Linear(3, 1)
inputs = torch.randn(4, 3)
predictions = model(inputs)
try:
    predictions.numpy()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The common causes
# -----------------
# Logging, plotting or scoring a model's output or loss:

try:
    scores = model(inputs).cpu().numpy()  # cause: log-or-plot
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# NumPy functions handed tensors call ``numpy()`` themselves, so the error also comes from
# ``np.asarray``, ``np.array``, or a NumPy reduction over a list of losses:

losses = [(model(inputs) ** 2).mean(), model(inputs).abs().mean()]
try:
    total = np.sum(losses)  # cause: numpy-on-tensors
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    stacked = np.array(losses)  # cause: numpy-on-tensors
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And NumPy inside the model, where the graph must go on:


class SumOfLayers(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 3) for _ in range(2))

    def forward(self, x: torch.Tensor, use_numpy: bool) -> torch.Tensor:
        final = [layer(x) for layer in self.layers]
        if use_numpy:
            return torch.as_tensor(np.sum(final, 0))
        return torch.stack(final).sum(0)


try:
    SumOfLayers()(inputs, use_numpy=True)  # cause: numpy-in-forward
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: detach what you only look at
# -----------------------------------
# For logging, plotting and metrics, ``detach()`` first (and ``.cpu()`` for a GPU tensor):
# the array is then a view of a tensor outside the graph. Training is unaffected; the
# gradient of ``sum(W x + b)`` with respect to ``W`` is still the sum of the inputs:

model = torch.nn.Linear(3, 1)
predictions = model(inputs)
as_array = predictions.detach().cpu().numpy()  # fixed
print("predictions:", as_array.ravel())
scores = predictions.numpy(force=True)  # fix: log-or-plot
np.testing.assert_array_equal(scores, as_array)
predictions.sum().backward()
torch.testing.assert_close(model.weight.grad, inputs.sum(0, keepdim=True))

# %%
# A single number is simpler still: ``loss.item()`` gives a Python float. And
# ``t.numpy(force=True)`` (torch 1.13 and later) detaches, moves to the CPU and resolves
# conjugation in one call.
#
# Fix 2: keep the computation in torch
# ------------------------------------
# If the NumPy result was meant to feed the loss, a detour through NumPy cannot work: write it
# with torch operations, which autograd records. For the list of losses, ``torch.stack`` and
# ``sum``; each loss then gets a gradient of 1:

model = torch.nn.Linear(3, 1)
losses = [(model(inputs) ** 2).mean(), model(inputs).abs().mean()]
total = torch.stack(losses).sum()  # fix: numpy-on-tensors
grads = torch.autograd.grad(total, losses)
torch.testing.assert_close(torch.stack(grads), torch.ones(2))
print("total =", total.item())

# %%
# Inside the model, the torch version of the sum keeps the graph: each layer's weight gets the
# input column sums in every row:

model_of_sums = SumOfLayers()
model_of_sums(inputs, use_numpy=False).sum().backward()  # fix: numpy-in-forward
for layer in model_of_sums.layers:
    torch.testing.assert_close(layer.weight.grad, inputs.sum(0).expand(3, 3))

# %%
# Fix 3: convert under ``torch.no_grad()``
# ----------------------------------------
# In evaluation code, run the model under ``torch.no_grad()``: its outputs do not require grad
# at all. ``numpy()`` is also allowed there on tensors that do (torch 1.6 and later): no
# gradient is expected inside the block.

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    evaluated = (inputs @ weight).numpy()
    weights_now = weight.numpy()
print("weights:", weights_now)

# %%
# Outside the block, ``weight`` is trained as before; the gradient of ``sum(inputs @ weight)``
# is the column sums of the inputs:

(inputs @ weight).sum().backward()
torch.testing.assert_close(weight.grad, inputs.sum(0))
torch.testing.assert_close(torch.from_numpy(evaluated), (inputs @ weight).detach())

# %%
# The pitfall of shared memory
# ----------------------------
# The detached array still shares the tensor's memory, and NumPy writes do not bump the version
# counter autograd uses to catch in-place changes (see :doc:`/errors/inplace/inplace-modified`).
# Here ``y = w * w`` saved ``w`` for backward, so its gradient should be ``2 w``; scaling the
# array afterwards changes what backward reads, silently:

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (w * w).sum()
view = w.detach().numpy()
view *= 10  # meant for a scaled copy
y.backward()
print("true gradient:   ", 2 * torch.tensor([1.0, 2.0, 3.0]))
print("what .grad holds:", w.grad)
assert not torch.equal(w.grad, 2 * torch.tensor([1.0, 2.0, 3.0]))

# %%
# Copy before writing: ``w.detach().numpy().copy()``, or ``w.detach().clone().numpy()``:

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (w * w).sum()
scaled = w.detach().numpy().copy()
scaled *= 10
y.backward()
torch.testing.assert_close(w.grad, 2 * w.detach())

# %%
# The pitfall of the round trip
# -----------------------------
# Bringing a NumPy result back with ``torch.tensor(...)`` or ``torch.from_numpy(...)`` makes a
# new leaf with no history. Asking it for gradients silences the errors that would have said so,
# but the gradient stops there and never reaches ``x``:

x = torch.tensor([0.5, 1.0], requires_grad=True)
back = torch.tensor(np.tanh(x.detach().numpy()), requires_grad=True)
back.sum().backward()
print("x.grad =", x.grad)
assert x.grad is None

x = torch.tensor([0.5, 1.0], requires_grad=True)
torch.tanh(x).sum().backward()  # the torch version keeps the graph
torch.testing.assert_close(x.grad, 1 - torch.tanh(x.detach()) ** 2)
print("x.grad =", x.grad)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: numpy-requires-grad
