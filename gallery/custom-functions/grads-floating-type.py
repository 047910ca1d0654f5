"""
grads-floating-type
===================

.. autograd-entry:: grads-floating-type

The engine's dtype check
------------------------

After every backward function, the engine checks each gradient it returned before passing it
on. A gradient of another floating-point dtype than its input is cast silently. Two kinds are
refused, by a bare internal check whose message is the condition itself: a gradient that is
neither floating point nor of the same complexity as its input. In practice, since torch 1.6,
that is a **complex gradient for a real input** (the imaginary part would have to be dropped,
and torch will not do it silently), or an integer gradient for a complex input.

Complex gradients meet real inputs where one operation mixes the two: a reduction asked for a
complex result from a real tensor, ``torch.where`` with a real branch and a complex one, or a
custom backward that leaves the gradient complex (FFT code). Operations whose backward formulas
take the real part themselves (``torch.complex``, ``torch.polar``, multiplying by ``1j``) are
fine.

Up to torch 1.5, the check was ``isFloatingType(grads[i]...)`` alone, and it met integer
gradients: integer outputs of custom Functions required grad (the indices of PointNet++'s
sampling operations), and backward sent integer gradients towards them. Torch 1.6 made integer
outputs non-differentiable (PRs #37789 and #38326) and extended the check for complex autograd;
the end of this page shows what became of the old case.
"""

import torch

# %%
# The repro
# ---------
# A sum asked for a complex result from a real tensor. The forward pass is fine; the backward of
# ``sum`` hands the complex gradient to the real input:

x = torch.tensor([[0.5, 1.0], [2.0, 0.25]], requires_grad=True)
total = torch.sum(x, dtype=torch.complex64)  # broken
try:
    total.abs().backward()  # cause: complex-dtype-reduction
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``torch.mean(x, dtype=...)`` fails the same way (pytorch/pytorch#192719):

try:
    torch.mean(x, dtype=torch.complex64).abs().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# So does ``torch.where`` between a real tensor that requires grad and a complex one, as
# quantum-circuit and complex-network code writes it:

phases = torch.tensor([0.2, 0.7, 0.9], requires_grad=True)
mixed = torch.where(phases > 0.5, phases, 1j * phases)
try:
    mixed.abs().sum().backward()  # cause: real-and-complex-mixed
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And a custom backward that computes its gradient in the frequency domain and forgets to come
# back to real numbers:


class FourierScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, signal):
        return 2 * signal

    @staticmethod
    def backward(ctx, grad_output):
        # (contiguous: the gradient of .sum() is an expanded tensor, whose FFT the MKL of torch
        # 2.5 to 2.8 refuses, "Inconsistent configuration parameters": pytorch/pytorch#154477)
        return torch.fft.ifft(2 * torch.fft.fft(grad_output.contiguous()))  # complex


signal = torch.randn(8, requires_grad=True)
try:
    FourierScale.apply(signal).sum().backward()  # cause: custom-backward-complex
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: make the input complex first
# -----------------------------------
# Cast the real tensor to the complex dtype yourself: the backward of the cast takes the real
# part of the gradient, as it should. The gradient of :math:`|\sum x|` is 1 for every element
# of a positive ``x``:

x = torch.tensor([[0.5, 1.0], [2.0, 0.25]], requires_grad=True)
total = x.to(torch.complex64).sum()  # fixed
total.abs().backward()  # fix: complex-dtype-reduction
torch.testing.assert_close(x.grad, torch.ones(2, 2))

phases = torch.tensor([0.2, 0.7, 0.9], requires_grad=True)
mixed = torch.where(phases > 0.5, phases.to(torch.complex64), 1j * phases)
mixed.abs().sum().backward()  # fix: real-and-complex-mixed
torch.testing.assert_close(phases.grad, torch.ones(3))

# %%
# Fix 2: return a gradient of the input's dtype
# ---------------------------------------------
# The gradient of a real input is real: take ``.real`` (or compute it in real arithmetic).


class FixedFourierScale(FourierScale):
    @staticmethod
    def backward(ctx, grad_output):
        return torch.fft.ifft(2 * torch.fft.fft(grad_output.contiguous())).real


signal = torch.randn(8, requires_grad=True)
FixedFourierScale.apply(signal).sum().backward()  # fix: custom-backward-complex
torch.testing.assert_close(signal.grad, torch.full((8,), 2.0))

# %%
# An integer gradient for a complex input trips the same check:


class IntegerGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z):
        return z * 2

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones(grad_output.shape, dtype=torch.int64)


z = torch.randn(3, dtype=torch.complex64, requires_grad=True)
try:
    IntegerGradient.apply(z).abs().sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Before torch 1.6: integer outputs
# ---------------------------------
# Integer outputs of a custom Function are non-differentiable today. A stand-in for furthest
# point sampling: it picks ``k`` point indices (here simply the points
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

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: grads-floating-type
