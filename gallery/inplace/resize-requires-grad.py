"""
resize-requires-grad
====================

.. autograd-entry:: resize-requires-grad

What ``resize_`` does to a tensor
---------------------------------

``t.resize_(n)`` changes the shape of ``t`` itself. Growing reallocates its memory and leaves
the new elements uninitialised; shrinking simply forgets elements. Neither has a derivative:
there is no formula for the gradient of elements that appeared from nowhere, and a graph that
saved ``t`` (or its shape) would no longer describe it. So autograd's ``resize_`` refuses any
tensor whose ``requires_grad`` is True. It looks at that flag only: leaf or not, inside
``torch.no_grad()`` or not, new size or same size.
"""

import torch
import torch.autograd.forward_ad as fwAD
from torch import nn

# %%
# The repro
# ---------

x = torch.randn(3, requires_grad=True)
try:
    x.resize_(5)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A parameter cannot be grown that way either:

embedding = nn.Embedding(3, 2)
try:
    embedding.weight.resize_(5, 2)  # cause: resize-differentiated
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``torch.no_grad()`` does not help, unlike for other in-place changes to a leaf
# (:doc:`/errors/inplace/leaf-inplace`): the tensor still requires grad.

try:
    with torch.no_grad():
        x.resize_(5)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Nor does keeping the size: ``resize_as_`` to the tensor's own shape is refused the same way.

try:
    x.resize_as_(x)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Forward-mode differentiation has the same rule, with a message of its own, for a *dual*
# tensor: one that carries a tangent inside a ``dual_level``.

with fwAD.dual_level():
    dual = fwAD.make_dual(torch.randn(3), torch.randn(3))
    try:
        dual.resize_(5)
    except RuntimeError as error:
        print(f"RuntimeError: {error}")

# %%
# A tensor can come to require grad without anyone asking. Metric code often keeps a growing
# buffer and copies each batch's output into it. Copying a model output that requires grad
# into a tensor is recorded like any operation, so the buffer itself joins the graph, and the
# *second* batch fails to resize it (the APMeter report in
# https://github.com/meta-pytorch/tnt/issues/133):


class ScoreMeter:
    def __init__(self) -> None:
        self.scores = torch.empty(0, 2)

    def add(self, output: torch.Tensor) -> None:
        offset = self.scores.size(0)
        self.scores.resize_(offset + output.size(0), output.size(1))
        self.scores[offset:] = output  # cause: state-buffer-joins-graph


model = nn.Linear(3, 2)
meter = ScoreMeter()
meter.add(model(torch.randn(4, 3)))
print(f"after one batch: requires_grad={meter.scores.requires_grad}, {meter.scores.grad_fn}")
try:
    meter.add(model(torch.randn(4, 3)))  # cause: state-buffer-joins-graph
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Functions that create values resize their ``out`` tensor before writing into it, so an
# ``out`` tensor that requires grad gets this error rather than
# :doc:`/errors/inplace/out-arg-autograd`:

noise = torch.zeros(3, requires_grad=True)
try:
    torch.randn(3, out=noise)  # cause: out-requires-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: keep state that needs no gradient out of autograd
# --------------------------------------------------------
# The meter only records numbers: store ``output.detach()``. The buffer never requires grad,
# and the model still trains; the gradient of ``sum(W x + b)`` with respect to ``W`` repeats
# the column sums of the inputs:


class DetachedScoreMeter(ScoreMeter):
    def add(self, output: torch.Tensor) -> None:
        offset = self.scores.size(0)
        self.scores.resize_(offset + output.size(0), output.size(1))
        self.scores[offset:] = output.detach()  # fix: state-buffer-joins-graph


model = nn.Linear(3, 2)
meter = DetachedScoreMeter()  # fix: state-buffer-joins-graph
batches = [torch.randn(4, 3), torch.randn(4, 3)]
for batch in batches:
    output = model(batch)
    meter.add(output)
    output.sum().backward()
torch.testing.assert_close(meter.scores, model(torch.cat(batches)).detach())
expected = torch.cat(batches).sum(0).expand(2, 3)
torch.testing.assert_close(model.weight.grad, expected)
print("meter holds", tuple(meter.scores.shape), "scores; weight.grad =\n", model.weight.grad)

# %%
# Fix 2: build a new tensor of the new shape
# ------------------------------------------
# When the resized tensor is part of what you differentiate, express the change with
# differentiable operations: ``torch.cat`` or ``F.pad`` to grow, slicing to shrink,
# ``reshape`` to regroup. The padded elements are constants, and the gradient of
# ``sum(grown ** 2)`` reaches ``x`` as ``2 x``:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
grown = torch.cat([x, x.new_zeros(2)])  # fixed
(grown**2).sum().backward()
torch.testing.assert_close(x.grad, 2 * x.detach())
print("grown =", grown, " x.grad =", x.grad)

# %%
# Fix 3: grow a parameter by replacing it
# ---------------------------------------
# An embedding that gains rows (new tokens in a vocabulary) cannot be resized in place either.
# Build the larger weight under ``torch.no_grad()``, from the old values, and make it a new
# ``nn.Parameter``; rebuild the optimizer, which still holds the old one. Looking up row 4
# twice and row 0 once gives those rows gradients of 2 and 1:

embedding = nn.Embedding(3, 2)
with torch.no_grad():  # fix: resize-differentiated
    weight = torch.cat([embedding.weight, 0.01 * torch.randn(2, 2)])  # fix: resize-differentiated
embedding.weight = nn.Parameter(weight)  # fix: resize-differentiated
embedding.num_embeddings = 5
optimizer = torch.optim.SGD(embedding.parameters(), lr=0.1)
embedding(torch.tensor([4, 0, 4])).sum().backward()
expected = torch.tensor([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [2.0, 2.0]])
torch.testing.assert_close(embedding.weight.grad, expected)
optimizer.step()
print("embedding.weight.grad =\n", embedding.weight.grad)

# %%
# For the ``out=`` tensor: create the values, then copy them in under ``torch.no_grad()``.
# ``noise`` stays a leaf that requires grad, and the gradient of ``sum(noise * 2)`` is 2:

noise = torch.zeros(3, requires_grad=True)
with torch.no_grad():  # fix: out-requires-grad
    noise.copy_(torch.randn(3))  # fix: out-requires-grad
(noise * 2).sum().backward()
torch.testing.assert_close(noise.grad, torch.full((3,), 2.0))

# %%
# The pitfall of ``.data`` and ``detach()``
# -----------------------------------------
# ``x.data.resize_(5)`` and ``x.detach().resize_(5)`` run without error, and do not resize
# ``x``. Each resizes a *different* tensor object that happens to share ``x``'s memory; ``x``
# keeps its shape (and its memory is reallocated behind its back):

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
other = x.detach()
other.resize_(5)
print("other:", tuple(other.shape), " x:", tuple(x.shape))
assert x.shape == (3,)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: resize-requires-grad
