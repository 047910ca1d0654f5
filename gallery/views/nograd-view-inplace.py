"""
nograd-view-inplace
===================

.. autograd-entry:: nograd-view-inplace

A view that autograd knows nothing about
----------------------------------------

Under ``torch.no_grad()`` operations are not recorded, but views are still views: ``y[:2]``
shares ``y``'s storage and keeps a link to it. When ``y`` requires grad, the view even reports
``requires_grad=True`` (it is part of a tensor that does), yet it has no ``grad_fn``: nothing
ties it to ``y`` in the graph.
"""

import torch
from torch import nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
with torch.no_grad():
    view = y[:2]
print(f"view._base is y: {view._base is y}")
print(f"requires_grad={view.requires_grad}, grad_fn={view.grad_fn}")

# %%
# Now change ``view`` in place with grad mode back on. What should autograd do? Record the
# change, as it would have if the view had been taken with grad mode on (``y`` then gets a
# ``CopySlices`` node and gradients flow through the change), or ignore it, as the ``no_grad``
# block suggests (``y``'s values then change behind autograd's back)? People expect both, so
# autograd refuses to choose.
#
# The repro
# ---------
# Rows of an embedding, for tokens added to a vocabulary, are picked under ``no_grad`` and
# initialised later, outside the block:

embedding = nn.Embedding(10, 4)
try:
    with torch.no_grad():  # broken
        new_rows = embedding.weight[-2:]  # broken
    new_rows.normal_(0, 0.02)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# The repro above is the first: part of a parameter picked under ``no_grad`` and changed after
# the block.

embedding = nn.Embedding(10, 4)
with torch.no_grad():
    new_rows = embedding.weight[-2:]
try:
    new_rows.uniform_(-0.1, 0.1)  # cause: view-picked-under-no-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The base does not have to be a parameter, and the ``no_grad`` block may be out of sight: a
# helper decorated with ``@torch.no_grad()`` returns a view, here of the last time step of an
# encoder's output, and the caller changes it in place:

encoder = nn.Linear(4, 4)


@torch.no_grad()
def last_step(hidden):
    return hidden[:, -1]


hidden = encoder(torch.randn(2, 5, 4))
summary = last_step(hidden)
try:
    summary.clamp_(min=0)  # cause: nograd-helper-returns-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The base need not require grad at all. A preallocated key cache is a plain tensor; its views,
# made once under ``no_grad`` (at set-up, or by a generation loop), are harmless until a training
# step writes keys that require grad into one of them. The value written is what requires grad:

key_projection = nn.Linear(4, 2)
cache = torch.zeros(8, 2)
with torch.no_grad():
    first_slots = cache[:3]
keys = key_projection(torch.randn(3, 4))
try:
    first_slots.copy_(keys)  # cause: buffer-view-receives-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The in-place change does not even have to happen with grad mode on. Any in-place change to
# the view, to its base or to another view of the base bumps the version counter they share;
# the next time the view is used with grad mode on, autograd rebuilds its ``grad_fn``, and
# refuses then, saying the base "has been modified". Here a ``no_grad`` helper nudges a
# parameter through a view and returns that view; using the result raises:


@torch.no_grad()
def nudge(parameter):
    view = parameter[:]
    view.add_(1.0)
    return view


weight = torch.tensor([1.0, 2.0], requires_grad=True)
moved = nudge(weight)
try:
    moved * 2
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``torch.inference_mode()`` follows the same rule, with its own wording:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
with torch.inference_mode():
    window = y[:2]
try:
    window.mul_(2)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A view taken *with* grad mode on from such a view inherits the restriction; since torch 2.0
# the message then names it as "a view of a view" (1.13 failed an internal assert instead):


def view_of_a_view() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with torch.no_grad():
        view = y[:2]
    try:
        view[:1].mul_(2)
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


view_of_a_view()

