"""
forward-ad-not-implemented
==========================

.. autograd-entry:: forward-ad-not-implemented

Forward mode needs a formula of its own
---------------------------------------

Reverse mode (``backward()``, ``grad``, ``jacrev``) runs each operation's backward formula, from
the outputs back. Forward mode (``torch.func.jvp``, ``jacfwd``, ``hessian``, which is
``jacfwd(jacrev(f))``, and ``torch.autograd.forward_ad``) carries a *tangent* beside every
value and updates it as each operation runs, with the operation's forward-derivative formula.
The two formulas are written separately, in ``derivatives.yaml``; most operations have both,
some have only the backward one: the fused attention kernels behind
``F.scaled_dot_product_attention``, ``torch.cdist``, ``grid_sample``, ``ctc_loss``,
``embedding_bag``, a few in-place and ``out=`` variants. When a tensor that carries a tangent
reaches one of them, torch raises, at the operation, during the forward pass.
"""

import math

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F
from torch.func import jacfwd, jvp

# %%
# The repro
# ---------
# The Jacobian of the distances from two points to four anchors, with ``jacfwd``: it pushes
# one tangent per input coordinate through ``torch.cdist``, which has no forward formula.

anchors = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0]])
points = torch.tensor([[0.5, -1.0, 0.0], [2.0, 0.5, -0.5]])


def distances(points):
    return torch.cdist(points, anchors)  # broken


try:
    jacfwd(distances)(points)  # broken  # cause: op-without-formula
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# The distance of point ``i`` to anchor ``j`` depends on point ``i`` only, with the derivative
# :math:`(p_i - a_j) / \lVert p_i - a_j \rVert`; the Jacobian, of shape ``[2, 4, 2, 3]``, is
# that vector where the two ``i`` agree and zero elsewhere:

offsets = points[:, None, :] - anchors  # [2, 4, 3]
expected = torch.zeros(2, 4, 2, 3)
for i in range(2):
    expected[i, :, i, :] = offsets[i] / offsets[i].norm(dim=-1, keepdim=True)

# %%
# Fix 1: reverse mode
# -------------------
# A Jacobian is as well computed backwards, one backward pass per output instead of one
# tangent per input: ``torch.autograd.functional.jacobian`` (reverse mode by default) uses the
# backward formula, which ``cdist`` has. (For a Jacobian-vector product,
# ``torch.autograd.functional.jvp`` does the same with two backward passes, and needs the
# backward to be differentiable in turn.)

jacobian = torch.autograd.functional.jacobian(distances, points)  # fixed  # fix: op-without-formula
torch.testing.assert_close(jacobian, expected)
print("jacobian.shape:", tuple(jacobian.shape))

# %%
# Fix 2: the same function from operations forward mode supports
# --------------------------------------------------------------
# When forward mode is the point (a JVP of a large model, a Hessian as ``jacfwd(jacrev(f))``),
# write the operation with others that have a forward formula. Here the norm of the
# differences:


def distances_by_norm(points):
    return (points[:, None, :] - anchors).norm(dim=-1)  # fix: op-without-formula


torch.testing.assert_close(jacfwd(distances_by_norm)(points), expected)
hessian = torch.func.hessian(lambda p: distances_by_norm(p).sum())(points)
print("hessian.shape:", tuple(hessian.shape))

# %%
# Attention
# ---------
# The case most reported. ``F.scaled_dot_product_attention`` runs a fused kernel (flash or
# memory-efficient attention, on a GPU; a flash kernel on the CPU) that has a backward formula
# and no forward one, so the JVP of a transformer stops there:

query = torch.randn(1, 2, 5, 4)
tangent = torch.randn(1, 2, 5, 4)


def self_attention(q):
    return F.scaled_dot_product_attention(q, q, q)


try:
    jvp(self_attention, (query,), (tangent,))  # cause: fused-attention
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# Fix 3: the math implementation of attention
# -------------------------------------------
# ``scaled_dot_product_attention`` also has an implementation made of ordinary operations
# (matrix products and a softmax), which forward mode differentiates. Select it for the pass
# that needs forward mode: ``torch.nn.attention.sdpa_kernel(SDPBackend.MATH)`` from torch 2.3,
# ``torch.backends.cuda.sdp_kernel(enable_math=True, ...)`` before (it also governs the CPU).


def math_attention_only():
    """The context manager that restricts attention to its math implementation, on this torch."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # torch 2.0 to 2.2
        return torch.backends.cuda.sdp_kernel(
            enable_flash=False, enable_mem_efficient=False, enable_math=True
        )
    return sdpa_kernel(SDPBackend.MATH)


with math_attention_only():  # fixed  # fix: fused-attention
    attended, attended_tangent = jvp(self_attention, (query,), (tangent,))  # fix: fused-attention

# %%
# The check writes attention out by hand, :math:`\operatorname{softmax}(QK^\top/\sqrt{d})\,V`,
# and differentiates it with the same ``jvp``:


def attention_by_hand(q):
    weights = torch.softmax(q @ q.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return weights @ q


expected_value, expected_tangent = jvp(attention_by_hand, (query,), (tangent,))
torch.testing.assert_close(attended, expected_value)
torch.testing.assert_close(attended_tangent, expected_tangent)

# %%
# In-place and ``out=`` variants
# ------------------------------
# A few in-place operations lack the forward formula that their out-of-place form has, and no
# ``out=`` call supports forward mode; the message then says which. Both raise only when a
# tensor that carries a tangent reaches them:

x = torch.tensor([1.5, 2.0, 3.0])
x_tangent = torch.ones(3)
try:
    with fwAD.dual_level():
        fwAD.make_dual(x, x_tangent).clone().acosh_()
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

try:
    with fwAD.dual_level():
        torch.sin(fwAD.make_dual(x, x_tangent), out=torch.empty(3))
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# The out-of-place operations have their formulas: the tangent of ``acosh`` is
# :math:`t / \sqrt{x^2 - 1}`, that of ``sin`` is :math:`t \cos x`.

with fwAD.dual_level():
    dual = fwAD.make_dual(x, x_tangent)
    acosh_tangent = fwAD.unpack_dual(torch.acosh(dual)).tangent
    sin_tangent = fwAD.unpack_dual(torch.sin(dual)).tangent
torch.testing.assert_close(acosh_tangent, 1 / torch.sqrt(x**2 - 1))
torch.testing.assert_close(sin_tangent, torch.cos(x))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: forward-ad-not-implemented
