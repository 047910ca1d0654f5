"""
leaf-inplace
============

.. autograd-entry:: leaf-inplace

Leaves, and what autograd keeps of them
---------------------------------------

A *leaf* is a tensor that no recorded operation produced: its ``grad_fn`` is ``None``. Every
tensor you create yourself is a leaf, whether it requires grad or not; every ``nn.Parameter``
is a leaf that requires grad. ``backward()`` exists to fill the ``.grad`` of those leaves.
"""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
print(f"x: is_leaf={x.is_leaf}, grad_fn={x.grad_fn}")
print(f"y: is_leaf={y.is_leaf}, grad_fn={y.grad_fn}")

# %%
# The repro
# ---------
# An in-place update of a leaf that requires grad:

x = torch.randn(3, requires_grad=True)
try:
    x += 1  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Why autograd refuses
# --------------------
# With grad mode on, autograd records every operation on a tensor that requires grad, in-place
# ones included: the changed tensor gets the operation's backward as its ``grad_fn``. For a leaf
# that would be self-defeating. A leaf with a ``grad_fn`` is no longer a leaf: backward would
# send the gradient through the recorded change instead of storing it in ``.grad``, and the
# tensor you created (or the parameter you train) would never get its gradient. So autograd
# refuses any in-place operation on a leaf that requires grad, at the moment it happens, even on
# a fresh leaf that no computation has used yet, as here. The same reason, with a message of its
# own, covers changes made through a view of a leaf (:doc:`/errors/views/view-leaf-inplace`).
#
# A leaf that does *not* require grad is just data: changing it in place is fine.

plain = torch.tensor([1.0])
plain += 1
print(plain, plain.is_leaf)

# %%
# A copy is a new tensor, produced by an operation (``CloneBackward0``), so it is not a leaf
# and may be changed in place; gradients still flow back to ``x`` through the copy:

x = torch.tensor([1.0, 2.0], requires_grad=True)
shifted = x.clone()
shifted += 1
(shifted * shifted).sum().backward()
torch.testing.assert_close(x.grad, 2 * (x.detach() + 1))
print("x.grad =", x.grad)

# %%
# Common causes
# -------------
# A gradient step written by hand. ``w.grad`` is there after ``backward()``, and the update
# ``w -= lr * w.grad`` is an in-place operation on the leaf ``w``:

w = torch.tensor([1.0, -2.0], requires_grad=True)
(w * w).sum().backward()
try:
    w -= 0.1 * w.grad  # cause: manual-update
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    w.add_(w.grad, alpha=-0.1)  # cause: manual-update
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Copying values into a parameter. The notes this reference grew from met it while folding a
# batch-norm layer into a convolution, copying the fused weights into the layer; ``zero_`` on a
# parameter fails the same way:

conv = torch.nn.Conv2d(3, 8, kernel_size=3)
fused_weight = torch.randn(8, 3 * 3 * 3)
try:
    conv.weight.copy_(fused_weight.view(conv.weight.size()))  # cause: copy-into-parameter
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    conv.bias.zero_()  # cause: copy-into-parameter
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# An in-place operation on a tensor created with ``requires_grad=True``: adding noise with
# ``+=`` in a forward pass, or projecting an adversarial perturbation back into its budget:

