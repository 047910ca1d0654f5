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
# at the first one, naming it. The ``detect_anomaly()`` context manager also warns that anomaly
# mode is on, and, when a backward function fails, anomaly mode shows the traceback of the
# forward operation that created it:

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
# the rest of the program, and ``set_detect_anomaly(False)`` off again; it warns nothing when
# it switches them on:

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.autograd.set_detect_anomaly(True)
    torch.autograd.set_detect_anomaly(False)
print("warnings from set_detect_anomaly(True):", [str(w.message) for w in caught])
assert caught == []

# %%
# What anomaly mode costs
# -----------------------
# Every backward function's output is checked, and every forward operation records a stack
# trace: the notes report runs two to three times slower. Switch it on to find a problem, then
# off. :doc:`/errors/inplace/inplace-modified` shows the same mode locating an in-place change.
#
# The usual suspects
# ------------------
# A norm or a distance written by hand: the square root of a sum of squares that is zero for one
# sample. ``sqrt`` has an infinite derivative at 0, and the backward of the squares multiplies
# it by 0:

vectors = torch.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
try:
    with torch.autograd.detect_anomaly():
        vectors.pow(2).sum(1).sqrt().sum().backward()  # cause: sqrt-of-zero
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same with ``x * x`` for the square (``MulBackward0`` then gets the blame), and a square root
# of a negative number, which is NaN already in the forward pass:

zeros = torch.zeros(3, requires_grad=True)
try:
    with torch.autograd.detect_anomaly():
        (zeros * zeros).sum().sqrt().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

negative = torch.tensor([-1.0, 4.0], requires_grad=True)
try:
    with torch.autograd.detect_anomaly():
        negative.sqrt().sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A denominator that is zero for one sample: a row normalised by its sum, a ratio of counts.

counts = torch.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
try:
    with torch.autograd.detect_anomaly():
        (counts / counts.sum(1, keepdim=True)).sum().backward()  # cause: zero-denominator
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# An angle from a cosine that rounding pushed just above 1: ``acos`` is undefined there.

cosines = torch.tensor([1.0000001, 0.5], requires_grad=True)
try:
    with torch.autograd.detect_anomaly():
        torch.acos(cosines).sum().backward()  # cause: acos-out-of-range
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Anomaly mode checks the gradients, not the forward values. A NaN already in the data makes the
# loss NaN, and the first backward node, which has nothing to do with it, gets the blame:

layer = torch.nn.Linear(3, 1)
batch = torch.tensor([[1.0, float("nan"), 2.0], [0.5, 0.5, 0.5]])
try:
    with torch.autograd.detect_anomaly():
        layer(batch).pow(2).mean().backward()  # cause: nan-in-inputs
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Weights that grew too large in earlier steps (a learning rate too high, exploding gradients)
# overflow the loss to ``inf`` with finite data; its gradient is then infinite, and a matrix
# product of infinities of both signs gives NaN. The node named, ``AddmmBackward0``, created
# nothing wrong, and the check of the batch passes:

model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
inputs, targets = torch.randn(8, 3) * 10, torch.randn(8, 1)
try:
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)  # cause: diverged-weights
    for _step in range(20):  # cause: diverged-weights
        optimizer.zero_grad()
        with torch.autograd.detect_anomaly():
            loss = torch.nn.functional.mse_loss(model(inputs), targets)  # cause: diverged-weights
            loss.backward()  # cause: diverged-weights
        optimizer.step()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
print("batch finite:", torch.isfinite(inputs).all().item(), " loss:", loss.item())

# %%
# Attention with a row whose keys are all masked: ``masked_fill(mask, float("-inf"))`` over a
# whole row makes the softmax ``0 / 0``, NaN in the forward pass already, and the backward
# check names ``SoftmaxBackward0``. (Padding queries in a batch, or a causal mask combined with
# a padding mask, give such rows. The fused attention kernels of ``scaled_dot_product_attention``
# have had NaN bugs of their own on GPUs: `#119320
# <https://github.com/pytorch/pytorch/issues/119320>`__, `#125674
# <https://github.com/pytorch/pytorch/issues/125674>`__.)

queries = torch.randn(1, 3, 4, requires_grad=True)
keys, values = torch.randn(1, 3, 4), torch.randn(1, 3, 4)
allowed = torch.tensor([[True, True, False], [True, False, False], [False, False, False]])
try:
    with torch.autograd.detect_anomaly():
        scores = queries @ keys.transpose(1, 2)
        scores = scores.masked_fill(~allowed, float("-inf"))  # cause: fully-masked-attention
        (scores.softmax(-1) @ values).sum().backward()  # cause: fully-masked-attention
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Only NaN is checked: an infinite gradient passes without a word.

big = torch.ones(2, requires_grad=True)
with torch.autograd.detect_anomaly():
    (big * 1e39).sum().backward()  # 1e39 overflows float32
