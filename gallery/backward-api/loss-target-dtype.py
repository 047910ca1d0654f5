"""
loss-target-dtype
=================

.. autograd-entry:: loss-target-dtype

Where the dtypes meet
---------------------

A loss function takes the model's output and a target. Its forward pass may promote mixed
dtypes (``float32 - int64`` is ``float32``), but the kernels that compute its gradient are
often written for one dtype, and check that the incoming gradient, the input and the target all
have it. So a wrong target can pass the forward pass silently and stop ``loss.backward()``,
with a message that names no tensor.
"""

import torch
import torch.nn.functional as F
from torch import nn

# %%
# The repro
# ---------
# Integer targets for a Huber loss: the forward pass gives a float loss, its backward raises.

prediction = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
try:
    target = torch.tensor([1, 2, 3])  # broken  # cause: integer-target-regression
    loss = F.huber_loss(prediction, target)  # cause: integer-target-regression
    print("loss:", loss)
    loss.backward()  # broken  # cause: integer-target-regression
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: a target in the input's dtype
# ------------------------------------
# Convert the target where the loss is called. Every error here is below the Huber threshold
# of 1, so the loss is the mean of ``d**2 / 2`` and its gradient ``d / n``, with
# ``d = prediction - target``.

prediction = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
target = target.to(prediction.dtype)  # fixed  # fix: integer-target-regression
loss = F.huber_loss(prediction, target)  # fixed  # fix: integer-target-regression
loss.backward()
torch.testing.assert_close(prediction.grad, (prediction.detach() - target) / 3)
print("prediction.grad:", prediction.grad)

# %%
# ``MSELoss`` up to torch 2.11
# ----------------------------
# The classic case: a float64 target from NumPy (or integer targets) for a mean squared error.
# Up to torch 2.11 its forward pass promotes and its backward raises; torch 2.12 made the
# backward kernel promote too (`PR #175743 <https://github.com/pytorch/pytorch/pull/175743>`__),
# so on this page's torch the block below may print nothing.

prediction = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
try:
    target64 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)  # cause: mse-loss-mixed-dtype
    F.mse_loss(prediction, target64).backward()  # cause: mse-loss-mixed-dtype
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Converted to the predictions' dtype, the target works on every release: the gradient of
# ``mean(d**2)`` is ``2 d / n``.

prediction = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
target32 = target64.to(prediction.dtype)  # fix: mse-loss-mixed-dtype
F.mse_loss(prediction, target32).backward()  # fix: mse-loss-mixed-dtype
torch.testing.assert_close(prediction.grad, 2 * (prediction.detach() - target32) / 3)

# %%
# Integer labels for a binary cross-entropy
# -----------------------------------------
# ``torch.full((n,), 1)`` makes an ``int64`` tensor (since torch 1.7, the fill value decides the
# dtype). ``BCELoss`` checks its operands' dtypes in the forward pass already:

discriminator = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())
criterion = nn.BCELoss()
batch = torch.randn(4, 2)
try:
    real_labels = torch.full((4,), 1)  # cause: integer-labels-bce
    criterion(discriminator(batch).view(-1), real_labels)  # cause: integer-labels-bce
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: labels built as floats
# -----------------------------
# With a target of ones, the BCE loss is ``mean(-log p)``, and its gradient with respect to the
# last layer's pre-activation ``z`` is ``(p - 1) / n``: checked against the weight's gradient.

real_labels = torch.full((4,), 1.0)  # fix: integer-labels-bce
probability = discriminator(batch).view(-1)
criterion(probability, real_labels).backward()
expected = ((probability.detach() - 1) / 4) @ batch
torch.testing.assert_close(discriminator[0].weight.grad, expected.view(1, 2))

# %%
# A float64 target from NumPy
# ---------------------------
# NumPy's default dtype is float64; a target made from an array keeps it, and meets float32
# predictions in the loss's backward:

prediction = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
try:
    target64 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)  # cause: float64-target
    F.huber_loss(prediction, target64).backward()  # cause: float64-target
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: convert the target, not the loss
# ---------------------------------------
# ``loss.float()`` would not help: the mismatch is inside the loss's own backward.

target32 = target64.float()  # fix: float64-target
F.huber_loss(prediction, target32).backward()  # fix: float64-target
torch.testing.assert_close(prediction.grad, (prediction.detach() - target32) / 3)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: loss-target-dtype
