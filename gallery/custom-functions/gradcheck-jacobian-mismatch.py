"""
gradcheck-jacobian-mismatch
===========================

.. autograd-entry:: gradcheck-jacobian-mismatch

Two Jacobians that should agree
-------------------------------

``torch.autograd.gradcheck(fn, inputs)`` tests a backward against the forward it belongs to.
It builds the Jacobian of ``fn`` twice: *analytically*, by running backward (the ``backward`` of
your custom Function, or torch's derivative formulas) once per output element, and
*numerically*, by finite differences: each input element is moved by ``eps`` (``1e-6``) up and
down, and ``(f(x + eps) - f(x - eps)) / (2 * eps)`` is the slope. When the two differ by more
than ``atol + rtol * |numerical|`` anywhere, it raises, and prints both matrices: rows are input
elements, columns output elements.

A mismatch means one of three things: the backward is wrong, the finite differences are wrong
(too little precision, or a point where ``fn`` has no derivative), or ``fn`` is not a function
of its inputs alone (it draws random numbers).
"""

import torch

# %%
# The repro
# ---------
# A custom Function for ``x ** 3`` whose backward forgot the factor 3:


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x**2  # d(x^3)/dx is 3 x^2


x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(Cube.apply, (x,))  # broken
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %%
# The numerical column is ``3 x^2`` on the diagonal, the analytical one ``x^2``: the backward is
# off by exactly the missing factor.
#
# Common causes
# -------------
# A backward that does not compute the derivative of the forward: a missing factor or term, a
# transpose, the gradient of the wrong input. Here a product whose backward returns the
# gradients in the wrong order:


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * a, grad * b  # d(ab)/da is b, d(ab)/db is a


a = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
b = torch.tensor([3.0, -4.0], dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(Mul.apply, (a, b))  # cause: wrong-backward
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %%
# Inputs in ``float32``. With 24 bits of mantissa, ``f(x + 1e-6) - f(x - 1e-6)`` keeps only a
# digit or two: the numerical Jacobian is noise, and even ``torch.sin`` fails. Torch warns first
# that the inputs are not double precision:

angles = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)  # float32
try:
    torch.autograd.gradcheck(torch.sin, (angles,))  # cause: float32-inputs
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %%
# Inputs at a point where the function has no derivative: ``relu`` or ``abs`` at 0, ``max`` with
# ties, a ``clamp`` at its bound. The central difference there averages the two slopes (0.5 for
# ReLU at 0) while backward picks one (0). Inputs made with ``torch.empty`` or ``torch.zeros``
# land on such points easily:

z = torch.tensor([0.0, 1.0, -1.0], dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(torch.relu, (z,))  # cause: non-differentiable-point
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %%
# The same check for forward-mode AD (``check_forward_ad=True``, for a Function with a ``jvp``)
# has a wording of its own. Here the ``jvp`` of the cube forgets the factor 3 too:


class CubeWithJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * grad * x**2

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return tangent * x**2  # should be 3 x^2 tangent


try:
    torch.autograd.gradcheck(CubeWithJvp.apply, (x,), check_forward_ad=True)
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")

# %%
# Fix 1: the derivative of the forward
# ------------------------------------
# Write the backward from the forward's derivative, one input at a time; ``gradcheck`` then
# returns ``True``:


class FixedCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * grad * x**2  # fixed


class FixedMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


assert torch.autograd.gradcheck(FixedCube.apply, (x,))
assert torch.autograd.gradcheck(FixedMul.apply, (a, b))  # fix: wrong-backward
FixedCube.apply(x).sum().backward()
torch.testing.assert_close(x.grad, 3 * x.detach() ** 2)

# %%
# Fix 2: check in double precision
# --------------------------------
# Run ``gradcheck`` on ``float64`` inputs (``x.double()``, and ``module.double()`` for a module's
# parameters): the finite differences are then accurate to about ``1e-10``. The function itself
# can stay ``float32`` everywhere else.

angles64 = angles.detach().double().requires_grad_()
assert torch.autograd.gradcheck(torch.sin, (angles64,))  # fix: float32-inputs

# %%
# Fix 3: inputs away from the kinks
# ---------------------------------
# Pick inputs farther than ``eps`` from the points where the function has no derivative (random
# values are almost surely fine; avoid ``torch.empty``, zeros and repeated values):

z = torch.tensor([0.25, 1.0, -1.0], dtype=torch.double, requires_grad=True)
assert torch.autograd.gradcheck(torch.relu, (z,))  # fix: non-differentiable-point
torch.relu(z).sum().backward()
torch.testing.assert_close(z.grad, torch.tensor([1.0, 1.0, 0.0], dtype=torch.double))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: gradcheck-jacobian-mismatch