print("infinite gradient, no error:", big.grad)
assert torch.isinf(big.grad).all()

# %%
# Under mixed precision with a ``GradScaler``, an occasional inf or NaN gradient is expected: the
# scaler skips that step and lowers the scale (see "Gradient scaling" in the torch.amp
# documentation), where anomaly mode would stop the run on a NaN.
#
# The first step: check that the inputs and the loss are finite
# -------------------------------------------------------------
# Before blaming a backward node, check what goes in: ``torch.isfinite(batch).all()`` and
# ``torch.isfinite(loss)``. Here the bad sample is dropped; the gradient of the mean squared
# output of the remaining sample :math:`x` is :math:`2(w \cdot x + b)\,x` for the weights:

finite = torch.isfinite(batch).all(1)
layer.zero_grad()
output = layer(batch[finite])  # fix: nan-in-inputs
output.pow(2).mean().backward()
clean = batch[1]
expected = 2 * (layer.weight.detach() @ clean + layer.bias.detach()) * clean
torch.testing.assert_close(layer.weight.grad, expected[None])

# %%
# The loss was not finite with a finite batch: check the parameters too
# (``all(torch.isfinite(p).all() for p in model.parameters())``) and the loss at every step,
# and stop the growth where it starts: a lower learning rate, or gradient clipping. Clipped to
# norm 1, the same twenty steps stay finite, and each step's gradient norm is at most 1:

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
for _step in range(20):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # fix: diverged-weights
    clipped = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.parameters()]))
    assert clipped <= 1.0 + 1e-5
    optimizer.step()
    assert torch.isfinite(loss)
assert all(torch.isfinite(p).all() for p in model.parameters())  # fix: diverged-weights
print("twenty clipped steps, loss", loss.item())

# %%
# For a fully masked row, fill with the dtype's lowest finite value instead of ``-inf``: the
# row's softmax is then uniform instead of NaN (drop or ignore that row's output), and the
# gradient of every row is finite. The rows that have keys get the same gradient as before:

queries.grad = None
scores = queries @ keys.transpose(1, 2)
lowest = torch.finfo(scores.dtype).min
scores = scores.masked_fill(~allowed, lowest)  # fix: fully-masked-attention
(scores.softmax(-1) @ values)[:, :2].sum().backward()  # fix: fully-masked-attention
reference = queries.detach().clone().requires_grad_()
ref_scores = (reference @ keys.transpose(1, 2))[:, :2].masked_fill(~allowed[:2], float("-inf"))
(ref_scores.softmax(-1) @ values).sum().backward()
torch.testing.assert_close(queries.grad, reference.grad)

# %%
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
# For a norm, use ``torch.linalg.vector_norm`` (or ``Tensor.norm``), whose gradient at zero is
# defined as 0; elsewhere it is :math:`v / \|v\|`:

vectors = torch.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
lengths = torch.linalg.vector_norm(vectors, dim=1)  # fix: sqrt-of-zero
lengths.sum().backward()
torch.testing.assert_close(vectors.grad, torch.tensor([[0.6, 0.8], [0.0, 0.0]]))

# %%
# For a zero denominator, the same double ``where``. With weights :math:`w`, the gradient of
# :math:`\sum_j w_j x_j / s` (:math:`s = \sum_k x_k`) is :math:`w_j / s - (w \cdot x) / s^2`:

counts = torch.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
weights = torch.tensor([[1.0, 3.0], [1.0, 1.0]])
totals = counts.sum(1, keepdim=True)
safe_totals = torch.where(totals != 0, totals, 1.0)
shares = torch.where(totals != 0, counts / safe_totals, 0.0)  # fix: zero-denominator
(shares * weights).sum().backward()
torch.testing.assert_close(counts.grad, torch.tensor([[-4 / 9, 2 / 9], [0.0, 0.0]]))

# %%
# Clamp a cosine into the open interval before ``acos``. The derivative of ``acos`` is
# :math:`-1/\sqrt{1 - c^2}`; the clamped element gets none:

cosines = torch.tensor([1.0000001, 0.5], requires_grad=True)
angles = torch.acos(cosines.clamp(-1 + 1e-6, 1 - 1e-6))  # fix: acos-out-of-range
angles.sum().backward()
torch.testing.assert_close(cosines.grad, torch.tensor([0.0, -1 / 0.75**0.5]))

# %%
# A clamp is no substitute for a signed denominator: ``x / x.clamp_min(eps)`` turns -2 into
# -2 million. It only suits a denominator that cannot be negative (a norm, a count).

signed = torch.tensor([-2.0, 0.0, 3.0])
print("x / x.clamp_min(1e-6):", signed / signed.clamp_min(1e-6))
torch.testing.assert_close(signed / signed.clamp_min(1e-6), torch.tensor([-2e6, 0.0, 1.0]))

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
