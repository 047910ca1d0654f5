"""
out-arg-autograd
================

.. autograd-entry:: out-arg-autograd

What ``out=`` does
------------------

Most torch functions accept ``out=``: instead of allocating a new tensor for the result, they
write it into the one you pass, which saves an allocation in a hot loop. Each such call runs a
separate *out* overload of the operator (``add.out``, ``mm.out``), and autograd has no
backward function for those overloads: the result would carry no ``grad_fn``, and the tensor you
passed would silently lose its history. Rather than return a result cut from the graph, torch
raises as soon as any argument, the inputs or ``out`` itself, requires grad while grad mode is
on.
"""

import torch

# %%
# The repro
# ---------
# Reusing a result tensor for an operation on a tensor that requires grad:

a = torch.randn(3, requires_grad=True)
result = torch.empty(3)
try:
    torch.add(a, 1, out=result)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Collecting per-step results into a preallocated tensor is the other common way in. And the
# inputs need not require grad at all: an ``out`` tensor that does (here a parameter) is
# enough on its own.

rows = [torch.randn(2, requires_grad=True) for _ in range(3)]
stacked = torch.empty(3, 2)
try:
    torch.stack(rows, out=stacked)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

weight = torch.nn.Parameter(torch.empty(2, 2))
try:
    torch.mm(torch.randn(2, 2), torch.randn(2, 2), out=weight)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Reading the message
# -------------------
# The name before ``():`` is the ATen operator that received ``out=``, which is not always the
# function you called: ``torch.linalg.solve`` is implemented by ``_linalg_solve_ex``, and
# ``torch.matmul`` printed ``mm()`` in older releases (2.1 and before).

A = torch.randn(2, 2, requires_grad=True)
try:
    torch.linalg.solve(A, torch.randn(2, 1), out=torch.empty(2, 1))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: drop ``out=``
# --------------------
# Let the function return a new tensor: autograd records it (``AddBackward0``), and the
# gradient of ``sum(a + 1)`` reaches ``a`` as ones. The allocation ``out=`` saved is cheap
# anyway: on a GPU, the caching allocator hands back recently freed memory.

a = torch.randn(3, requires_grad=True)
result = torch.add(a, 1)  # fixed
result.sum().backward()
torch.testing.assert_close(a.grad, torch.ones(3))
print("result.grad_fn =", result.grad_fn, " a.grad =", a.grad)

# %%
# Fix 2: assign into the preallocated tensor
# ------------------------------------------
# If the results must land in a tensor allocated beforehand, write them with indexing
# assignment or ``copy_``. Those are in-place operations autograd *does* record
# (``CopySlices``): the buffer joins the graph and gradients flow back through every row.
# With row ``k`` equal to ``k * a``, the gradient of the buffer's sum with respect to ``a``
# is ``0 + 1 + 2 = 3`` everywhere:

a = torch.randn(2, requires_grad=True)
buffer = torch.empty(3, 2)
for k in range(3):
    buffer[k] = k * a
buffer.sum().backward()
torch.testing.assert_close(a.grad, torch.full((2,), 3.0))
print("buffer.grad_fn =", buffer.grad_fn, " a.grad =", a.grad)

# %%
# Fix 3: ``out=`` under ``torch.no_grad()``
# -----------------------------------------
# When no gradient is wanted (evaluation, statistics, an update of state), the ``out=`` form is
# allowed under ``torch.no_grad()``. The output then does not require grad; ``a`` itself is
# untouched, and trains as before:

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
result = torch.empty(3)
with torch.no_grad():
    torch.add(a, 1, out=result)
torch.testing.assert_close(result, a.detach() + 1)
(a * a).sum().backward()
torch.testing.assert_close(a.grad, 2 * a.detach())
print("result =", result, " requires_grad =", result.requires_grad)

# %%
# The pitfall of ``torch.no_grad()``
# ----------------------------------
# That result is a constant. Use it in a loss and the loss trains whatever else it touches,
# but no gradient goes back through it: here ``w`` gets its gradient and ``a`` gets none,
# without any error to say so.

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
result = torch.empty(3)
with torch.no_grad():
    torch.add(a, 1, out=result)
(result * w).sum().backward()
torch.testing.assert_close(w.grad, a.detach() + 1)
print("a.grad =", a.grad)
assert a.grad is None

# %%
# And when the tensor to fill is a leaf that requires grad (a parameter, as in the ``mm``
# example above), assignment does not help either: changing a leaf in place raises
# :doc:`/errors/inplace/leaf-inplace`. Updating a parameter's values is not part of the
# computation, so do it under ``torch.no_grad()`` with ``weight.copy_(...)``.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: out-arg-autograd
