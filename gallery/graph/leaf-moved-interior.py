"""
leaf-moved-interior
===================

.. autograd-entry:: leaf-moved-interior

Where the graph ends: ``AccumulateGrad``
----------------------------------------

A graph ends at its leaves. Each leaf that requires grad has one ``AccumulateGrad`` node, and
every operation that uses the leaf points to that node; during backward, the node receives the
leaf's gradient and adds it to the leaf's ``.grad``. The node holds on to the tensor it writes
into, and the tensor must still be a leaf when backward comes: a tensor with a ``grad_fn``
receives gradients to pass on, not to keep.
"""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = x * 2
accumulate = z.grad_fn.next_functions[0][0]
print("z.grad_fn:", type(z.grad_fn).__name__, "-> next:", type(accumulate).__name__)
print("it writes into x:", accumulate.variable is x)

# %%
# The repro
# ---------
# After ``x`` was used, its ``requires_grad`` is switched off: ``x`` is now plain data, and
# in-place operations on it are allowed again (:doc:`/errors/inplace/leaf-inplace` guards leaves
# that *require* grad). But ``mul_(w)`` mixes in a tensor that requires grad, so the result
# requires grad too: autograd gives ``x`` a ``grad_fn`` and it stops being a leaf.

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
z = x * 2  # the graph now ends at x's AccumulateGrad node
try:
    x.requires_grad_(False)  # broken  # cause: freeze-then-mix
    x.mul_(w)  # broken  # cause: freeze-then-mix
    print(f"x: is_leaf={x.is_leaf}, grad_fn={type(x.grad_fn).__name__}")
    z.sum().backward()  # cause: freeze-then-mix
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Nothing stopped the in-place change earlier: ``x * 2`` saved nothing of ``x`` (the gradient
# of a product by a constant does not depend on ``x``), so no version check was pending. Had the
# graph saved ``x`` (``x * w`` saves it), backward would have stopped one step before, at the
# saved tensor, with :doc:`/errors/inplace/inplace-modified`.
#
# How it happens in practice
# --------------------------
# A mean-teacher setup: the teacher is a copy of the student, its output enters the loss, and
# only then is it frozen and moved towards the student by an exponential moving average
# written without ``torch.no_grad()``. ``add_`` mixes in the student's weights, which require
# grad, so every teacher parameter acquires a ``grad_fn``:

student = torch.nn.Linear(3, 1)
teacher = torch.nn.Linear(3, 1)
batch = torch.randn(4, 3)
pairs = list(zip(teacher.parameters(), student.parameters(), strict=True))
try:
    loss = ((student(batch) - teacher(batch)) ** 2).mean()  # cause: ema-after-forward
    teacher.requires_grad_(False)  # frozen after the forward pass  # cause: ema-after-forward
    for t, s in pairs:  # cause: ema-after-forward
        t.mul_(0.99).add_(0.01 * s)  # broken: recorded by autograd  # cause: ema-after-forward
    print(f"teacher.weight: is_leaf={teacher.weight.is_leaf}")
    loss.backward()  # cause: ema-after-forward
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``detach_()`` does the freeze in place: it turns off ``requires_grad`` on the very tensor the
# graph ends at. A later in-place write of something that requires grad, here ``copy_`` of a
# computed value, gives it a ``grad_fn``:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
z = x * 2
try:
    x.detach_()  # cause: detach-in-place
    x.copy_(w * 3)  # cause: detach-in-place
    z.sum().backward()  # cause: detach-in-place
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: write the mix out of place
# ---------------------------------
# If the product is meant to be differentiated, make it a new tensor. ``x`` stays a leaf, and
# each result gets its gradient: ``d sum(2x) / dx = 2`` and ``d sum(x * w) / dw = x``.

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
z = x * 2
scaled = x * w  # fixed  # fix: freeze-then-mix
(z.sum() + scaled.sum()).backward()  # fix: freeze-then-mix
torch.testing.assert_close(x.grad, 2 + w.detach())
torch.testing.assert_close(w.grad, x.detach())
print("x.grad =", x.grad, " w.grad =", w.grad)

# %%
# Fix 2: freeze first, update under ``torch.no_grad()`` after backward
# ---------------------------------------------------------------------
# The teacher is frozen before its forward pass, so its weights never enter the graph; the
# EMA update is not part of any computation to differentiate, so it runs under ``no_grad``,
# after the student's backward. The student's gradient is checked against its closed form:
# for ``loss = mean((s(b) - t(b))**2)`` it is ``2/N * sum_i (s(b_i) - t(b_i)) * b_i``.

student = torch.nn.Linear(3, 1)
teacher = torch.nn.Linear(3, 1)
teacher.requires_grad_(False)  # fixed: before the forward pass  # fix: ema-after-forward
batch = torch.randn(4, 3)
diff = student(batch) - teacher(batch)  # fix: ema-after-forward
((diff**2).mean()).backward()  # fix: ema-after-forward
torch.testing.assert_close(
    student.weight.grad, 2 / 4 * (diff.detach() * batch).sum(0, keepdim=True)
)

expected = 0.99 * teacher.weight.detach() + 0.01 * student.weight.detach()
pairs = list(zip(teacher.parameters(), student.parameters(), strict=True))
with torch.no_grad():  # fix: ema-after-forward
    for t, s in pairs:  # fix: ema-after-forward
        t.mul_(0.99).add_(0.01 * s)  # fix: ema-after-forward
torch.testing.assert_close(teacher.weight.detach(), expected)
print("teacher.weight is a leaf:", teacher.weight.is_leaf)

# %%
# Computing the teacher's output under ``torch.no_grad()`` keeps its weights out of the graph
# just as well, even if it is never frozen; the EMA update after backward is then safe too:

student = torch.nn.Linear(3, 1)
teacher = torch.nn.Linear(3, 1)
with torch.no_grad():
    target = teacher(batch)
diff = student(batch) - target
((diff**2).mean()).backward()
torch.testing.assert_close(
    student.weight.grad, 2 / 4 * (diff.detach() * batch).sum(0, keepdim=True)
)
with torch.no_grad():
    for t, s in zip(teacher.parameters(), student.parameters(), strict=True):
        t.mul_(0.99).add_(0.01 * s)
assert teacher.weight.is_leaf

# %%
# Fix 3: take a detached copy instead of ``detach_()``
# ----------------------------------------------------
# ``x.detach()`` returns a new tensor and leaves ``x`` alone: the graph keeps its leaf, and the
# copy is free for any use. The gradient of ``sum(2x)`` is 2:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
z = x * 2
values = x.detach().clone()  # fix: detach-in-place
values.copy_(w * 3)  # fix: detach-in-place
z.sum().backward()  # fix: detach-in-place
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))

# %%
# Pitfall: freezing after the forward pass drops the gradient silently
# --------------------------------------------------------------------
# Switching ``requires_grad`` off after a tensor was used does not raise anything by itself:
# ``AccumulateGrad`` simply skips a tensor that no longer requires grad. The gradient computed
# for it is thrown away, and ``.grad`` stays ``None``. Decide what is trainable before the
# forward pass.

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
y = (x * w).sum()
x.requires_grad_(False)
y.backward()
print("x.grad =", x.grad, " w.grad =", w.grad)
assert x.grad is None
torch.testing.assert_close(w.grad, x)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: leaf-moved-interior
