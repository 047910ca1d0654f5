"""
wrong-number-of-gradients
=========================

.. autograd-entry:: wrong-number-of-gradients

One gradient per argument of ``forward``
----------------------------------------

``MyFunction.apply(a, b, c)`` records one node whose backward is your ``backward``. Autograd
knows which of ``a``, ``b``, ``c`` were tensors, and which of those need a gradient; it does
not know what your ``backward`` computes. So the contract is positional: ``backward`` returns
a tuple with one entry per argument of ``forward`` after ``ctx``, in the same order. Tensor
arguments get their gradient (or ``None`` if it is not needed), every other argument (a
float, an int, a flag, a module) gets ``None``. A count that does not match cannot be paired
up with the inputs, and autograd raises rather than guess.
"""

import torch

# %%
# The repro
# ---------
# The usual way to get there: a non-tensor argument whose ``None`` was forgotten. ``forward``
# takes three arguments after ``ctx``, ``backward`` returns two values:


class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, scale):
        ctx.save_for_backward(x, y)
        ctx.scale = scale
        return x * y * scale

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y * ctx.scale, grad_output * x * ctx.scale  # broken


x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
try:
    ScaledMul.apply(x, y, 2.0).sum().backward()  # cause: forgotten-none
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A second way: a *list* is one value. Autograd unpacks a tuple, and wraps anything else,
# including a list of two gradients, into a tuple of one:


class ListMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return [grad_output * y, grad_output * x]


try:
    ListMul.apply(x, y).sum().backward()  # cause: list-not-tuple
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A third: a backward that returns the gradient of the input it was written for, and forgets the
# weight's (huawei-noah/AdderNet#20 and #21):


class InputOnlyMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x * weight

    @staticmethod
    def backward(ctx, grad_output):
        _, weight = ctx.saved_tensors
        return grad_output * weight  # the weight's gradient is missing


try:
    InputOnlyMul.apply(x, y).sum().backward()  # cause: missing-tensor-gradient
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Reading the message
# -------------------
# ``ScaledMulBackward`` is the node of ``ScaledMul``. ``expected 3`` counts every argument of
# ``forward`` after ``ctx``, tensors or not; ``got 2`` counts what ``backward`` returned.
#
# Fix: one entry per argument, ``None`` for the rest
# --------------------------------------------------
# ``ctx.needs_input_grad`` holds one boolean per ``forward`` argument: skip the work for inputs
# that need no gradient, and return ``None`` in their place. The gradient of
# ``sum(x * y * scale)`` is ``y * scale`` for ``x`` and ``x * scale`` for ``y``:


class FixedScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, scale):
        ctx.save_for_backward(x, y)
        ctx.scale = scale
        return x * y * scale

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        grad_x = grad_output * y * ctx.scale if ctx.needs_input_grad[0] else None
        grad_y = grad_output * x * ctx.scale if ctx.needs_input_grad[1] else None
        return grad_x, grad_y, None  # fixed


x = torch.randn(3, requires_grad=True)
y = torch.randn(3)  # needs no gradient
FixedScaledMul.apply(x, y, 2.0).sum().backward()
torch.testing.assert_close(x.grad, y * 2.0)
print("y needs no gradient; x.grad =", x.grad)

x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
FixedScaledMul.apply(x, y, 2.0).sum().backward()  # fix: forgotten-none
torch.testing.assert_close(x.grad, y.detach() * 2.0)
torch.testing.assert_close(y.grad, x.detach() * 2.0)
print("x.grad =", x.grad, " y.grad =", y.grad)

# %%
# The same rule fixes the other two: a tuple, and one gradient per tensor input.


class FixedMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x * weight

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output * weight, grad_output * x


x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
FixedMul.apply(x, y).sum().backward()  # fix: list-not-tuple
torch.testing.assert_close(x.grad, y.detach())
x.grad = y.grad = None
(2 * FixedMul.apply(x, y)).sum().backward()  # fix: missing-tensor-gradient
torch.testing.assert_close(y.grad, 2 * x.detach())

# %%
# Trailing ``None`` values beyond the count are tolerated, which lets a backward return a
# fixed-size tuple for a ``forward`` with optional arguments:


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, grad_output):
        return 2 * grad_output, None, None


x = torch.randn(3, requires_grad=True)
Double.apply(x).sum().backward()
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))

# %%
# The pitfalls
# ------------
# **Do not invent a gradient for a non-tensor argument to get the count right.** Anything but
# ``None`` in that position is an error of its own:


def gradient_for_a_float():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.scale, torch.zeros(())

    try:
        Bad.apply(torch.randn(3, requires_grad=True), 2.0).sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


gradient_for_a_float()

# %%
# **The right count in the wrong order passes unnoticed** when the inputs have the same shape:
# each gradient lands on the other input.


class SwappedMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * x, grad_output * y  # d/dx is y, not x


x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
SwappedMul.apply(x, y).sum().backward()
print("true d/dx:", y.detach(), " what x.grad holds:", x.grad)
assert not torch.allclose(x.grad, y.detach())

# %%
# ``torch.autograd.gradcheck`` compares a backward with finite differences (in float64): it
# catches a swapped or wrong formula that no count or shape check can, and passes the fixed one.

x64 = torch.randn(3, dtype=torch.float64, requires_grad=True)
y64 = torch.randn(3, dtype=torch.float64, requires_grad=True)
assert not torch.autograd.gradcheck(SwappedMul.apply, (x64, y64), raise_exception=False)
assert torch.autograd.gradcheck(FixedScaledMul.apply, (x64, y64, 2.0))
print("gradcheck: SwappedMul fails, FixedScaledMul passes")

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: wrong-number-of-gradients
