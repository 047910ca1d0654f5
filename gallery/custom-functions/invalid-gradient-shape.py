"""
invalid-gradient-shape
======================

.. autograd-entry:: invalid-gradient-shape

What the engine checks after every backward function
----------------------------------------------------

When autograd records an operation, the new node gets one *edge* per tensor input that needs a
gradient, pointing at the node that produced the input (or at the ``AccumulateGrad`` of a leaf);
every node keeps a record of the tensors it will receive gradients for: their shape, dtype,
device and layout. In backward, the engine calls a node's backward function, then validates
each gradient it returned against the record of the node it is going to, before sending it on:

- same shape: accepted;
- a shape the input was broadcast to (``[4, 3]`` for a ``[3]`` input): summed back down;
- any other shape: this error;
- another dtype: cast silently (a complex gradient for a real input excepted:
  :doc:`/errors/custom-functions/grads-floating-type`); another device: an error too (0-dim CPU
  tensors excepted).

Built-in operations return the right shapes by construction, so the node named in the message
is nearly always your own: a custom ``torch.autograd.Function`` (``FooBackward`` for ``Foo``),
or the backward of a C++/CUDA extension. A built-in node (``MmBackward0``) points at a tensor it
saved in the forward pass and that changed shape before backward.
"""

import torch

# %%
# A custom Function of our own: a matrix product, with a hand-written backward.


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x @ weight

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grad_x = grad_output @ weight.T
        grad_weight = grad_output.T @ x  # broken
        return grad_x, grad_weight


x = torch.randn(4, 3, requires_grad=True)
weight = torch.randn(3, 2, requires_grad=True)
out = LinearFunction.apply(x, weight)
print("grad_fn:", type(out.grad_fn).__name__)
print("edges:  ", [type(node).__name__ for node, _ in out.grad_fn.next_functions])

# %%
# The repro
# ---------
# ``grad_output.T @ x`` is the transpose of the weight's gradient: shape ``[2, 3]`` for a
# ``[3, 2]`` weight. The forward ran fine: nothing looks at the backward until ``backward()``
# runs it.

try:
    LinearFunction.apply(x, weight).sum().backward()  # cause: custom-backward-shape
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Reading the message
# -------------------
# ``LinearFunctionBackward`` is the node of our Function. ``index 1`` counts the *tensor*
# arguments of ``forward`` (``x`` is 0, ``weight`` is 1); non-tensor arguments are skipped, so
# with ``forward(ctx, x, scale, weight)`` the weight would still be index 1. ``got [2, 3]`` is
# what backward returned, ``[3, 2]`` the shape of the input. The same mistake in a compiled
# extension's backward reads the same way: Gaussian-splatting rasterisers built for another
# configuration return gradients with one column too few or too many
# (hbb1/2d-gaussian-splatting#43 and #229, VITA-Group/FSGS#59). A tensor hook that returns
# another shape does not get here: torch stops it earlier, with "hook '...' has changed the size
# of value":


def hook_changing_the_shape():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda grad: grad[:2])
    try:
        y.sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


hook_changing_the_shape()

# %%
# A built-in node
# ---------------
# When the node is a built-in one (``MmBackward0``, ``AddmmBackward0``), the gradient it
# computed came from a tensor it saved in the forward pass, which changed shape before backward.
# Pruning code that resizes a weight through ``.data`` between the forward pass and
# ``backward()`` (IntelLabs/distiller#517) does exactly that: ``x @ w`` saved ``w`` to compute
# the gradient of ``x``, ``grad @ w.T``, which now has the new width.

inputs = torch.randn(4, 3, requires_grad=True)
pruned = torch.randn(3, 2, requires_grad=True)
product = inputs @ pruned
pruned.data = torch.randn(5, 2)  # resized after the forward pass
try:
    product.sum().backward()  # cause: saved-tensor-resized
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Change a parameter's shape between steps, after ``backward()`` and before the next forward
# pass, so that the graph is built with the new tensor:

