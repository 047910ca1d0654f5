"""
once-differentiable-double-backward
===================================

.. autograd-entry:: once-differentiable-double-backward

What ``@once_differentiable`` promises
--------------------------------------

A custom ``torch.autograd.Function`` supplies its own ``backward``. When that backward is written
with torch operations, autograd can record it like any other computation, and a gradient computed
with ``create_graph=True`` can be differentiated again. A backward that cannot be recorded (a
CUDA kernel, NumPy code, anything that leaves torch) is decorated with ``@once_differentiable``,
which makes the promise explicit: the decorator runs ``backward`` under ``torch.no_grad()``.

The error is deferred. When the decorated backward runs in a double-backward setting (grad mode
on, and an incoming gradient that requires grad), the decorator returns its result through an
error node (``torch._C._functions.DelayedError``, whose class prints as ``Error``). The
first-order gradient comes out fine; the node raises only when something differentiates it.
"""

import torch
from torch.autograd.function import once_differentiable


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad((Square.apply(x) ** 2).sum(), x, create_graph=True)
print("d(x^4)/dx =", grad.detach(), " grad_fn:", type(grad.grad_fn).__name__)

# %%
# The repro
# ---------
# Differentiating that gradient once more:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad((Square.apply(x) ** 2).sum(), x, create_graph=True)  # broken
try:
    grad.sum().backward()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``backward()`` reaches the error node and raises. ``torch.autograd.grad`` of the same gradient
# reports something else: the error node does not lead back to ``x``, so torch says that ``x`` was
# not used (:doc:`/errors/backward-api/unused-input`):


def autograd_grad_case():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (grad,) = torch.autograd.grad((Square.apply(x) ** 2).sum(), x, create_graph=True)
    try:
        torch.autograd.grad(grad.sum(), x)
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


autograd_grad_case()

# %%
# A gradient penalty on the same gradient fails alike:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad((Square.apply(x) ** 2).sum(), x, create_graph=True)
try:
    grad.pow(2).sum().backward()  # cause: own-function-decorated
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Whether the error appears depends on what flows into the decorated backward. Here
# ``Square.apply(x).sum()`` hands it a gradient of ones, which does not require grad; the decorator
# then returns a plain tensor, and the second backward fails with another message, that of
# :doc:`/errors/graph/no-grad-fn`:


def plain_gradient_case():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (grad,) = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    print("grad.requires_grad:", grad.requires_grad)
    try:
        grad.sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


plain_gradient_case()

# %%
# The real-world version: an eikonal loss
# ---------------------------------------
# Neural signed distance functions are trained with an eikonal term: the gradient of the
# distance with respect to the point (the surface normal) should have norm 1. That term needs the
# gradient of a gradient. Input encodings from compiled libraries mark their backward
# ``@once_differentiable``: tiny-cuda-nn's hash grid did until its authors added a double
# backward in March 2022 (NVlabs/tiny-cuda-nn#69; the report that led to it is #50), and other
# libraries' encodings still do (PJLab-ADG/nr3d_lib#5). Here a Fourier-feature encoding stands in
# for them:

frequencies = torch.randn(3, 8, dtype=torch.float64)


class Encoding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, points):
        ctx.save_for_backward(points)
        return torch.sin(points @ frequencies)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (points,) = ctx.saved_tensors
        return (grad_output * torch.cos(points @ frequencies)) @ frequencies.T


head = torch.nn.Linear(8, 1).double()
points = torch.randn(16, 3, dtype=torch.float64, requires_grad=True)
sdf = head(Encoding.apply(points))
(normals,) = torch.autograd.grad(sdf.sum(), points, create_graph=True)
eikonal = (normals.norm(dim=1) - 1).pow(2).mean()
try:
    eikonal.backward()  # cause: compiled-encoding
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Meta-learning takes the same road: the outer loss is differentiated through an inner gradient
# step taken with ``create_graph=True`` (MAML, or ``higher``'s differentiable optimisers with
# ``track_higher_grads=True``, facebookresearch/higher#137):

weights = torch.tensor([0.5, -1.0, 0.25], requires_grad=True)
(inner_grad,) = torch.autograd.grad(Square.apply(weights).pow(2).sum(), weights, create_graph=True)
adapted = weights - 0.1 * inner_grad
try:
    adapted.pow(2).sum().backward()  # cause: meta-learning-inner-step
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: a backward made of differentiable operations
# ---------------------------------------------------
# When the backward is written with torch operations, as ``Square``'s is, the decorator is not
# needed: without it, autograd records the backward whenever ``create_graph=True`` asks for it.
# The second derivative of :math:`\sum x^4` is :math:`12x^2`:


class DifferentiableSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_output):  # fixed: no @once_differentiable
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad((DifferentiableSquare.apply(x) ** 2).sum(), x, create_graph=True)
grad.sum().backward()  # fixed
torch.testing.assert_close(grad.detach(), 4 * x.detach() ** 3)
torch.testing.assert_close(x.grad, 12 * x.detach() ** 2)
print("d2/dx2 sum(x^4) =", x.grad)

