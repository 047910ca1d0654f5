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
# The same happens with any in-place method. The notes this reference grew from met it while
# folding a batch-norm layer into a convolution, copying the fused weights into the layer:

conv = torch.nn.Conv2d(3, 8, kernel_size=3)
fused_weight = torch.randn(8, 3 * 3 * 3)
try:
    conv.weight.copy_(fused_weight.view(conv.weight.size()))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Why autograd refuses
# --------------------
# Take ``y = x * x``. Its gradient is ``2 * x``, evaluated at the value ``x`` had when ``y`` was
# computed: ``MulBackward0`` saved that ``x`` for the purpose. If ``x`` could change in place
# afterwards, which ``x`` would the gradient be about, the old one or the new one? Autograd
# answers neither: a leaf that requires grad cannot be changed in place while grad mode is on.
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
# For the fused convolution, copy the weights under ``torch.no_grad()`` too. ``copy_`` checks
# the shape, which assigning ``.data`` would not (see :doc:`/errors/modules/mat2-not-matrix`):

with torch.no_grad():
    conv.weight.copy_(fused_weight.view(conv.weight.size()))
torch.testing.assert_close(conv.weight.detach(), fused_weight.view(8, 3, 3, 3))
images = torch.randn(2, 3, 8, 8)
conv(images).sum().backward()
print("conv.weight.grad shape:", tuple(conv.weight.grad.shape))

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