pruned = torch.randn(5, 2, requires_grad=True)
wide_inputs = torch.randn(4, 5, requires_grad=True)
(wide_inputs @ pruned).sum().backward()  # fix: saved-tensor-resized
torch.testing.assert_close(wide_inputs.grad, pruned.detach().sum(1).expand(4, 5))
torch.testing.assert_close(pruned.grad, wide_inputs.detach().sum(0)[:, None].expand(5, 2))
# %%
# The device check
# ----------------
# The same validation compares devices. The classic is a backward that builds its gradient with
# a factory function, ``torch.zeros(x.shape)``, which lands on the CPU while ``x`` is on a GPU:
# ``expected device cuda:0 but got cpu``. This page is built without a GPU, so the ``meta``
# device stands in for the second device:


class ZeroGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return torch.zeros(grad_output.shape, device="meta")  # not the input's device


try:
    ZeroGrad.apply(torch.randn(3, requires_grad=True)).sum().backward()  # cause: factory-device
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Build such tensors from the input instead: ``torch.zeros_like(grad_output)``,
# ``x.new_zeros(shape)`` or ``.to(x.device)`` keep the device (and dtype) right everywhere.


class FixedZeroGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return torch.zeros_like(grad_output)


x = torch.randn(3, requires_grad=True)
FixedZeroGrad.apply(x).sum().backward()  # fix: factory-device
torch.testing.assert_close(x.grad, torch.zeros(3))

# %%
# Fix 1: correct the formula
# --------------------------
# For ``out = x @ weight``, the gradient of the weight is ``x.T @ grad_output``. Compare with
# what autograd computes for the same product written with built-in operations:


class FixedLinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x @ weight

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grad_x = grad_output @ weight.T
        grad_weight = x.T @ grad_output  # fixed
        return grad_x, grad_weight


x = torch.randn(4, 3, requires_grad=True)
weight = torch.randn(3, 2, requires_grad=True)
FixedLinearFunction.apply(x, weight).sum().backward()  # fix: custom-backward-shape

x_ref = x.detach().clone().requires_grad_()
weight_ref = weight.detach().clone().requires_grad_()
(x_ref @ weight_ref).sum().backward()
torch.testing.assert_close(weight.grad, weight_ref.grad)
torch.testing.assert_close(x.grad, x_ref.grad)
print("weight.grad =", weight.grad)

# %%
# Fix 2: test every custom backward with ``gradcheck``
# ----------------------------------------------------
# ``torch.autograd.gradcheck`` compares the backward with finite differences, in float64. It
# checks values, not only shapes, which matters for the pitfalls below:

x64 = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
weight64 = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(FixedLinearFunction.apply, (x64, weight64))
print("gradcheck passed")

# %%
# The pitfalls
# ------------
# **The shape check is not a value check.** With a square weight the transposed formula has the
# right shape: no error, and a wrong gradient.

x = torch.randn(4, 3, requires_grad=True)
square = torch.randn(3, 3, requires_grad=True)
LinearFunction.apply(x, square).sum().backward()
true_grad = x.detach().T @ torch.ones(4, 3)
print("true gradient:\n", true_grad)
print("what .grad holds:\n", square.grad)
assert not torch.allclose(square.grad, true_grad)

# %%
# **Reshaping to silence the error makes it worse.** ``grad_weight.reshape(weight.shape)`` is
# accepted, but a reshape is not a transpose: the values land in the wrong places.


class ReshapedLinearFunction(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grad_weight = (grad_output.T @ x).reshape(weight.shape)
        return grad_output @ weight.T, grad_weight


x = torch.randn(4, 3, requires_grad=True)
weight = torch.randn(3, 2, requires_grad=True)
ReshapedLinearFunction.apply(x, weight).sum().backward()
print("reshaped gradient, accepted:\n", weight.grad)
print("true gradient:\n", x.detach().T @ torch.ones(4, 2))
assert not torch.allclose(weight.grad, x.detach().T @ torch.ones(4, 2))

# %%
# **Broadcast gradients are summed without a word.** A gradient with extra leading dimensions is
# reduced to the input's shape, which is right when those dimensions are a batch the input was
# broadcast over, and silently wrong when the backward made them up:


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, grad_output):
        return (2 * grad_output).expand(5, *grad_output.shape)  # five copies, summed


x = torch.randn(3, requires_grad=True)
Scale.apply(x).sum().backward()
print("x.grad =", x.grad, "(the true gradient is 2)")
assert torch.equal(x.grad, torch.full((3,), 10.0))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: invalid-gradient-shape
