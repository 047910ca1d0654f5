"""
no-grad-accumulator
===================

.. autograd-entry:: no-grad-accumulator

Saved leaves and their gradient accumulator
-------------------------------------------

An operation that needs a tensor for its backward pass *saves* it. When the saved tensor is a
leaf that requires grad, autograd also notes the leaf's ``AccumulateGrad`` node (the node that
writes into its ``.grad``), so that the tensor it hands back at backward time is still connected
to the leaf.

Saved-tensor hooks change how tensors are saved: a *pack* hook turns the tensor into whatever it
likes (a copy on the CPU, a recipe to recompute it), and an *unpack* hook turns that back into a
tensor during backward. ``torch.utils.checkpoint(use_reentrant=False)`` and
``torch.autograd.graph.save_on_cpu()`` are built on them. The unpacked tensor is a new object,
which autograd has to reconnect to the leaf's ``AccumulateGrad`` node.

Up to torch 2.0 it remembered that node through a *weak* reference: enough when the leaf is an
input of some operation, since the graph's edges keep the node alive. A custom
``autograd.Function`` that saves a leaf it was not given (a parameter captured from the
enclosing module) creates no such edge. The node was gone by the time the unpack hook ran, and
an internal assertion failed. Torch 2.1 keeps a strong reference instead
(`pytorch#104039 <https://github.com/pytorch/pytorch/pull/104039>`_), so the same code now runs.
"""

import torch
from torch.utils.checkpoint import checkpoint

print("torch", torch.__version__)

# %%
# The code that used to fail
# --------------------------
# ``ScaleByWeight`` multiplies its input by ``weight``, a leaf it reads from the enclosing scope
# instead of receiving it as an argument, and saves it for backward. Run under non-reentrant
# checkpointing, torch 1.10 to 2.0.1 failed in ``ctx.saved_tensors``; current torch runs it (the
# ``try`` below catches nothing), and the input's gradient, ``d sum(x * weight) / dx = weight``,
# is right:

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


class ScaleByWeight(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(weight)  # a leaf that is not an input
        return x * weight

    @staticmethod
    def backward(ctx, grad):
        (saved_weight,) = ctx.saved_tensors
        return grad * saved_weight


x = torch.ones(3, requires_grad=True)
try:
    out = checkpoint(ScaleByWeight.apply, x, use_reentrant=False)  # cause: captured-leaf-checkpoint
    out.sum().backward()  # cause: captured-leaf-checkpoint
    torch.testing.assert_close(x.grad, weight.detach())
    print("x.grad =", x.grad)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same held for the other users of saved-tensor hooks, such as offloading saved tensors to
# the CPU:

x = torch.ones(3, requires_grad=True)
try:
    with torch.autograd.graph.save_on_cpu():  # cause: captured-leaf-offload
        out = ScaleByWeight.apply(x)  # cause: captured-leaf-offload
    out.sum().backward()  # cause: captured-leaf-offload
    torch.testing.assert_close(x.grad, weight.detach())
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And for hooks of your own, here ones that save a copy of each tensor:

copy, keep = (lambda t: t.clone()), (lambda t: t)
x = torch.ones(3, requires_grad=True)
try:
    with torch.autograd.graph.saved_tensors_hooks(copy, keep):  # cause: captured-leaf-offload
        out = ScaleByWeight.apply(x)  # cause: captured-leaf-offload
    out.sum().backward()  # cause: captured-leaf-offload
    torch.testing.assert_close(x.grad, weight.detach())
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# What has not changed: the captured leaf gets no gradient
# --------------------------------------------------------
# Autograd knows a custom Function depends only on the tensors passed to ``apply()``. The
# product with ``weight`` happened inside ``forward``, where nothing is recorded, so no gradient
# ever reaches ``weight``, on any release. The error was a symptom of this design mistake:

print("weight.grad =", weight.grad)
assert weight.grad is None

# %%
# The fix on every release: pass the tensor in
# --------------------------------------------
# Make every tensor the Function uses an argument of ``apply()``, and return its gradient from
# ``backward()``. The leaf is then an input, the graph holds its ``AccumulateGrad`` node (torch
# 2.0 and older reconnect it without trouble), and it receives its gradient:
# ``d sum(x * w) / dw = x``.


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):  # the leaf is an input
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad * w, grad * x


weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
out = checkpoint(Scale.apply, x, weight, use_reentrant=False)  # fix: captured-leaf-checkpoint
out.sum().backward()  # fix: captured-leaf-checkpoint
torch.testing.assert_close(x.grad, weight.detach())
torch.testing.assert_close(weight.grad, x.detach())
print("x.grad =", x.grad, " weight.grad =", weight.grad)

# %%
# And with saved tensors offloaded to the CPU:

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
with torch.autograd.graph.save_on_cpu():  # fix: captured-leaf-offload
    out = Scale.apply(x, weight)  # fix: captured-leaf-offload
out.sum().backward()  # fix: captured-leaf-offload
torch.testing.assert_close(weight.grad, x.detach())

# %%
# On torch 2.0 and older, a Function that cannot be changed could also be checkpointed with
# ``use_reentrant=True``, which recomputes the forward pass without saved-tensor hooks (at the
# price of the restrictions of :doc:`/errors/graph/checkpoint-no-inputs-require-grad`).
#
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: no-grad-accumulator
