"""
grads-floating-type
===================

.. autograd-entry:: grads-floating-type

Integer tensors in the graph, before torch 1.6
----------------------------------------------

Gradients only make sense for floating-point (and complex) values: an integer tensor cannot
move by an infinitesimal step. The engine relies on it, and up to torch 1.5 it checked every
gradient a backward function returned with a bare ``TORCH_CHECK(isFloatingType(...))``.

Nothing stopped integer tensors from *requiring* grad, though. A custom ``autograd.Function``
marked all its outputs as requiring grad whenever an input did, integer ones included; so did a
few built-in operations such as ``argmax``. The farthest-point sampling and grouping operations
of PointNet++-style code (VoteNet, 3DSSD, IA-SSD, P2B...) return integer indices from a custom
Function, and their users met this message at the first ``loss.backward()``: backward computed
integer gradients for those indices, or for integer values derived from them, and the check
failed.

Torch 1.6 closed the hole at the source: integer outputs never require grad (PR #37789 for the
built-in operations, PR #38326 for custom Functions). The check is unreachable in the common
case, and the message is retired. This page shows what current torch does instead.
"""

import torch

# %%
# Integer outputs of a custom Function are non-differentiable
# -----------------------------------------------------------
# A stand-in for furthest point sampling: it picks ``k`` point indices (here simply the points
# farthest from the origin) and returns them as ``int64``, without marking anything.


class SamplePoints(torch.autograd.Function):
    @staticmethod
    def forward(ctx, points, k):
        return points.norm(dim=1).argsort(descending=True)[:k]

    @staticmethod
    def backward(ctx, grad_idx):
        return None, None


points = torch.tensor(
    [[0.1, 0.2], [2.0, 1.0], [0.5, -0.3], [-1.5, 2.5], [0.0, 0.1]], requires_grad=True
)
idx = SamplePoints.apply(points, 2)
print(f"idx = {idx.tolist()}, dtype={idx.dtype}, requires_grad={idx.requires_grad}")
assert not idx.requires_grad
assert idx.grad_fn is None

# %%
# Torch 1.5 and older would have given ``idx`` a ``grad_fn`` and ``requires_grad=True``. Now the
# indices are plain data, and the float path through them differentiates as it should. The
# gradient of ``sum(points[idx])`` is 1 for each coordinate of a picked point, 0 elsewhere:

picked = points[idx]
picked.sum().backward()
expected = torch.zeros(5, 2)
expected[[3, 1]] = 1.0
torch.testing.assert_close(points.grad, expected)
print("points.grad =", points.grad)

# %%
# The built-in operations follow the same rule: ``argmax``, ``argsort`` and a conversion to an
# integer dtype give tensors that do not require grad.

x = torch.randn(4, requires_grad=True)
assert not x.argmax().requires_grad
assert not x.argsort().requires_grad
assert not x.long().requires_grad

# %%
# The fix old releases needed: ``ctx.mark_non_differentiable``
# ------------------------------------------------------------
# On torch 1.5 and earlier, the cure was to say it explicitly in ``forward``. It works on every
# release, documents the intent, and still matters for *float* outputs that have no gradient,
# which torch cannot guess: a mask, a count, a distance used only for selection.


class SampleWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, points, k):
        idx = points.norm(dim=1).argsort(descending=True)[:k]
        mask = torch.zeros(points.shape[0], dtype=points.dtype)
        mask[idx] = 1.0
        ctx.mark_non_differentiable(idx, mask)
        return idx, mask

    @staticmethod
    def backward(ctx, grad_idx, grad_mask):
        return None, None


points = torch.tensor(
    [[0.1, 0.2], [2.0, 1.0], [0.5, -0.3], [-1.5, 2.5], [0.0, 0.1]], requires_grad=True
)
idx, mask = SampleWithMask.apply(points, 2)
print(f"mask = {mask.tolist()}, requires_grad={mask.requires_grad}")
assert not mask.requires_grad
(points * mask[:, None]).sum().backward()
torch.testing.assert_close(points.grad, mask[:, None].expand(5, 2))

# %%
# Without ``mark_non_differentiable``, the float ``mask`` would require grad: everything
# computed from it would be recorded for backward, and ``backward`` would be called with a
# gradient for it that means nothing.
#
# The check itself is still there
# -------------------------------
# The engine still refuses an integer gradient where it cannot be cast: a custom backward that
# returns integers for a *complex* input trips the descendant of the old check, with a longer
# condition (an integer gradient for a float input is cast to float instead).


def integer_gradient_for_a_complex_input():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * 2

        @staticmethod
        def backward(ctx, grad_output):
            return torch.ones(grad_output.shape, dtype=torch.int64)

    z = torch.randn(3, dtype=torch.complex64, requires_grad=True)
    try:
        Bad.apply(z).abs().sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


integer_gradient_for_a_complex_input()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: grads-floating-type
