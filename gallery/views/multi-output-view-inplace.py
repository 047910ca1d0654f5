"""
multi-output-view-inplace
=========================

.. autograd-entry:: multi-output-view-inplace

Several views, one backward node
--------------------------------

``unbind``, ``split``, ``chunk`` and ``split_with_sizes`` return several tensors at once, each
a view of their input (no data is copied). Autograd records a single backward node for the
whole call: ``UnbindBackward0`` receives the gradients of all the outputs and stacks them into
the gradient of the input.
"""

import torch

x = torch.randn(2, 3, requires_grad=True)
y = x * 1
a, b = y.unbind(0)
print(f"a._base is y: {a._base is y}")
print(f"a and b share one node: {a.grad_fn is b.grad_fn} ({a.grad_fn.name()})")

# %%
# An in-place change made through an ordinary view works because autograd can rewrite that
# view's history: the base gets a ``CopySlices`` node, and the view's own ``grad_fn`` is rebuilt
# by replaying the view operation on the changed base. A call that produced several views
# through one shared node cannot be replayed for one of them alone, so autograd does not know
# how to rewrite the graph, and refuses the change.
#
# The repro
# ---------

x = torch.randn(2, 3, requires_grad=True)
y = x * 1
try:
    a, b = y.unbind(0)  # broken
    a.mul_(2)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# A piece of ``chunk`` or ``split`` changed in place, very often by an in-place activation: a
# gated block splits its projection in two and applies ``SiLU(inplace=True)`` to the gate:

projection = torch.nn.Linear(4, 6)
hidden, gate = projection(torch.randn(2, 4)).chunk(2, dim=1)
try:
    torch.nn.SiLU(inplace=True)(gate)  # cause: inplace-on-chunk
except RuntimeError as error:
    print(f"RuntimeError: {error}")

means, scales = projection(torch.randn(2, 4)).split(3, dim=1)
try:
    means *= 0.5  # cause: inplace-on-chunk
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Most people who meet it with ``unbind`` never call it: since torch 1.7, iterating over a tensor
# calls ``unbind(0)``. Undoing an image normalisation channel by channel, as many saliency
# and adversarial-attack scripts do, changes each loop variable in place:

image = torch.rand(3, 4, 4, requires_grad=True)
means = [0.485, 0.456, 0.406]
stds = [0.229, 0.224, 0.225]
pixels = image * 1
try:
    for channel, mean, std in zip(pixels, means, stds, strict=True):  # cause: loop-over-tensor
        channel.mul_(std).add_(mean)  # cause: loop-over-tensor
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A view taken from one of these outputs inherits the restriction. The message then names the
# last view operation, here the indexing ``first[0]`` (``Select``), not the ``chunk`` that
# made the view unmodifiable:

y = torch.randn(4, requires_grad=True) * 1
first, second = y.chunk(2)
try:
    first[0] = 0.0
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Slicing a piece (``Slice``) and ``split_with_sizes`` behave the same way:

grid = torch.randn(4, 3, requires_grad=True) * 1
top, bottom = grid.chunk(2)
try:
    top[:, 1:].zero_()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

head, tail = grid.split_with_sizes([1, 3])
try:
    tail.mul_(2)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# When the tensor that was split does not require grad but the value written into a piece
# does, the piece has no ``grad_fn`` and the message misleadingly speaks of ``no_grad`` mode.
# This happens when filling a preallocated buffer row by row in a loop:

weights = torch.randn(3, requires_grad=True)
rows = torch.zeros(2, 3)
try:
    for i, row in enumerate(rows):  # cause: fill-buffer-rows
        row.copy_(weights * (i + 1))  # cause: fill-buffer-rows
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: compute out of place
# ---------------------------
# Changing the pieces out of place and putting them back together gives autograd a graph it
# records as usual. The gradient of ``sum(stack([2 * a, b]))`` with respect to ``x`` is 2 for
# the first row and 1 for the second:

x = torch.randn(2, 3, requires_grad=True)
y = x * 1
a, b = y.unbind(0)  # fixed
y = torch.stack([a * 2, b])  # fixed
y.sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]))
print("x.grad =", x.grad)

# %%
# The loop over channels is better written on the whole tensor, with broadcasting; the
# gradient of the sum with respect to each pixel is the standard deviation of its channel:

image = torch.rand(3, 4, 4, requires_grad=True)
std = torch.tensor(stds).view(3, 1, 1)
mean = torch.tensor(means).view(3, 1, 1)
pixels = image * std + mean  # fix: loop-over-tensor
pixels.sum().backward()
torch.testing.assert_close(image.grad, std.expand(3, 4, 4))
print("image.grad[:, 0, 0] =", image.grad[:, 0, 0])

