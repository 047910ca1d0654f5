"""
view-leaf-inplace
=================

.. autograd-entry:: view-leaf-inplace

Views, and what an in-place change through one does
---------------------------------------------------

Indexing, slicing, ``view``, ``reshape`` (when it can), ``transpose`` and ``narrow`` return
*views*: tensors that share the storage of their *base* instead of copying it. A view keeps a
link to its base (``._base``) and shares its version counter, so a change made through either
one is seen by both.

An in-place change through a view changes the base too, so autograd rewrites the base's
history: the base gets a new ``grad_fn``, ``CopySlices``, which stands for "the old base, with
this slice replaced by the result of the in-place operation". In backward, ``CopySlices`` sends
the gradient of the replaced slice through the in-place operation's backward and the rest
straight to the old base. On an intermediate result this is invisible:
"""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
first = y[0]
print(f"first._base is y: {first._base is y}; y.grad_fn before: {y.grad_fn.name()}")
first += 10
print(f"y.grad_fn after:  {y.grad_fn.name()}; y = {y.detach()}")

# %%
# A *leaf* that requires grad (a parameter, an input created with ``requires_grad=True``) has
# no ``grad_fn``: it is where backward stops and fills ``.grad``. Rewriting its history would
# give it one and turn it into an interior node of the graph, whose ``.grad`` backward never
# fills. Autograd refuses instead, at the moment of the change, even on a fresh leaf that no
# computation has used, as here. The reason is the one of :doc:`/errors/inplace/leaf-inplace`,
# which covers in-place changes to the leaf itself.
#
# The repro
# ---------

x = torch.randn(3, requires_grad=True)
try:
    x[0] += 1  # cause: write-into-input
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# It usually happens while initialising or editing weights by hand. Detection models set the
# objectness bias of their head through a view of ``bias`` (YOLOv5's ``_initialize_biases``,
# run on torch 1.8 and later); model-editing code shifts a column of a weight matrix:

head = torch.nn.Conv2d(8, 3 * 6, kernel_size=1)  # 3 anchors x (4 box + 1 objectness + 1 class)
try:
    bias = head.bias.view(3, -1)  # broken
    bias[:, 4] += -4.6  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

dense = torch.nn.Linear(4, 3)
try:
    dense.weight[:, 2] -= 0.5  # cause: edit-weights-through-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    dense.weight.view(-1).zero_()  # cause: edit-weights-through-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Assigning to a slice is an in-place copy through a view, so it raises too, as in this
# positional encoding written into a tensor created with ``requires_grad=True``:

positions = torch.arange(4.0).unsqueeze(1)
try:
    encoding = torch.zeros(4, 6, requires_grad=True)  # cause: fill-constant-requiring-grad
    encoding[:, 0::2] = torch.sin(positions / 100)  # cause: fill-constant-requiring-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And overwriting part of an input you want gradients for, as in a saliency map or an attack
# that blanks a feature:

features = torch.randn(2, 3, requires_grad=True)
try:
    features[:, 1] = 0.0  # cause: write-into-input
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    features[0] = 0.0  # cause: write-into-input
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Writing through a mask or a list of indices (``x[mask] = 0``), or into the whole tensor with
# ``x[:] = 0``, is different: those assignments make no view, so they are in-place operations on
# ``x`` itself, and raise the message of :doc:`/errors/inplace/leaf-inplace` instead.
#
# Before torch 1.8 these lines ran, and the failure came later, in ``backward()``: the leaf had
# been given a ``CopySlices`` history (:doc:`/errors/graph/leaf-moved-interior`).
#
# Fix 1: change the leaf under ``torch.no_grad()``
# ------------------------------------------------
# An initialisation or a hand edit is not part of what you differentiate. Under
# ``torch.no_grad()`` autograd does not record it; the next forward pass simply uses the new
# values:

head = torch.nn.Conv2d(8, 3 * 6, kernel_size=1)
with torch.no_grad():  # fixed
    bias = head.bias.view(3, -1)  # fixed
    bias[:, 4] += -4.6  # fixed
print("objectness biases:", head.bias.detach().view(3, -1)[:, 4])

head = torch.nn.Conv2d(8, 3 * 6, kernel_size=1)
with torch.no_grad():  # fix: edit-weights-through-view
    bias = head.bias.view(3, -1)  # fix: edit-weights-through-view
    bias[:, 4] += -4.6  # fix: edit-weights-through-view

# %%
# The bias is still a leaf, and still gets its gradient. For a 1x1 convolution, the gradient of
# the summed output with respect to each bias is the number of output positions:

images = torch.randn(2, 8, 5, 5)
head(images).sum().backward()
torch.testing.assert_close(head.bias.grad, torch.full((18,), 2.0 * 5 * 5))
print("head.bias.grad[:3] =", head.bias.grad[:3])

# %%
# The positional encoding is a constant: create it without ``requires_grad`` at all (or fill it
# under ``torch.no_grad()``).

encoding = torch.zeros(4, 6)  # fix: fill-constant-requiring-grad
encoding[:, 0::2] = torch.sin(positions / 100)  # fix: fill-constant-requiring-grad
torch.testing.assert_close(encoding[:, 0::2], torch.sin(positions / 100).expand(4, 3))

# %%
# Fix 2: write into a copy
# ------------------------
# If the change *is* part of the computation, make it on a copy. ``clone()`` is recorded
# (``CloneBackward0``), so the copy is not a leaf: writing through its views is allowed, and the
# gradient still reaches the leaf. With ``y = x`` except ``y[0] = x[0] + 1``, the gradient of
# ``sum(y * y)`` is ``2 * y``:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.clone()  # fix: write-into-input
y[0] += 1  # fix: write-into-input
(y * y).sum().backward()
torch.testing.assert_close(x.grad, 2 * torch.tensor([2.0, 2.0, 3.0]))
print("x.grad =", x.grad)

# %%
# Overwriting entries works the same way, or out of place with ``index_put``; either way the
# overwritten entries no longer depend on ``x``, and their gradient is zero:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.index_put((torch.tensor([0]),), torch.tensor(5.0))
(y * y).sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([0.0, 4.0, 6.0]))
print("x.grad =", x.grad)

# %%
# The pitfall of ``.data``
# ------------------------
# ``x.data[0] += 1`` also runs: ``.data`` is the same storage, seen without autograd. Nothing
# is checked, and a graph that already used ``x`` computes its gradient with the changed value
# (:doc:`/errors/pitfalls/data-hides-inplace`). Here ``loss = sum(x * x)`` was computed at
# ``x = [1, 2, 3]``, so its gradient is ``[2, 4, 6]``, but ``MulBackward0`` reads ``x`` after
# the hidden change:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (x * x).sum()
x.data[0] += 1
loss.backward()
print("true gradient:   ", torch.tensor([2.0, 4.0, 6.0]))
print("what .grad holds:", x.grad)
assert not torch.equal(x.grad, torch.tensor([2.0, 4.0, 6.0]))

# %%
# ``torch.no_grad()`` does not have this problem: the change bumps the version counter, so if a
# graph saved the leaf before the change, its backward refuses to run
# (:doc:`/errors/inplace/inplace-modified`) instead of computing a wrong gradient. Edit weights
# between steps, not between a forward pass and its backward:


def edit_between_forward_and_backward() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (x * x).sum()
    with torch.no_grad():
        x[0] += 1
    try:
        loss.backward()
    except RuntimeError as error:
        print(f"RuntimeError: {str(error)[:100]}...")


edit_between_forward_and_backward()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: view-leaf-inplace
