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
# Common causes
# -------------
# Saving an allocation with ``out=``, as above. Hand-written non-maximum suppression does it for
# every coordinate of the boxes, which fails once the boxes come from a model with gradients on:

boxes = torch.rand(5, 4, requires_grad=True) * 10
x1 = boxes[:, 0]
order = torch.tensor([0, 2, 4])
xx1 = x1.new_empty(0)
try:
    torch.index_select(x1, 0, order, out=xx1)  # cause: reuse-result-buffer
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Collecting per-step results into a preallocated tensor:

rows = [torch.randn(2, requires_grad=True) for _ in range(3)]
try:
    stacked = torch.empty(3, 2)  # cause: collect-into-buffer
    torch.stack(rows, out=stacked)  # cause: collect-into-buffer
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And the inputs need not require grad at all: an ``out`` tensor that does is enough on its
# own. Writing into a parameter with ``out=``, to clean it of NaN say, or to set it to a
# product:

weight = torch.nn.Parameter(torch.tensor([[1.0, float("nan")], [2.0, 3.0]]))
try:
    torch.nan_to_num(weight, nan=0.0, out=weight)  # cause: out-is-parameter
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    torch.mm(torch.randn(2, 2), torch.randn(2, 2), out=weight)  # cause: out-is-parameter
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
# The same for the suppression: ``index_select`` without ``out=`` returns the selected
# coordinates, recorded, and the gradient of their sum reaches the selected boxes only:

boxes = torch.rand(5, 4, requires_grad=True)
xx1 = torch.index_select(boxes[:, 0], 0, order)  # fix: reuse-result-buffer
xx1.sum().backward()
expected = torch.zeros(5, 4)
expected[order, 0] = 1.0
torch.testing.assert_close(boxes.grad, expected)

# %%
# Fix 2: assign into the preallocated tensor
# ------------------------------------------
# If the results must land in a tensor allocated beforehand, write them with indexing
# assignment or ``copy_``. Those are in-place operations autograd *does* record
# (``CopySlices``): the buffer joins the graph and gradients flow back through every row.
# With row ``k`` equal to ``k * a``, the gradient of the buffer's sum with respect to ``a``
# is ``0 + 1 + 2 = 3`` everywhere:

a = torch.randn(2, requires_grad=True)
buffer = torch.empty(3, 2)  # fix: collect-into-buffer
for k in range(3):  # fix: collect-into-buffer
    buffer[k] = k * a  # fix: collect-into-buffer
buffer.sum().backward()
torch.testing.assert_close(a.grad, torch.full((2,), 3.0))
print("buffer.grad_fn =", buffer.grad_fn, " a.grad =", a.grad)

# %%
# Fix 3: ``out=`` under ``torch.no_grad()``
# -----------------------------------------
# When no gradient is wanted (evaluation, statistics, an update of state), the ``out=`` form is
# allowed under ``torch.no_grad()``. The result joins no graph; ``a`` itself is untouched, and
# trains as before:

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
result = torch.empty(3)
with torch.no_grad():
    torch.add(a, 1, out=result)
torch.testing.assert_close(result, a.detach() + 1)
(a * a).sum().backward()
torch.testing.assert_close(a.grad, 2 * a.detach())
print("result =", result, " requires_grad =", result.requires_grad)

# %%
# ``torch.no_grad()`` does not touch the ``out`` tensor's own ``requires_grad`` flag. A
# parameter cleaned with ``out=`` under ``no_grad`` still requires grad, is still the leaf its
# optimizer holds, and trains on: the gradient of ``sum(weight * x)`` is ``x``:

weight = torch.nn.Parameter(torch.tensor([[1.0, float("nan")], [2.0, 3.0]]))
optimizer = torch.optim.SGD([weight], lr=0.1)
with torch.no_grad():  # fix: out-is-parameter
    torch.nan_to_num(weight, nan=0.0, out=weight)  # fix: out-is-parameter
assert weight.requires_grad
assert weight.is_leaf
torch.testing.assert_close(weight.detach(), torch.tensor([[1.0, 0.0], [2.0, 3.0]]))
x = torch.randn(2, 2)
(weight * x).sum().backward()
torch.testing.assert_close(weight.grad, x)
optimizer.step()
print("weight.requires_grad =", weight.requires_grad)

# %%
# The in-place method does the same under ``torch.no_grad()``, without ``out=``:

weight = torch.nn.Parameter(torch.tensor([[1.0, float("nan")], [2.0, 3.0]]))
with torch.no_grad():
    weight.nan_to_num_(nan=0.0)
torch.testing.assert_close(weight.detach(), torch.tensor([[1.0, 0.0], [2.0, 3.0]]))
(weight * x).sum().backward()
torch.testing.assert_close(weight.grad, x)

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
