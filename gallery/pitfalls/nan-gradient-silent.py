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
0 there; at ``x = 0`` both are ``0 / 0``:
"""

import warnings

import torch

x = torch.tensor([0, 1, 1, 1, 1], requires_grad=True, dtype=torch.float)
y = x / x
y.sum().backward()
print("y      =", y.detach())
print("x.grad =", x.grad)
assert torch.isnan(x.grad[0])
torch.testing.assert_close(x.grad[1:], torch.zeros(4))

# %%
# The pitfall: a finite loss, a NaN gradient
# ------------------------------------------
# There at least the forward value was NaN too. It need not be. The Euclidean distance between
# two equal points is 0, a clean loss value; but the derivative of ``sqrt`` at 0 is infinite, and
# the gradient of ``(a - b) ** 2`` there is 0: ``inf * 0`` is NaN.

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
b = torch.tensor([1.0, 2.0])
distance = torch.sqrt(((a - b) ** 2).sum())  # broken
distance.backward()  # broken
print("distance =", distance.item(), " a.grad =", a.grad)
assert distance.item() == 0.0
assert torch.isnan(a.grad).all()

# %%
# One optimizer step then spreads the NaN into the weights, and every later forward pass is NaN.
# This is how training "suddenly" shows ``loss = nan`` one step after the real cause:

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

a = torch.nn.Parameter(torch.tensor([4.0, 6.0]))
torch.linalg.vector_norm(a - b).backward()
torch.testing.assert_close(a.grad, torch.tensor([0.6, 0.8]))  # (3, 4) / 5
print("a.grad =", a.grad)

# %%
# A small ``eps`` inside the square root also works, at the price of a tiny bias in the value;
# for divisions, and for ``torch.where`` (whose untaken branch is still differentiated), see the
# "double where" on :doc:`/errors/anomaly/anomaly-nan`.

a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
torch.sqrt(((a - b) ** 2).sum() + 1e-12).backward()
torch.testing.assert_close(a.grad, torch.zeros(2))

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