delta = torch.zeros(3, requires_grad=True)
try:
    delta.clamp_(-0.03, 0.03)  # cause: inplace-on-input
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Assignments that make no view. Indexing with a mask or a list of indices (advanced indexing)
# writes into ``x`` itself, so it raises this message. Indexing with an integer or a strided
# slice (``x[0] = 0``, ``x[:, 1] = 0``) writes through a view and raises
# :doc:`/errors/views/view-leaf-inplace` instead:

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
try:
    x[x < 0] = 0  # cause: mask-assign
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    x[[0, 1]] = 0  # cause: mask-assign
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Assigning to the whole tensor, ``x[:] = values`` (overwriting a parameter with loaded values,
# say), writes into ``x`` itself from torch 2.9, and raises this message. Up to torch 2.8 the
# full slice made a view first, and the same line raised the message of
# :doc:`/errors/views/view-leaf-inplace`:

try:
    x[:] = 0  # cause: full-slice-assign
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: update under ``torch.no_grad()``
# ---------------------------------------
# An update that is not part of the computation (an optimizer step, an initialisation) belongs
# under ``torch.no_grad()``. Autograd does not record it, and the next forward pass simply uses
# the new value:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():  # fixed
    x += 1  # fixed
y = (x * x).sum()
y.backward()
torch.testing.assert_close(x.grad, 2 * x.detach())
print("x =", x.detach(), " x.grad =", x.grad)

# %%
# The hand-written gradient step: ``w`` stays a leaf, and the next backward gives the gradient
# at the new value, ``2 * w`` with ``w = 0.8 * [1, -2]``:

w = torch.tensor([1.0, -2.0], requires_grad=True)
(w * w).sum().backward()
with torch.no_grad():  # fix: manual-update
    w -= 0.1 * w.grad  # fix: manual-update
w.grad = None
(w * w).sum().backward()
torch.testing.assert_close(w.grad, 2 * torch.tensor([0.8, -1.6]))
print("w =", w.detach(), " w.grad =", w.grad)

# %%
# For the fused convolution, copy the weights under ``torch.no_grad()`` too. ``copy_`` still
# refuses a value whose shape does not broadcast to the weight's (it broadcasts one that does:
# the view makes the shapes equal):

with torch.no_grad():  # fix: copy-into-parameter
    conv.weight.copy_(fused_weight.view(conv.weight.size()))  # fix: copy-into-parameter
    conv.bias.zero_()  # fix: copy-into-parameter
torch.testing.assert_close(conv.weight.detach(), fused_weight.view(8, 3, 3, 3))
images = torch.randn(2, 3, 8, 8)
conv(images).sum().backward()
torch.testing.assert_close(conv.bias.grad, torch.full((8,), 2.0 * 6 * 6))
print("conv.bias.grad[:3] =", conv.bias.grad[:3])

# %%
# The adversarial perturbation: the projection between two gradient steps is not part of what
# is differentiated either. The gradient of ``sum(image + delta)`` with respect to ``delta`` is
# ones, at any ``delta``:

delta = torch.full((3,), 0.5, requires_grad=True)
with torch.no_grad():  # fix: inplace-on-input
    delta.clamp_(-0.03, 0.03)  # fix: inplace-on-input
(torch.ones(3) + delta).sum().backward()
torch.testing.assert_close(delta.detach(), torch.full((3,), 0.03))
torch.testing.assert_close(delta.grad, torch.ones(3))

# %%
# Fix 2: compute a new tensor
# ---------------------------
# If the change is part of what you differentiate, write it out of place. ``x = x + 1`` makes a
# new tensor, a non-leaf; the name now points to it, and the gradient reaches the original leaf:

leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = leaf
x = x + 1
(x * x).sum().backward()
torch.testing.assert_close(leaf.grad, 2 * (leaf.detach() + 1))
print("leaf.grad =", leaf.grad)

# %%
# Masking out of place: ``masked_fill`` returns a new tensor, and the masked entries, now
# constants, get a zero gradient:

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
clipped = x.masked_fill(x < 0, 0)  # fix: mask-assign
(clipped * clipped).sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([2.0, 0.0, 6.0]))
print("x.grad =", x.grad)

# %%
# A whole-tensor assignment that is an update outside the computation goes under
# ``torch.no_grad()``, like any other; ``x`` stays a leaf, and its gradient is that of the new
# values (``2 * x`` for ``sum(x * x)``):

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
loaded = torch.tensor([0.5, 0.5, 0.5])
with torch.no_grad():  # fix: full-slice-assign
    x[:] = loaded  # fix: full-slice-assign
(x * x).sum().backward()
assert x.is_leaf
torch.testing.assert_close(x.grad, 2 * loaded)

# %%
# The pitfall of ``.data``
# ------------------------
# ``x.data += 1`` also silences the error: ``.data`` is the same storage seen without autograd.
# That is its danger. Here ``y = x * x`` was computed at ``x = [1, 2, 3]``, so its gradient is
# ``2 * [1, 2, 3]``; but ``MulBackward0`` reads the saved ``x`` *after* the hidden change:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
x.data += 1
y.backward()
print("true gradient:   ", 2 * torch.tensor([1.0, 2.0, 3.0]))
print("what .grad holds:", x.grad)
assert not torch.equal(x.grad, 2 * torch.tensor([1.0, 2.0, 3.0]))

# %%
# Autograd could not warn: ``.data`` bypasses the version counter that catches the same change
# made through ``x.detach()`` (that one raises :doc:`/errors/inplace/inplace-modified`).

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: leaf-inplace