# %%
# The gradient penalty :math:`\sum (4x^3)^2` has the gradient :math:`96x^5`:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad((DifferentiableSquare.apply(x) ** 2).sum(), x, create_graph=True)
grad.pow(2).sum().backward()  # fix: own-function-decorated
torch.testing.assert_close(x.grad, 96 * x.detach() ** 5)

# %%
# The same Function makes the meta-learning step differentiable. The adapted weights are
# :math:`w' = w - 0.1 \cdot 4w^3`, so the outer gradient of :math:`\sum w'^2` is
# :math:`2w'(1 - 1.2w^2)`:

weights = torch.tensor([0.5, -1.0, 0.25], requires_grad=True)
inner_loss = DifferentiableSquare.apply(weights).pow(2).sum()
(inner_grad,) = torch.autograd.grad(inner_loss, weights, create_graph=True)
adapted = weights - 0.1 * inner_grad
adapted.pow(2).sum().backward()  # fix: meta-learning-inner-step
w = weights.detach()
expected_adapted = w - 0.4 * w**3
torch.testing.assert_close(weights.grad, 2 * expected_adapted * (1 - 1.2 * w**2))

# %%
# ``torch.autograd.gradgradcheck`` compares such a double backward with finite differences, and
# is worth running on any ``Function`` you intend to differentiate twice.
#
# Fix 2: finite-difference normals around a compiled kernel
# ---------------------------------------------------------
# A compiled backward cannot be rewritten. One way out keeps it first-order: estimate the normals
# from extra forward passes, so that the eikonal loss only ever needs the encoding's (working)
# first derivative; tiny-cuda-nn's authors gave that advice before its hash grid had a double
# backward (NVlabs/tiny-cuda-nn#50). The other is a layer that has a double backward: for
# tiny-cuda-nn, ``tcnn.Encoding`` followed by a torch MLP, since its fused networks have none
# and fail with a message of their own,
# ``DifferentiableObject::backward_backward_input_impl: not implemented error``
# (NVlabs/tiny-cuda-nn#156 and #176, where the maintainers recommend that composition).


def sdf_of(points: torch.Tensor) -> torch.Tensor:
    return head(Encoding.apply(points)).squeeze(1)


def finite_difference_normals(points: torch.Tensor, step: float = 1e-5) -> torch.Tensor:
    offsets = step * torch.eye(3, dtype=points.dtype)
    columns = [(sdf_of(points + e) - sdf_of(points - e)) / (2 * step) for e in offsets]
    return torch.stack(columns, dim=1)


points = torch.randn(16, 3, dtype=torch.float64)
head.zero_grad()
normals = finite_difference_normals(points)  # fixed
eikonal = (normals.norm(dim=1) - 1).pow(2).mean()  # fix: compiled-encoding
eikonal.backward()  # fixed
fd_grad = head.weight.grad.clone()

# %%
# The check computes the exact eikonal gradient along another path: the same encoding written
# with ``torch.sin``, differentiated twice by autograd.

head.zero_grad()
points = points.requires_grad_()
exact_sdf = head(torch.sin(points @ frequencies)).squeeze(1)
(exact_normals,) = torch.autograd.grad(exact_sdf.sum(), points, create_graph=True)
(exact_normals.norm(dim=1) - 1).pow(2).mean().backward()
torch.testing.assert_close(fd_grad, head.weight.grad, rtol=1e-5, atol=1e-8)
print("eikonal gradient (first weights):", fd_grad[0, :4])

# %%
# The pitfall: dropping the decorator from a backward that is not differentiable
# --------------------------------------------------------------------------------
# Removing ``@once_differentiable`` silences the error even when the backward leaves autograd's
# sight, and the second derivative is then silently wrong. This backward reads the saved input
# through ``detach()`` (NumPy or a compiled kernel have the same effect): the double backward
# misses the terms that go through ``x``, and gives :math:`8x^2` instead of :math:`12x^2`.


class LeakySquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x.detach() * grad_output


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad((LeakySquare.apply(x) ** 2).sum(), x, create_graph=True)
grad.sum().backward()
print("true second derivative:", 12 * x.detach() ** 2)
print("what x.grad holds:     ", x.grad)
assert not torch.allclose(x.grad, 12 * x.detach() ** 2)

# %%
# The silent case: another path gives the gradient a graph
# --------------------------------------------------------
# The decorator raises only when the gradient it receives requires grad. When it receives a
# plain one, it returns a plain tensor, and the second backward fails with another message (as
# shown above), unless another path makes the total gradient require grad. Then nothing fails:
# the second derivative is computed along the other path only. For
# :math:`\sum x^2 + \sum x^3`, the second derivative is :math:`2 + 6x`; with the square
# computed by ``Square``, the 2 is missing:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(grad,) = torch.autograd.grad(Square.apply(x).sum() + x.pow(3).sum(), x, create_graph=True)
grad.sum().backward()
print("true second derivative:", 2 + 6 * x.detach())
print("what x.grad holds:     ", x.grad)
torch.testing.assert_close(x.grad, 6 * x.detach())

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: once-differentiable-double-backward
