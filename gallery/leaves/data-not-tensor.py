"""
data-not-tensor
===============

.. autograd-entry:: data-not-tensor

What ``.data`` is
-----------------

Every tensor that takes part in autograd wraps its values; ``x.data`` is those values as a
tensor autograd does not track. It shares storage with ``x``: reading it is free, and writing
to it changes ``x`` without autograd noticing. Assigning to ``x.data`` swaps the values under
``x`` for another tensor's, keeping ``x`` itself (its identity, ``requires_grad``, its place in
an optimizer).
"""

import numpy as np
import torch

x = torch.tensor([1.0], requires_grad=True)
before = id(x)
x.data = torch.tensor([2.0])
print(x, "same object:", id(x) == before)

# %%
# The repro
# ---------
# ``.data`` must be a tensor; a Python number is not:

x = torch.tensor([1.0], requires_grad=True)
try:
    x.data = 2  # broken
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# The common causes
# -----------------
# Weights converted from NumPy (from another framework's checkpoint, say) assigned as arrays.
# NumPy's default dtype is float64:

layer = torch.nn.Linear(3, 2)
array = np.ones((2, 3))
try:
    layer.weight.data = array  # cause: numpy-weights
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# A Python number or a list, meant as the new values:

x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    x.data = 2  # cause: python-value
except TypeError as error:
    print(f"TypeError: {error}")

try:
    x.data = [3.0, 4.0]  # cause: python-value
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Attributes with other names are not special: a tensor takes any Python attribute, even one
# called ``detach`` (which then hides the method):

x = torch.tensor([1.0], requires_grad=True)
x.note = "any attribute"
print(x.note)

# %%
# Fix 1: assign a tensor
# ----------------------
# Then ``x`` computes with the new value, and its gradient is taken there: for ``y = 2x``, the
# gradient is 2 whatever the value.

x = torch.tensor([1.0], requires_grad=True)
x.data = torch.tensor([2.0])  # fixed
y = x * 2
y.backward()
torch.testing.assert_close(x.grad, torch.tensor([2.0]))
print("x =", x.detach(), " x.grad =", x.grad)

# %%
# Fix 2: change the values where autograd can see it
# --------------------------------------------------
# ``with torch.no_grad(): x.fill_(2.0)`` (or ``x.copy_(values)``) does the same and keeps the
# version counter honest: a graph that saved the old ``x`` then raises
# :doc:`/errors/inplace/inplace-modified` instead of computing with values it did not save.

x = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    x.fill_(2.0)  # fix: python-value
(x * x).backward()
torch.testing.assert_close(x.grad, torch.tensor([4.0]))
print("x =", x.detach(), " x.grad =", x.grad)

# %%
# For NumPy weights, convert *and* copy: ``copy_`` of ``torch.from_numpy(array)`` converts to the
# parameter's dtype and keeps its device. The gradient of ``sum(W x + b)`` with respect to ``W``
# is the sum of the inputs in every row:

layer = torch.nn.Linear(3, 2)
with torch.no_grad():
    layer.weight.copy_(torch.from_numpy(array))  # fix: numpy-weights
inputs = torch.randn(4, 3)
layer(inputs).sum().backward()
torch.testing.assert_close(layer.weight.detach(), torch.ones(2, 3))
torch.testing.assert_close(layer.weight.grad, inputs.sum(0).expand(2, 3))
assert layer.weight.dtype == torch.float32

# %%
# Assigning ``torch.from_numpy(array)`` to ``.data`` silences this error but keeps the array's
# float64 (and puts the weight on the CPU): the next forward pass with float32 inputs then fails
# with "self and mat2 must have the same dtype". If it must be ``.data``, convert to the
# parameter first, ``torch.from_numpy(array).to(p)``:

layer = torch.nn.Linear(3, 2)
layer.weight.data = torch.from_numpy(array)
print("after .data = torch.from_numpy(array):", layer.weight.dtype)
assert layer.weight.dtype == torch.float64
layer = torch.nn.Linear(3, 2)
layer.weight.data = torch.from_numpy(array).to(layer.weight)
assert layer.weight.dtype == torch.float32

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: data-not-tensor
