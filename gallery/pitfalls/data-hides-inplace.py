"""
data-hides-inplace
==================

.. autograd-entry:: data-hides-inplace

What protects saved tensors, and what ``.data`` skips
-----------------------------------------------------

The backward pass reuses tensors saved during the forward pass: ``w * x`` saves ``w`` (the
gradient with respect to ``x`` is ``w``) and ``x`` (the gradient with respect to ``w``).
Changing a saved tensor before ``backward()`` would make the gradient be computed with values
the forward pass never used. Autograd guards against this with *version counters*: every
in-place operation on a tensor bumps its counter, autograd notes the version of each tensor it
saves, and backward raises :doc:`/errors/inplace/inplace-modified` if a saved tensor is at
another version.

``x.detach()`` and ``x.data`` both share ``x``'s memory
(:doc:`/errors/pitfalls/detach-shares-storage`). ``detach()`` also shares the version counter;
``.data`` gets a fresh one, so autograd never learns of changes made through it:
"""

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
x.data.mul_(2)
print("after x.data.mul_(2):     x._version =", x._version)
assert x._version == 0
x.detach().mul_(2)
print("after x.detach().mul_(2): x._version =", x._version)
assert x._version == 1

# %%
# The pitfall
# -----------
# Clipping weights (as a WGAN critic does) is an in-place change, and here it happens between
# the forward pass and its ``backward()``. The loss was computed with ``w = [2, -3]``, so the
# gradient with respect to ``x`` is ``[2, -3]``; backward reads the saved ``w`` as it is *now*,
# clipped to ``[1, -1]``, and nothing complains:

w = torch.tensor([2.0, -3.0], requires_grad=True)
x = torch.tensor([1.0, 1.0], requires_grad=True)
loss = (w * x).sum()  # broken
w.data.clamp_(-1, 1)  # broken
loss.backward()  # broken
print("loss =", loss.item(), " x.grad =", x.grad, " (the loss's gradient is [2, -3])")
torch.testing.assert_close(x.grad, torch.tensor([1.0, -1.0]))  # wrong, and no error
torch.testing.assert_close(w.grad, torch.tensor([1.0, 1.0]))  # right: x was not changed

# %%
# A hand-written update between two losses that share a forward pass does the same: the second
# ``backward()`` reads the updated weight. ``loss_b = sum((w * x) ** 2)`` has gradient
# ``2 * w * x * w`` with respect to ``x``, at the old ``w = [2, -3]``; backward uses the new one:

w = torch.tensor([2.0, -3.0], requires_grad=True)
x = torch.tensor([1.0, 1.0], requires_grad=True)
product = w * x
loss_a, loss_b = product.sum(), (product**2).sum()
loss_a.backward(retain_graph=True)
w.data -= 0.5 * w.grad  # cause: update-before-backward
x.grad = None
loss_b.backward()  # cause: update-before-backward
true_grad = 2 * torch.tensor([2.0, -3.0]) ** 2
print("x.grad =", x.grad, " (the loss's gradient is", true_grad, ")")
assert not torch.allclose(x.grad, true_grad)

# %%
# So does editing, through ``.data``, an output that its operation saved. ``sigmoid`` computes
# its gradient from its output ``s`` as ``s * (1 - s)``; clamping ``s`` through ``.data`` feeds
# the clamped values to that formula:

logits = torch.tensor([-8.0, 0.0, 8.0], requires_grad=True)
probs = torch.sigmoid(logits)
probs.data.clamp_(0.01, 0.99)  # cause: output-edited-through-data
probs.sum().backward()  # cause: output-edited-through-data
s = torch.sigmoid(logits.detach())
print("logits.grad =", logits.grad, " true:", s * (1 - s))
assert not torch.allclose(logits.grad, s * (1 - s))

# %%
# Only the gradients that read the changed tensor are wrong (``x.grad``, not ``w.grad``), and
# they are plausible numbers, not NaN: nothing draws attention to them.
#
# The same change through ``detach()`` is caught
# ----------------------------------------------
# ``w.detach().clamp_(-1, 1)`` makes exactly the same change to the same memory, but bumps
# ``w``'s version; backward sees that the saved ``w`` is at version 1, not 0, and refuses.
# (``with torch.no_grad(): w.clamp_(-1, 1)`` is caught the same way.)

w = torch.tensor([2.0, -3.0], requires_grad=True)
x = torch.tensor([1.0, 1.0], requires_grad=True)
loss = (w * x).sum()
w.detach().clamp_(-1, 1)
try:
    loss.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The error is the better outcome: it points at a bug that ``.data`` turns into a silently
