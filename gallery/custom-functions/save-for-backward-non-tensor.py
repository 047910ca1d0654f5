"""
save-for-backward-non-tensor
============================

.. autograd-entry:: save-for-backward-non-tensor

What ``save_for_backward`` does with a tensor
---------------------------------------------

``ctx.save_for_backward(t)`` does not simply keep a reference. Autograd wraps each tensor in a
*saved variable* that

- records the tensor's version counter, so that an in-place change made after the forward is
  caught at backward time instead of silently corrupting the gradient;
- saves an output of the Function without creating a reference cycle (output, its
  ``grad_fn``, the ``ctx`` that holds the output);
- releases the tensor once backward has used it (unless ``retain_graph=True``);
- goes through saved-tensor hooks, which is how activation offloading and checkpointing work.

All of this is about tensors. An ``int``, a ``torch.Size``, a flag or a list has no version
counter and nothing to free, so ``save_for_backward`` accepts tensors and ``None`` only.
Everything else goes on ``ctx`` as an ordinary attribute.
"""

import torch

# %%
# The repro
# ---------
# A softmax with a hand-written backward, which needs the output ``y`` and the ``dim``:


class Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.softmax(x, dim)
        ctx.save_for_backward(y, dim)  # broken
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, dim = ctx.saved_tensors
        return y * (grad_output - (grad_output * y).sum(dim, keepdim=True)), None


x = torch.randn(2, 5, requires_grad=True)
try:
    Softmax.apply(x, 1)  # cause: non-tensor-setting
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# The error comes at ``apply``, during the forward, not at backward. The same happens with a
# list of tensors, which is one argument of type ``list``:


class WeightedSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward([x, w])
        return (x * w).sum()

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output * w, grad_output * x


try:
    WeightedSum.apply(torch.randn(3, requires_grad=True), torch.randn(3))  # cause: packed-tensors
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Fix: tensors in ``save_for_backward``, the rest on ``ctx``
# ----------------------------------------------------------
# ``dim`` becomes an attribute; ``y`` stays in ``save_for_backward``. Compare with autograd's own
# softmax:


class FixedSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.softmax(x, dim)
        ctx.save_for_backward(y)  # fixed
        ctx.dim = dim  # fixed
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return y * (grad_output - (grad_output * y).sum(ctx.dim, keepdim=True)), None


x = torch.randn(2, 5, requires_grad=True)
weights = torch.randn(2, 5)
(FixedSoftmax.apply(x, 1) * weights).sum().backward()  # fix: non-tensor-setting

x_ref = x.detach().clone().requires_grad_()
(torch.softmax(x_ref, 1) * weights).sum().backward()
torch.testing.assert_close(x.grad, x_ref.grad)
print("x.grad =", x.grad)

# %%
# Several tensors are saved unpacked, and come back as a tuple in ``ctx.saved_tensors``. The
# gradient of ``sum(x * w)`` is ``w`` for ``x`` and ``x`` for ``w``:


class FixedWeightedSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        tensors = [x, w]
        ctx.save_for_backward(*tensors)
        return (x * w).sum()

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output * w, grad_output * x


x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
FixedWeightedSum.apply(x, w).backward()  # fix: packed-tensors
torch.testing.assert_close(x.grad, w.detach())
torch.testing.assert_close(w.grad, x.detach())

# %%
# ``None`` is accepted too, as a placeholder for an optional tensor (a bias that may be
# missing), and comes back as ``None``.
#
# The pitfall: tensors as ``ctx`` attributes
# ------------------------------------------
# Storing the *tensor* as an attribute (``ctx.y = y``) also runs, and loses everything listed
# at the top. Here the output is doubled in place after the forward. With
# ``save_for_backward``, autograd notices (that is :doc:`/errors/inplace/inplace-modified`):


def saved_output_changed_in_place():
    x = torch.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
    y = FixedSoftmax.apply(x, 0)
    y.mul_(2)
    try:
        (y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


saved_output_changed_in_place()

# %%
# With an attribute, nothing is checked: backward reads the doubled ``y`` and returns a wrong
# gradient without a word.


class AttributeSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.softmax(x, dim)
        ctx.y = y  # no version check, and a reference cycle
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y = ctx.y
        return y * (grad_output - (grad_output * y).sum(ctx.dim, keepdim=True)), None


weights = torch.tensor([1.0, 2.0, 3.0, 4.0])
x = torch.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
y = AttributeSoftmax.apply(x, 0)
y.mul_(2)
(y * weights).sum().backward()

x_ref = torch.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
(2 * torch.softmax(x_ref, 0) * weights).sum().backward()
print("true gradient:   ", x_ref.grad)
print("what .grad holds:", x.grad)
assert not torch.allclose(x.grad, x_ref.grad)

# %%
# ``ctx.y = y`` on an output also makes a cycle (``y`` holds its ``grad_fn``, which holds
# ``ctx``, which holds ``y``): the memory is only reclaimed by Python's garbage collector, not
# when the last reference goes away.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: save-for-backward-non-tensor