# %%
# For the gated block, the out-of-place activation gives the gate a tensor of its own. The
# gradient of ``sum(hidden * silu(gate))`` is checked against the same expression computed from
# a copy of the projection's output, which is not a piece of ``chunk``:

projection = torch.nn.Linear(4, 6)
inputs = torch.randn(2, 4)
hidden, gate = projection(inputs).chunk(2, dim=1)
gate = torch.nn.SiLU()(gate)  # fix: inplace-on-chunk
(hidden * gate).sum().backward()
output = projection(inputs).detach().requires_grad_()
expected_hidden, expected_gate = output[:, :3], output[:, 3:]
(expected,) = torch.autograd.grad(
    (expected_hidden * torch.nn.functional.silu(expected_gate)).sum(), output
)
torch.testing.assert_close(projection.bias.grad, expected.sum(0))
print("projection.bias.grad =", projection.bias.grad)

# %%
# Fix 2: write through indexing
# -----------------------------
# ``y[0]`` is a view made by a single-output operation (``select``): autograd can replay it,
# so an in-place change through it is recorded with ``CopySlices``. The gradient of
# ``sum(y * y)`` is ``2 * y`` times the factor each entry went through:

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * 1
y[0].mul_(2)
(y * y).sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([[8.0, 16.0], [6.0, 8.0]]))
print("x.grad =", x.grad)

# %%
# The same goes for the buffer: assign the rows by index (or collect them in a list and
# ``torch.stack`` it). Row ``i`` holds ``(i + 1) * weights``, so the gradient of the sum with
# respect to ``weights`` is ``1 + 2 = 3`` everywhere:

weights = torch.randn(3, requires_grad=True)
rows = torch.zeros(2, 3)
for i in range(2):
    rows[i] = weights * (i + 1)  # fix: fill-buffer-rows
rows.sum().backward()
torch.testing.assert_close(weights.grad, torch.full((3,), 3.0))
print("weights.grad =", weights.grad)

# %%
# ``tensor_split`` also cuts a tensor into pieces, but each piece is a view of its own, made by
# a single-output slice: changing one in place is recorded. With the first half doubled, the
# gradient of ``sum(y * y)`` is ``[8, 16, 6, 8]``:

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
first, second = y.tensor_split(2)
first.mul_(2)
(y * y).sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([8.0, 16.0, 6.0, 8.0]))

# %%
# Fix 3: clone the piece
# ----------------------
# A clone owns its storage: it is not a view any more, and can be changed in place. The
# original tensor is left as it was:

x = torch.randn(2, 3, requires_grad=True)
y = x * 1
a, b = y.unbind(0)
a = a.clone()
a.mul_(2)
(a.sum() + b.sum()).backward()
torch.testing.assert_close(x.grad, torch.tensor([[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]))
print("x.grad =", x.grad)

# %%
# The pitfall of ``unsafe_chunk`` and ``unsafe_split``
# ----------------------------------------------------
# These variants return pieces that autograd does not track as views, so nothing is checked,
# and nothing tells autograd that a change made through one alias of the memory (the input or a
# piece) is seen by the others. The rule they leave to you: after an in-place change through one
# alias, do not use another alias of the changed memory. Here the first piece is doubled in
# place, which also changes ``y``, and ``y`` is used afterwards: autograd still believes
# ``y = x``, and the gradient of ``sum(y * y)`` misses the factor 2 on the first half (true
# gradient: ``[8, 16, 6, 8]``):

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
first, second = y.unsafe_chunk(2)
first.mul_(2)
(y * y).sum().backward()
print("true gradient:   ", torch.tensor([8.0, 16.0, 6.0, 8.0]))
print("what .grad holds:", x.grad)
assert not torch.equal(x.grad, torch.tensor([8.0, 16.0, 6.0, 8.0]))

# %%
# Used within the rule, they are right: after doubling ``first``, use ``first`` itself and
# ``second`` (whose memory did not change), not ``y``. The gradient of
# ``sum(first ** 2) + sum(second ** 2)`` is ``[8, 16, 6, 8]``:

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
first, second = y.unsafe_chunk(2)
first.mul_(2)
((first * first).sum() + (second * second).sum()).backward()
torch.testing.assert_close(x.grad, torch.tensor([8.0, 16.0, 6.0, 8.0]))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: multi-output-view-inplace