# wrong gradient.
#
# Fix: change tensors after ``backward()``, under ``torch.no_grad()``
# -------------------------------------------------------------------
# A training step is forward, backward, update. Clip after the backward pass (after the
# optimizer step, in a real loop), under ``torch.no_grad()``; the gradient is then the loss's,
# and the next forward pass uses the clipped weights:

w = torch.tensor([2.0, -3.0], requires_grad=True)
x = torch.tensor([1.0, 1.0], requires_grad=True)
loss = (w * x).sum()  # fixed
loss.backward()  # fixed
with torch.no_grad():  # fixed
    w.clamp_(-1, 1)  # fixed
print("x.grad =", x.grad, " w =", w.detach())
torch.testing.assert_close(x.grad, torch.tensor([2.0, -3.0]))
torch.testing.assert_close(w.detach(), torch.tensor([1.0, -1.0]))

# %%
# For the two losses: finish both backward passes, then update. The gradient of ``loss_b`` with
# respect to ``x`` is then the one at the weights the forward pass used:

w = torch.tensor([2.0, -3.0], requires_grad=True)
x = torch.tensor([1.0, 1.0], requires_grad=True)
product = w * x
loss_a, loss_b = product.sum(), (product**2).sum()
loss_a.backward(retain_graph=True)
x.grad = None
loss_b.backward()  # fix: update-before-backward
with torch.no_grad():  # fix: update-before-backward
    w -= 0.5 * w.grad  # fix: update-before-backward
torch.testing.assert_close(x.grad, 2 * torch.tensor([2.0, -3.0]) ** 2)

# %%
# For the output, clamp out of place: autograd then differentiates the clamp too, and the
# gradient is ``s * (1 - s)`` where ``s`` lies inside the bounds and 0 where it was clamped:

logits = torch.tensor([-8.0, 0.0, 8.0], requires_grad=True)
probs = torch.sigmoid(logits).clamp(0.01, 0.99)  # fix: output-edited-through-data
probs.sum().backward()
s = torch.sigmoid(logits.detach())
torch.testing.assert_close(logits.grad, s * (1 - s) * ((s > 0.01) & (s < 0.99)))

# %%
# If the gradient is meant to be the clipped weights' gradient, clip *before* the forward pass,
# and the two agree:

w = torch.tensor([2.0, -3.0], requires_grad=True)
x = torch.tensor([1.0, 1.0], requires_grad=True)
with torch.no_grad():
    w.clamp_(-1, 1)
loss = (w * x).sum()
loss.backward()
torch.testing.assert_close(loss.detach(), torch.tensor(0.0))
torch.testing.assert_close(x.grad, torch.tensor([1.0, -1.0]))

# %%
# That is also why the notes' first remedy for :doc:`/errors/inplace/leaf-inplace` works:
# ``x.data += 1`` *before* the graph is built changes nothing the graph has saved. The gradient
# of ``0.5 * x . x`` is ``x``, the new ``x``. It is the moment, not ``.data`` itself, that makes
# the difference, and ``torch.no_grad()`` does the same job without the trap:

x = torch.tensor([1.0, 1.0], requires_grad=True)
x.data += 1
y = torch.dot(x, x) * 0.5
y.backward()
torch.testing.assert_close(x.grad, torch.tensor([2.0, 2.0]))
print("x.grad =", x.grad)

# %%
# Replacing a value but keeping the gradient path
# -----------------------------------------------
# The notes also assign ``output.data = other.data``, to make the loss see ``other``'s values
# while the gradient still flows into the network that produced ``output`` (a straight-through
# estimator). The explicit form is ``output + (other - output).detach()``: its value is
# ``other``, and its gradient with respect to ``output`` is 1. The two give the same gradient
# here, but only the second is visible in the code and in the graph:

x = torch.tensor([3.0, 4.0])
other = torch.tensor([10.0, 20.0])

w = torch.tensor([1.0, 2.0], requires_grad=True)
output = w * x
output.data = other.clone()
(output**2).sum().backward()
hidden_grad = w.grad

w = torch.tensor([1.0, 2.0], requires_grad=True)
output = w * x
output = output + (other - output).detach()
(output**2).sum().backward()
torch.testing.assert_close(output.detach(), other)
torch.testing.assert_close(w.grad, 2 * other * x)  # d/dw sum(out**2) with out's value = other
torch.testing.assert_close(hidden_grad, w.grad)
print("straight-through gradient:", w.grad)

# %%
# .. autograd-entry-footer:: data-hides-inplace