# %%
# Fix 1: both inside ``no_grad``
# ------------------------------
# When the change is not part of what you differentiate, as when initialising weights, take the
# view *and* change it under ``torch.no_grad()``. The parameter keeps its role as a leaf: the
# gradient of a sum of looked-up rows counts how often each row was used:

embedding = nn.Embedding(10, 4)
with torch.no_grad():  # fixed
    new_rows = embedding.weight[-2:]  # fixed
    new_rows.normal_(0, 0.02)  # fixed
embedding(torch.tensor([8, 9, 8])).sum().backward()
expected = torch.zeros(10, 4)
expected[8] = 2.0
expected[9] = 1.0
torch.testing.assert_close(embedding.weight.grad, expected)
print("rows 8 and 9 of the gradient:", embedding.weight.grad[8:, 0])

embedding = nn.Embedding(10, 4)
with torch.no_grad():  # fix: view-picked-under-no-grad
    new_rows = embedding.weight[-2:]  # fix: view-picked-under-no-grad
    new_rows.uniform_(-0.1, 0.1)  # fix: view-picked-under-no-grad
embedding(torch.tensor([8, 9, 8])).sum().backward()
torch.testing.assert_close(embedding.weight.grad, expected)

# %%
# Fix 2: both outside
# -------------------
# When the change is part of the computation, take the view with grad mode on; autograd then
# records the change through ``CopySlices``. ``y = [2 x0, 2 x1, x2]``, so the gradient of
# ``sum(y * y)`` is ``[8 x0, 8 x1, 2 x2]``:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
head = y[:2]
head.mul_(2)
(y * y).sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([8.0, 16.0, 6.0]))
print("x.grad =", x.grad)

# %%
# For the cache: index it where you write into it, with grad mode on. The write is recorded
# (``CopySlices``), so a loss on the cache reaches the projection that made the keys. The
# gradient of ``sum(cache)`` with respect to the projection's bias is 3, one per cached key:

key_projection = nn.Linear(4, 2)
cache = torch.zeros(8, 2)
keys = key_projection(torch.randn(3, 4))
cache[:3] = keys  # fix: buffer-view-receives-grad
cache.sum().backward()
torch.testing.assert_close(key_projection.bias.grad, torch.full((2,), 3.0))
print("key_projection.bias.grad =", key_projection.bias.grad)

# %%
# Fix 3: return a copy from the ``no_grad`` helper
# ------------------------------------------------
# A tensor meant to be changed freely, outside the graph, should be a copy. ``clone()`` under
# ``no_grad`` gives a plain tensor that does not require grad and shares nothing with
# ``hidden``; the encoder's gradients are unaffected by what the caller does with it:

encoder = nn.Linear(4, 4)


@torch.no_grad()
def last_step_copy(hidden):
    return hidden[:, -1].clone()


hidden = encoder(torch.randn(2, 5, 4))
summary = last_step_copy(hidden)  # fix: nograd-helper-returns-view
summary.clamp_(min=0)
hidden.sum().backward()
torch.testing.assert_close(encoder.bias.grad, torch.full((4,), 2.0 * 5))
print("encoder.bias.grad =", encoder.bias.grad)

# %%
# Pitfall: a detached view is still a view
# ----------------------------------------
# ``hidden[:, -1].detach()`` also gives a tensor that can be changed in place without an error,
# but it shares ``hidden``'s storage: the change rewrites ``hidden`` itself, behind autograd's
# back (:doc:`/errors/pitfalls/detach-shares-storage`). Here clamping the "summary" zeroes
# negative values inside the encoder's output:

encoder = nn.Linear(4, 4)
hidden = encoder(torch.randn(2, 5, 4))
before = hidden.detach().clone()
summary = hidden[:, -1].detach()
summary.clamp_(min=0)
changed = int((hidden.detach() != before).sum())
print("entries of hidden changed by clamping the detached summary:", changed)
assert torch.equal(hidden.detach()[:, -1], before[:, -1].clamp(min=0))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: nograd-view-inplace
