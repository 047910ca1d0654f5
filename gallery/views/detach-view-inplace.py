"""
detach-view-inplace
===================

.. autograd-entry:: detach-view-inplace

``detach()`` and ``detach_()``
------------------------------

``t.detach()`` returns a *new* tensor that shares ``t``'s storage but sits outside the graph:
no ``grad_fn``, ``requires_grad=False``. ``t`` itself is untouched. ``t.detach_()`` does the same
to ``t`` in place: it drops ``t``'s ``grad_fn`` and makes it a leaf. That is fine for a tensor
that owns its autograd state:
"""

import torch

x = torch.randn(4, 3, requires_grad=True)
doubled = x * 2
doubled.detach_()
print(f"after detach_(): grad_fn={doubled.grad_fn}, requires_grad={doubled.requires_grad}")

# %%
# A view does not own its autograd state. Its ``grad_fn`` is derived from its base, and
# rebuilt from the base whenever the base or another of its views changes in place; it shares
# the base's version counter. Detaching it in place would cut it from its base while it still
# writes into the base's storage, and leave that bookkeeping inconsistent, so torch refuses,
# for every view, whether or not anything in it requires grad.
#
# The repro
# ---------
# Code that means "stop the gradient here" and reshapes first, as in an attention layer that
# detaches its rotation matrices:

quaternion_features = torch.randn(8, 9, requires_grad=True)
try:
    rotations = (quaternion_features * 2).view(8, 3, 3)  # broken
    rotations.detach_()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The long second half of the message is about the other common source. Since torch 1.7,
# ``DistributedDataParallel(..., gradient_as_bucket_view=True)`` stores each parameter's
# gradient as a view of a flat communication bucket, to save a copy. Older optimizers and
# hand-written training loops reset gradients with ``p.grad.detach_(); p.grad.zero_()``, which
# fails on such gradients. The same set-up without DDP:

weight = torch.nn.Parameter(torch.randn(2, 3))
bucket = torch.zeros(6)
weight.grad = bucket.view(2, 3)
try:
    weight.grad.detach_()  # cause: bucket-view-gradients
    weight.grad.zero_()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Other views fail the same way: a row picked from a batch of hidden states, to cut it from the
# graph in place:

hidden = torch.randn(2, 3, requires_grad=True) * 1
try:
    hidden[0].detach_()  # cause: detach-inplace-on-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Every kind of view is refused, a transpose or a row of ``unbind`` as much as a slice, and so is
# a view of a tensor that does not require grad at all:

try:
    hidden.t().detach_()  # cause: detach-inplace-on-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    hidden.unbind(0)[1].detach_()  # cause: detach-inplace-on-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    torch.zeros(3)[:2].detach_()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: ``detach()`` and keep the result
# ---------------------------------------
# ``rotations = rotations.detach()`` rebinds the name to a tensor outside the graph. No gradient
# flows through the rotations any more, while the other uses of ``quaternion_features`` still
# get theirs. Here the loss is ``sum(features) + sum(rotations)``: only the first term
# contributes a gradient, 1 everywhere:

quaternion_features = torch.randn(8, 9, requires_grad=True)
rotations = (quaternion_features * 2).view(8, 3, 3)  # fixed
rotations = rotations.detach()  # fixed
loss = quaternion_features.sum() + rotations.sum()
loss.backward()
torch.testing.assert_close(quaternion_features.grad, torch.ones(8, 9))
print("grad stays out of the rotations:", bool((quaternion_features.grad == 1).all()))

# %%
# The same for the hidden row: ``first = hidden[0].detach()`` cuts it, and the rest of
# ``hidden`` keeps its gradient path. For ``sum(first) + sum(hidden[1])``, only the second row's
# source gets a gradient:

source = torch.randn(2, 3, requires_grad=True)
hidden = source * 1
first = hidden[0].detach()  # fix: detach-inplace-on-view
(first.sum() + hidden[1].sum()).backward()
torch.testing.assert_close(source.grad, torch.tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))

# %%
# Fix 2: reset gradients the way ``Optimizer.zero_grad`` does
# -----------------------------------------------------------
# The error message points to ``Optimizer.zero_grad()``. By default it sets gradients to
# ``None``; with ``set_to_none=False`` it calls ``detach_()`` only on a gradient that has a
# ``grad_fn``, and otherwise just ``requires_grad_(False)``, then zeroes the gradient in place,
# through the view. The gradient stays a view of its bucket, and the next backward accumulates
# into the bucket, which is the point of ``gradient_as_bucket_view``:

weight = torch.nn.Parameter(torch.randn(2, 3))
bucket = torch.full((6,), 5.0)
weight.grad = bucket.view(2, 3)
optimizer = torch.optim.SGD([weight], lr=0.1)
optimizer.zero_grad(set_to_none=False)  # fix: bucket-view-gradients
torch.testing.assert_close(bucket, torch.zeros(6))
inputs = torch.randn(4, 3)
(inputs @ weight.t()).sum().backward()
torch.testing.assert_close(bucket.view(2, 3), inputs.sum(0).expand(2, 3))
print("gradient, read from the bucket:", bucket.view(2, 3))

# %%
# Pitfall: ``detach()`` does not copy
# -----------------------------------
# The detached tensor shares storage and version counter with the original. Writing into it
# writes into the graph's tensor: if autograd saved that tensor for backward, backward refuses
# to run (:doc:`/errors/inplace/inplace-modified`); otherwise later operations silently see the
# new values (:doc:`/errors/pitfalls/detach-shares-storage`). Clone when you need a tensor of
# your own: ``t.detach().clone()``.

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
alias = y.detach()
alias.zero_()
print("y after zeroing its detached alias:", y)
assert torch.equal(y.detach(), torch.zeros(3))


def backward_after_writing_to_an_alias() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.sigmoid(x)
    y.detach().zero_()
    try:
        y.sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {str(error)[:100]}...")


backward_after_writing_to_an_alias()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: detach-view-inplace
