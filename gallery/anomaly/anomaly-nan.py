"""
anomaly-nan
===========

.. autograd-entry:: anomaly-nan

NaN gradients are silent
------------------------

``0 / 0`` is NaN, and so is its derivative. In the notes' example, one zero in ``x`` makes
``x / x`` NaN at that position, and backward fills ``x.grad`` with a NaN there, with no error at
all. A single NaN gradient then spreads through the next optimizer step into every weight.
"""

import warnings

import torch

x = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0], requires_grad=True)
y = x / x
y.sum().backward()
print("y      =", y.detach())
print("x.grad =", x.grad)

# %%
# The repro
# ---------
# Under anomaly detection, autograd checks every backward function's output for NaN and raises
# at the first one, naming it. It also warns that anomaly mode is on, and, when a backward
# function fails, shows the traceback of the forward operation that created it:

x = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = x / x  # broken
        try:
            y.sum().backward()  # broken
        except RuntimeError as error:
            print(f"RuntimeError: {error}")
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# ``DivBackward0`` is the backward of the division; its output 1 is the gradient with respect
# to the divisor. ``torch.autograd.set_detect_anomaly(True)`` switches the same checks on for
# the rest of the program, and ``set_detect_anomaly(False)`` off again.
#
# What anomaly mode costs
# -----------------------
# Every backward function's output is checked, and every forward operation records a stack
# trace: the notes report runs two to three times slower. Switch it on to find a problem, then
# off. :doc:`/errors/inplace/inplace-modified` shows the same mode locating an in-place change.
#
# Fix: make the forward computation's gradient defined
# ----------------------------------------------------
# Decide what the value should be where the formula is undefined, and never evaluate the
# formula there. ``torch.where`` alone is not enough: both branches are differentiated, and
# ``0 * nan`` is still NaN. Feed the unsafe branch safe inputs as well (the "double where"):
# here the ratio is 0 where ``x`` is 0, and its gradient is 0 everywhere (``1/x - x/x**2``):

x = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    nonzero = x != 0  # fixed
    safe_x = torch.where(nonzero, x, torch.ones_like(x))  # fixed
    y = torch.where(nonzero, x / safe_x, torch.zeros_like(x))  # fixed
    y.sum().backward()  # fixed
torch.testing.assert_close(x.grad, torch.zeros(5))
print("x.grad =", x.grad)

# %%
# The same trick for a square root, whose gradient is infinite at 0:

x = torch.tensor([0.0, 4.0], requires_grad=True)
safe = torch.where(x > 0, x, torch.ones_like(x))
y = torch.where(x > 0, torch.sqrt(safe), torch.zeros_like(x))
y.sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([0.0, 0.25]))
print("x.grad =", x.grad)

# %%
# Pitfall: ``torch.nan_to_num`` on the *loss* hides the symptom, not the cause; the NaN is in
# the gradient, which ``nan_to_num`` on the forward value does not touch.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: anomaly-nan
