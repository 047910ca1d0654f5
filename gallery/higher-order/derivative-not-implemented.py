"""
derivative-not-implemented
==========================

.. autograd-entry:: derivative-not-implemented

Where backward formulas come from
---------------------------------

Every differentiable operation records a backward node, and that node knows one derivative
formula per input. The formulas live in a table in the PyTorch source (``derivatives.yaml``),
from which the node classes are generated. ``torch.special.gammainc(a, x)``, the regularized
lower incomplete gamma function :math:`P(a, x)`, records an ``IgammaBackward0`` node with two
entries: the derivative with respect to ``x`` (a simple closed form,
:math:`x^{a-1} e^{-x} / \\Gamma(a)`), and the derivative with respect to the shape ``a``, for which
the table holds a placeholder, ``not_implemented("igamma: input")``.

The placeholder costs nothing until it is used: the forward pass runs and the node is recorded as
usual. Only when ``backward()`` reaches the node *and* needs the gradient for that input does the
placeholder raise.
"""

import torch

a = torch.tensor([0.5, 1.5, 3.0], requires_grad=True)
x = torch.tensor([0.3, 2.0, 5.0])
p = torch.special.gammainc(a, x)
print("P(a, x) =", p.detach(), " grad_fn:", type(p.grad_fn).__name__)

# %%
# The repro
# ---------
# Gradients for the shape parameter ``a``:

a = torch.tensor([0.5, 1.5, 3.0], requires_grad=True)
x = torch.tensor([0.3, 2.0, 5.0])
p = torch.special.gammainc(a, x)  # broken
try:
    p.sum().backward()  # cause: gammainc-shape
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# The message names the entry of the table, not the Python function: ``igamma`` is the ATen name
# of ``gammainc``, and ``input`` its first argument. Other placeholders are named after an
# operation alone. The in-place inverse hyperbolic functions ``acosh_``, ``asinh_`` and
# ``atanh_``, for instance, lack the formula their out-of-place twins have: that formula
# (:math:`1 / \sqrt{y^2 - 1}` for ``acosh``) needs the input, which the in-place version has
# overwritten, and nobody wrote it in terms of the output.

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.acosh_()
try:
    y.sum().backward()  # cause: inplace-inverse-hyperbolic
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y = x * 2
y.asinh_()
try:
    y.sum().backward()
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

y = x * 2
y.atanh_()
try:
    y.sum().backward()
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# ``torch.unique`` has no gradient at all (``'_unique2'``):

values = torch.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
try:
    torch.unique(values).sum().backward()  # cause: unique
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

# %%
# ``torch.cdist`` has a first derivative everywhere, but up to torch 2.13 a second one only on
# its matrix-product path, which exists for the Euclidean distance (``p=2``) alone: by default
# it is taken with more than 25 points on either side. A gradient penalty on pairwise distances
# fails with fewer points, and at any size for another ``p``, whatever ``compute_mode`` says.
# Torch 2.14 added the double backward (pytorch/pytorch#188901): there these lines run.

points = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
centres = torch.randn(4, 3, dtype=torch.float64)
(grad_points,) = torch.autograd.grad(torch.cdist(points, centres).sum(), points, create_graph=True)
try:
    grad_points.pow(2).sum().backward()  # cause: cdist-double-backward
except NotImplementedError as error:
    print(f"NotImplementedError: {error}")

manhattan = torch.cdist(points, centres, p=1.0, compute_mode="use_mm_for_euclid_dist")
(grad_points,) = torch.autograd.grad(manhattan.sum(), points, create_graph=True)
try:
    grad_points.pow(2).sum().backward()  # cause: cdist-double-backward
except NotImplementedError as error:
    print(f"NotImplementedError (p=1): {error}")
points.grad = None

# %%
# The double backward of a cuDNN RNN (``'_cudnn_rnn_backward'``, with advice appended) raises the
# same way on a GPU (pytorch/pytorch#134901). When the operation has no entry in the table at
# all, the message is worded differently: see
# :doc:`/errors/higher-order/derivative-not-implemented-node`.
#
# Fix 1: stop the input from requiring grad
# -----------------------------------------
# Often ``a`` is a fixed hyperparameter that was created with ``requires_grad=True`` by mistake,
# or derived from a parameter. Detached, it needs no gradient, and the formula for ``x`` is
# there:

a = torch.tensor([0.5, 1.5, 3.0])
x = torch.tensor([0.3, 2.0, 5.0], requires_grad=True)
p = torch.special.gammainc(a.detach(), x)  # fixed
p.sum().backward()  # fix: gammainc-shape
expected = x.detach() ** (a - 1) * torch.exp(-x.detach()) / torch.exp(torch.lgamma(a))
torch.testing.assert_close(x.grad, expected)
print("dP/dx =", x.grad)

# %%
# Fix 2: use the operation that has the formula
# ---------------------------------------------
# For ``acosh_``, the out-of-place ``torch.acosh`` has a formula. The derivative of
# :math:`\operatorname{acosh}(2x)` is :math:`2 / \sqrt{4x^2 - 1}`:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.acosh(x * 2)  # fixed
y.sum().backward()  # fix: inplace-inverse-hyperbolic
torch.testing.assert_close(x.grad, 2 / torch.sqrt(4 * x.detach() ** 2 - 1))
print("x.grad =", x.grad)

# %%
# Fix 3: index instead of ``torch.unique``
# ----------------------------------------
# Sorting is differentiable: keep the sorted values that differ from their predecessor. Each
# unique value's gradient goes to one of its copies (with a stable sort, the first):

