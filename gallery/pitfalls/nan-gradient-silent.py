"""
nan-gradient-silent
===================

.. autograd-entry:: nan-gradient-silent

Nothing checks the numbers
--------------------------

Backward applies the chain rule: each backward function multiplies the gradient it receives by
its operation's local derivative, in ordinary floating-point arithmetic. Where that derivative
is undefined, the arithmetic says NaN (``0 / 0``, ``inf * 0``, ``inf - inf``), and autograd
passes the NaN on like any other number: it does not look at the values it computes.

The notes' example: ``x / x`` is 1 where ``x`` is not 0, and its gradient, ``1/x - x/x**2``, is
0 there. At ``x = 0`` the value is ``0 / 0``, NaN, and so is the gradient: its first term, through
the numerator, is ``1 / 0 = inf``, its second, through the denominator, is ``-0 / 0 = NaN``, and
``inf + NaN`` is NaN:
"""

import warnings

import torch

x = torch.tensor([0, 1, 1, 1, 1], requires_grad=True, dtype=torch.float)
y = x / x  # cause: division-by-zero
y.sum().backward()  # cause: division-by-zero
print("y      =", y.detach())
print("x.grad =", x.grad)
assert torch.isnan(x.grad[0])
torch.testing.assert_close(x.grad[1:], torch.zeros(4))

numerator = torch.tensor(0.0, requires_grad=True)
denominator = torch.tensor(0.0, requires_grad=True)
through_numerator, through_denominator = torch.autograd.grad(
    numerator / denominator, (numerator, denominator)
)
print("through the numerator:", through_numerator, " through the denominator:", through_denominator)
assert torch.isinf(through_numerator)
assert torch.isnan(through_denominator)

# %%
# The pitfall: a finite loss, a NaN gradient
# ------------------------------------------
# There at least the forward value was NaN too. It need not be. The Euclidean distance between
# two equal points is 0, a clean loss value. But backward first goes through ``sqrt``, whose
# derivative at 0 is infinite, so the gradient it sends back to the sum of squares is ``inf``;
# the derivative of ``(a - b) ** 2`` at ``a = b`` is 0, and ``inf * 0`` is NaN.

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
b = torch.tensor([1.0, 2.0])
distance = torch.sqrt(((a - b) ** 2).sum())  # broken
distance.backward()  # broken
print("distance =", distance.item(), " a.grad =", a.grad)
assert distance.item() == 0.0
assert torch.isnan(a.grad).all()

squares = ((a.detach() - b) ** 2).sum().requires_grad_()
torch.sqrt(squares).backward()  # cause: sqrt-at-zero
print("gradient sqrt sends back at 0:", squares.grad)
assert torch.isinf(squares.grad)

# %%
# ``torch.where`` hides the same product. Both branches are computed and differentiated; the
# untaken one receives a zero gradient, and multiplies it by its own derivative, here
# ``1 / x = inf`` for ``log`` at 0. The value is a clean 0, the gradient NaN:

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
safe_log = torch.where(x > 0, torch.log(x), 0.0)  # cause: where-untaken-branch
safe_log.sum().backward()  # cause: where-untaken-branch
print("value:", safe_log.detach(), " x.grad:", x.grad)
assert safe_log[0].item() == 0.0
assert torch.isnan(x.grad[0])

# %%
# One optimizer step then spreads the NaN into the weights, and every later forward pass is NaN.
# This is how training "suddenly" shows ``loss = nan`` one step after the real culprit (the
# other ways a loss becomes NaN: :doc:`/errors/pitfalls/nan-loss`):

optimizer = torch.optim.SGD([a], lr=0.1)
optimizer.step()
print("a after the step:", a.detach())
assert torch.isnan(a).all()
assert torch.isnan(torch.sqrt(((a - b) ** 2).sum()))

# %%
# Anomaly detection turns it into an error
# ----------------------------------------
# Under ``torch.autograd.detect_anomaly()`` (or ``set_detect_anomaly(True)``) autograd checks
# the output of every backward function for NaN and raises at the first one, naming it: here the
# division's backward, ``DivBackward0``, in its output 1 (the gradient with respect to the
# divisor). It also warns, with the traceback of the forward operation. That error has its own
# page: :doc:`/errors/anomaly/anomaly-nan`.

