"""
function-no-backward
====================

.. autograd-entry:: function-no-backward

What autograd calls, and when
-----------------------------

``Function.apply`` runs your ``forward`` at once and records a node of the graph for it. It
does not check which other methods the class has: ``torch.autograd.Function`` itself defines
``backward`` (and its alias ``vjp``) and ``jvp``, and those defaults raise. So a Function with
only a ``forward`` works until a derivative is needed: ``backward()`` (or
``torch.autograd.grad``) reaches its node and calls the default ``backward``, and forward-mode
AD (``torch.autograd.forward_ad``, ``torch.func.jvp``, ``jacfwd``, ``hessian``) calls the
default ``jvp`` as soon as a dual tensor goes through ``apply``.

The traceback of the first points into ``torch/autograd/function.py``, inside the backward
pass, far from the Function that lacks the method; its forward ran without complaint.
"""

import torch
import torch.autograd.forward_ad as fwAD

# %%
# The repro
# ---------
# A distance that a library computes in its own kernel, wrapped in a Function written for
# inference: only ``forward``. Here the kernel is plain torch, the distance of each point to a
# reference point.


class PointDistance(torch.autograd.Function):  # broken
    @staticmethod
    def forward(ctx, points, reference):
        return (points - reference).norm(dim=-1)


points = torch.randn(5, 3, requires_grad=True)
reference = torch.zeros(3)
distances = PointDistance.apply(points, reference)
print("forward ran:", tuple(distances.shape), type(distances.grad_fn).__name__)
try:
    distances.mean().backward()  # broken  # cause: forward-only-function
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# Fix 1: write the backward
# -------------------------
# ``backward`` gets one gradient per output of ``forward`` and returns one per input: here the
# gradient of :math:`\lVert p - r \rVert` with respect to ``points`` is
# :math:`(p - r) / \lVert p - r \rVert`, and ``None`` for ``reference``, which needs none.
# The check is the same distance written with ordinary operations, differentiated by autograd.


class PointDistanceWithBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, points, reference):
        offsets = points - reference
        distances = offsets.norm(dim=-1)
        ctx.save_for_backward(offsets, distances)
        return distances

    @staticmethod
    def backward(ctx, grad_distances):  # fixed
        offsets, distances = ctx.saved_tensors
        grad_points = grad_distances.unsqueeze(-1) * offsets / distances.unsqueeze(-1)
        return grad_points, None


points = torch.randn(5, 3, requires_grad=True)
PointDistanceWithBackward.apply(points, reference).mean().backward()  # fix: forward-only-function
expected = torch.autograd.grad((points - reference).norm(dim=-1).mean(), points)[0]
torch.testing.assert_close(points.grad, expected)
print("points.grad[0] =", points.grad[0])

# %%
# An output that should carry no gradient
# ---------------------------------------
# Point-cloud and detection code has Functions that *select*: they sample points, or return
# the coordinates of the nearest neighbours. Their outputs are floating point and computed
# from inputs that require grad, so autograd makes them require grad as well, and a loss built
# from them reaches the Function's missing ``backward``:


class NearestNeighbour(torch.autograd.Function):
    @staticmethod
    def forward(ctx, queries, candidates):
        index = torch.cdist(queries, candidates).argmin(dim=1)
        return candidates[index]


queries = torch.randn(4, 3, requires_grad=True)
candidates = torch.randn(6, 3, requires_grad=True)
nearest = NearestNeighbour.apply(queries, candidates)
print("nearest.requires_grad:", nearest.requires_grad)
try:
    (queries - nearest).pow(2).sum().backward()  # cause: non-differentiable-output
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# Fix 2: mark the output non-differentiable
# -----------------------------------------
# If no gradient is meant to flow through the selection (the matched points are targets,
# like labels), say so in ``forward``: ``ctx.mark_non_differentiable`` makes the output a
# constant for autograd, and the Function needs no ``backward``. The gradient of the loss with
# respect to ``queries`` is then ``2 * (queries - nearest)``, with ``nearest`` held fixed; the
# ``candidates`` get none. (Feeding the Function ``candidates.detach()`` instead does the same
# for that input, and calling it on data that requires no grad never builds the node at all.)


class NearestNeighbourConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, queries, candidates):
        index = torch.cdist(queries, candidates).argmin(dim=1)
        nearest = candidates[index]
        ctx.mark_non_differentiable(nearest)  # fixed
        return nearest


queries = torch.randn(4, 3, requires_grad=True)
candidates = torch.randn(6, 3, requires_grad=True)
nearest = NearestNeighbourConstant.apply(queries, candidates)  # fix: non-differentiable-output
(queries - nearest).pow(2).sum().backward()
torch.testing.assert_close(queries.grad, 2 * (queries - nearest).detach())
assert candidates.grad is None
print("nearest.requires_grad:", nearest.requires_grad, " queries.grad[0] =", queries.grad[0])

# %%
# Forward mode: ``jvp`` is missing
# --------------------------------
# Forward-mode AD pushes a tangent through each operation as it runs, so it needs the
# Jacobian-vector product of the Function, its ``jvp``; a ``backward`` cannot stand in for it.
# The Function below has a correct ``backward``, and fails as soon as a dual tensor (a value
# with its tangent) goes through it. ``torch.func.jvp``, ``jacfwd`` and ``hessian`` (which is
# ``jacfwd`` of ``jacrev``) go through the same path.


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = torch.tensor([1.0, 2.0, 3.0])
tangent = torch.ones(3)
try:
    with fwAD.dual_level():
        Cube.apply(fwAD.make_dual(x, tangent))  # cause: forward-mode-no-jvp
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# Fix 3: write the ``jvp``, or stay in reverse mode
# -------------------------------------------------
# ``jvp`` receives the tangent of each input and returns the tangent of each output. It reads
# what it needs from ``ctx``: tensors saved with ``ctx.save_for_forward`` (``save_for_backward``
# is for ``backward``). The tangent of :math:`x^3` in the direction ``t`` is
# :math:`3x^2 t`:


class CubeWithJvp(Cube):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)  # fixed
        return x**3

    @staticmethod
    def jvp(ctx, x_tangent):  # fixed
        (x,) = ctx.saved_tensors  # fixed
        return 3 * x**2 * x_tangent  # fixed


with fwAD.dual_level():
    out = CubeWithJvp.apply(fwAD.make_dual(x, tangent))  # fix: forward-mode-no-jvp
    value, out_tangent = fwAD.unpack_dual(out)
torch.testing.assert_close(value, x**3)
torch.testing.assert_close(out_tangent, 3 * x**2)
print("tangent of x**3:", out_tangent)

# %%
# When the Function is not yours, compute the same quantity in reverse mode: a
# Jacobian-vector product of a function with one output per input is the derivative times the
# vector, and ``torch.autograd.functional.jvp`` computes any JVP with two backward passes
# (``create_graph`` through the Function's ``backward``, which must itself be differentiable,
# as this one is).

jvp = torch.autograd.functional.jvp
_, jvp_by_backward = jvp(Cube.apply, x, tangent)  # fix: forward-mode-no-jvp
torch.testing.assert_close(jvp_by_backward, 3 * x**2)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: function-no-backward