sorted_values, order = values.sort(stable=True)
keep = torch.ones_like(sorted_values, dtype=torch.bool)
keep[1:] = sorted_values[1:] != sorted_values[:-1]
unique_values = sorted_values[keep]  # fix: unique
unique_values.sum().backward()
torch.testing.assert_close(unique_values.detach(), torch.unique(values.detach()))
torch.testing.assert_close(values.grad, torch.tensor([1.0, 1.0, 0.0, 1.0]))

# %%
# Fix 4: the matrix-product path of ``cdist``, for ``p=2``
# --------------------------------------------------------
# For the Euclidean distance, ``compute_mode="use_mm_for_euclid_dist"`` takes the path that has
# a double backward on every release. The check uses first-order gradients only: central
# differences of the penalty.


def penalty(points: torch.Tensor) -> torch.Tensor:
    points = points.detach().requires_grad_()
    (grad,) = torch.autograd.grad(torch.cdist(points, centres).sum(), points)
    return grad.pow(2).sum()


points.grad = None
mm_path = "use_mm_for_euclid_dist"
distances = torch.cdist(points, centres, compute_mode=mm_path)  # fix: cdist-double-backward
(grad_points,) = torch.autograd.grad(distances.sum(), points, create_graph=True)
grad_points.pow(2).sum().backward()
step = 1e-6
numeric = torch.zeros_like(points)
for index in range(points.numel()):
    shift = torch.zeros_like(points).view(-1)
    shift[index] = step
    shift = shift.view_as(points)
    numeric.view(-1)[index] = (penalty(points + shift) - penalty(points - shift)) / (2 * step)
torch.testing.assert_close(points.grad, numeric)

# %%
# For another ``p``, the distance written with elementary operations has a double backward
# (away from coinciding coordinates, where ``abs`` has none). The check is the same, with this
# distance on both sides:


def minkowski(points: torch.Tensor, centres: torch.Tensor, p: float) -> torch.Tensor:
    return (points[:, None] - centres[None]).abs().pow(p).sum(-1).pow(1 / p)


def penalty_p1(points: torch.Tensor) -> torch.Tensor:
    points = points.detach().requires_grad_()
    (grad,) = torch.autograd.grad(minkowski(points, centres, 1.0).sum(), points)
    return grad.pow(2).sum()


points.grad = None
distances = minkowski(points, centres, p=1.0)  # fix: cdist-double-backward
(grad_points,) = torch.autograd.grad(distances.sum(), points, create_graph=True)
penalty_value = grad_points.pow(2).sum()
penalty_value.backward()
torch.testing.assert_close(penalty_value.detach(), penalty_p1(points))
# The L1 gradient is piecewise constant, so the penalty's gradient is zero away from ties:
torch.testing.assert_close(points.grad, torch.zeros_like(points))

# %%
# Writing the distance as ``(a[:, None] - b[None]).norm(dim=-1)`` has a double backward too, but
# its second derivative is NaN where two points coincide (``norm`` at zero), while the
# matrix-product path returns finite values there:

same = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=torch.float64, requires_grad=True)
origin = torch.tensor([[0.0, 0.0]], dtype=torch.float64)
(grad_same,) = torch.autograd.grad(
    (same[:, None] - origin[None]).norm(dim=-1).sum(), same, create_graph=True
)
grad_same.pow(2).sum().backward()
print("second derivative through norm at zero distance:", same.grad[0])
assert torch.isnan(same.grad[0]).all()

# %%
# Fix 5: compute the value with operations autograd can differentiate
# --------------------------------------------------------------------
# When the gradient for ``a`` is really wanted, write the function with torch operations whose
# formulas exist. :math:`P(a, x)` has a series that converges for every :math:`x > 0`:
#
# .. math:: P(a, x) = \sum_{k \ge 0} \exp\big((a + k) \log x - x - \log\Gamma(a + k + 1)\big)
#
# ``lgamma`` is differentiable (its derivative is ``digamma``), so autograd differentiates the
# series with respect to ``a``. In double precision, sixty terms are plenty for these ``x``:


def gammainc_series(a: torch.Tensor, x: torch.Tensor, terms: int = 60) -> torch.Tensor:
    k = torch.arange(terms, dtype=a.dtype)
    shape = a.unsqueeze(-1) + k
    log_terms = shape * x.log().unsqueeze(-1) - x.unsqueeze(-1) - torch.lgamma(shape + 1)
    return log_terms.exp().sum(-1)


a = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64, requires_grad=True)
x = torch.tensor([0.3, 2.0, 5.0], dtype=torch.float64)
p = gammainc_series(a, x)  # fixed
torch.testing.assert_close(p.detach(), torch.special.gammainc(a.detach(), x))
p.sum().backward()

# %%
# The check is independent of autograd: central finite differences of torch's own ``gammainc``
# in ``a``:

step = 1e-6
with torch.no_grad():
    numeric = (torch.special.gammainc(a + step, x) - torch.special.gammainc(a - step, x)) / (
        2 * step
    )
torch.testing.assert_close(a.grad, numeric)
print("dP/da =", a.grad)

# %%
# A custom ``torch.autograd.Function`` whose ``backward`` returns that finite difference is the
# other way out, when no differentiable formula is at hand; it is slower and only as accurate as
# the step allows.
#
# The pitfall of detaching
# ------------------------
# Detaching silences the error by giving up the gradient. If ``a`` was meant to be learned, it
# now silently gets none, and an optimizer skips it without a word:

log_a = torch.zeros(3, requires_grad=True)  # a learned shape, a = exp(log_a)
x = torch.tensor([0.3, 2.0, 5.0], requires_grad=True)
torch.special.gammainc(log_a.exp().detach(), x).sum().backward()
print("log_a.grad:", log_a.grad)
assert log_a.grad is None

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: derivative-not-implemented