x = torch.tensor([0, 1, 1, 1, 1], requires_grad=True, dtype=torch.float)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = x / x
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"RuntimeError: {error}")
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message).splitlines()[0]}")

# %%
# Anomaly mode is for finding the culprit, not for leaving on: it slows every step down, see
# :doc:`/errors/pitfalls/anomaly-cost`.
#
# Fix 1: compute something whose gradient is defined
# --------------------------------------------------
# ``torch.linalg.vector_norm`` (and ``Tensor.norm``) define the gradient of the norm at 0 as 0.
# Away from 0 it is the usual ``(a - b) / |a - b|``:

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
distance = torch.linalg.vector_norm(a - b)  # fixed
distance.backward()  # fixed
torch.testing.assert_close(a.grad, torch.zeros(2))

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
torch.linalg.vector_norm(a - b).backward()  # fix: sqrt-at-zero
torch.testing.assert_close(a.grad, torch.zeros(2))

a = torch.nn.Parameter(torch.tensor([4.0, 6.0]))
torch.linalg.vector_norm(a - b).backward()
torch.testing.assert_close(a.grad, torch.tensor([0.6, 0.8]))  # (3, 4) / 5
print("a.grad =", a.grad)

# %%
# A small ``eps`` inside the square root also works, at the price of a tiny bias in the value:

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
torch.sqrt(((a - b) ** 2).sum() + 1e-12).backward()
torch.testing.assert_close(a.grad, torch.zeros(2))

# %%
# For ``torch.where``, the "double where" (see also :doc:`/errors/anomaly/anomaly-nan`): make
# the input of the untaken branch safe as well, so that its derivative is finite where it is
# not taken. The gradient is then ``1 / x`` where ``x > 0`` and 0 elsewhere:

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
safe_x = torch.where(x > 0, x, 1.0)  # fix: where-untaken-branch
safe_log = torch.where(x > 0, torch.log(safe_x), 0.0)  # fix: where-untaken-branch
safe_log.sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([0.0, 1.0, 0.5]))

# %%
# For a division, the double where again: divide by a safe denominator, and select the zero case
# explicitly. (Clamping the denominator, ``v / norm.clamp_min(eps)``, avoids the NaN but sends a
# gradient of ``1 / eps`` into the zero vector.) The gradient is 0 for the zero vector, and
# ``(I - u u^T) / |v|`` summed over rows for the other:

vectors = torch.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
norms = torch.linalg.vector_norm(vectors, dim=1, keepdim=True)
nonzero = norms > 0
safe_norms = torch.where(nonzero, norms, 1.0)  # fix: division-by-zero
unit = torch.where(nonzero, vectors / safe_norms, 0.0)  # fix: division-by-zero
unit.sum().backward()
u = torch.tensor([0.6, 0.8])
expected_row = (torch.eye(2) - torch.outer(u, u)).sum(0) / 5.0
torch.testing.assert_close(vectors.grad, torch.stack([torch.zeros(2), expected_row]))

# %%
# Fix 2: a cheap guard that stays on
# ----------------------------------
# ``clip_grad_norm_`` returns the total norm of the gradients, and a single NaN makes it NaN. If
# you clip anyway, checking that number costs nothing; skip the step when it is not finite
# (mixed-precision training with ``GradScaler`` skips steps the same way). Passing
# ``error_if_nonfinite=True`` makes ``clip_grad_norm_`` raise instead.

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
optimizer = torch.optim.SGD([a], lr=0.1)
optimizer.zero_grad()
torch.sqrt(((a - b) ** 2).sum()).backward()
total_norm = torch.nn.utils.clip_grad_norm_([a], max_norm=1.0)
if torch.isfinite(total_norm):
    optimizer.step()
else:
    print("gradient norm is", total_norm.item(), "- step skipped")
assert torch.isnan(total_norm)
torch.testing.assert_close(a.detach(), torch.tensor([1.0, 2.0]))  # the weights stay intact

# %%
# Pitfall of the fixes: ``torch.nan_to_num`` applied to the *loss* changes nothing here, since the
# loss was finite all along. Replacing NaN in ``.grad`` by zeros hides the symptom and keeps
# the cause; find the operation instead.

# %%
# .. autograd-entry-footer:: nan-gradient-silent
