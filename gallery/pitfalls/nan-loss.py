"""
nan-loss
========

.. autograd-entry:: nan-loss

Nothing stops a loss from overflowing
-------------------------------------

Neither the loss functions nor the optimizers check the numbers they compute: a loss that grows
past the largest float (about ``3.4e38`` in float32) is ``inf``, and the next subtraction of two
infinities is NaN. An optimizer step with a NaN gradient writes NaN into every weight it reaches,
and from then on every loss is NaN. Libraries' training loops check the loss for you and stop,
each in its own words (detectron2's ``FloatingPointError: Loss became infinite or NaN at
iteration=...``, torchvision's reference scripts' ``Loss is nan, stopping training``); plain
PyTorch goes on training on NaN.

A learning rate too large for the scale of the inputs is the classic way there. A linear
regression whose inputs reach 30: each step overshoots the minimum by more than it corrects, the
loss grows by some orders of magnitude per step, overflows to ``inf``, then turns NaN:
"""

import math

import torch
import torch.nn.functional as F

x = torch.linspace(-3.0, 3.0, 64).unsqueeze(1) * 10  # inputs up to 30: not normalised
y = 2 * x + 1


def train(optimizer_for, steps=60, clip=None, inputs=x):
    """Fit y from the inputs with a fresh linear model; the losses of every step."""
    model = torch.nn.Linear(1, 1)
    optimizer = optimizer_for(model.parameters())
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), y)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=clip)
        optimizer.step()
        losses.append(loss.item())
    return losses


losses = train(lambda p: torch.optim.SGD(p, lr=0.1))  # cause: learning-rate-diverges
print("first losses:", [f"{v:.3g}" for v in losses[:4]], "... last:", losses[-1])
assert math.isfinite(losses[0])
assert any(math.isinf(v) for v in losses)  # it overflowed first
assert math.isnan(losses[-1])

# %%
# Fix: a learning rate the scale allows (or inputs brought to a smaller scale); clipping the
# gradient norm bounds each step whatever the scale.

losses = train(lambda p: torch.optim.SGD(p, lr=1e-3))  # fix: learning-rate-diverges
print("lr=1e-3, last loss:", losses[-1])
assert all(math.isfinite(v) for v in losses)
assert losses[-1] < losses[0] / 100

losses = train(lambda p: torch.optim.SGD(p, lr=0.1), inputs=x / 10)
print("lr=0.1 on inputs up to 3, last loss:", losses[-1])
assert all(math.isfinite(v) for v in losses)
assert losses[-1] < losses[0] / 100

losses = train(lambda p: torch.optim.SGD(p, lr=0.1), clip=1.0)
print("lr=0.1 with clip_grad_norm_(max_norm=1.0), last loss:", losses[-1])
assert all(math.isfinite(v) for v in losses)
assert losses[-1] < losses[0]

# %%
# One bad sample poisons the weights
# ----------------------------------
# A NaN (or inf) in one input or one target makes the batch's loss NaN; its backward sends NaN
# to every weight that sample reached, and one step later the whole model is NaN, for every
# later batch, clean or not:

model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.arange(24.0).reshape(8, 3) / 24
targets = inputs.sum(dim=1, keepdim=True)
inputs[5, 1] = float("nan")  # cause: nan-in-data
loss = F.mse_loss(model(inputs), targets)
loss.backward()
optimizer.step()
print("loss:", loss.item(), " weights after the step:", model.weight.detach())
assert math.isnan(loss.item())
assert torch.isnan(model.weight).all()
assert torch.isnan(model(torch.zeros(1, 3))).all()  # a clean input: NaN too

# %%
# Fix: check the data, where it is loaded or at the start of each step, and find the rows:

model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
finite = torch.isfinite(inputs).all(dim=1) & torch.isfinite(targets).all(dim=1)  # fix: nan-in-data
print("rows with a NaN or inf:", (~finite).nonzero().flatten().tolist())
loss = F.mse_loss(model(inputs[finite]), targets[finite])
loss.backward()
optimizer.step()
assert (~finite).nonzero().flatten().tolist() == [5]
assert math.isfinite(loss.item())
assert torch.isfinite(model.weight).all()

# %%
# The log of a probability that reached zero
# ------------------------------------------
# A loss written as ``-log(softmax(logits))`` (or ``log(sigmoid(z))``) is exact on paper; in
# float32, the softmax of a confident wrong prediction rounds to 0, its log is ``-inf``, the loss
# ``inf``, and the backward through ``log`` at 0 times softmax's zero derivative there is NaN:

logits = torch.tensor([[60.0, -60.0]], requires_grad=True)  # confident, and wrong
target = torch.tensor([1])
probabilities = torch.softmax(logits, dim=1)
loss = -torch.log(probabilities[0, target]).sum()  # cause: log-of-zero
loss.backward()
print("probability of the target:", probabilities[0, 1].item(), " loss:", loss.item())
print("logits.grad:", logits.grad)
assert probabilities[0, 1].item() == 0.0
assert math.isinf(loss.item())
assert torch.isnan(logits.grad).all()

# %%
# Fix: give the logits to a function that takes the log itself, in a form that cannot
# underflow (``F.cross_entropy``, ``F.log_softmax``; ``F.logsigmoid`` for ``log(sigmoid(z))``,
# ``BCEWithLogitsLoss`` on the logits). The loss is the exact 120, its gradient the exact
# ``softmax - one_hot``:

logits = torch.tensor([[60.0, -60.0]], requires_grad=True)
loss = F.cross_entropy(logits, target)  # fix: log-of-zero
loss.backward()
print("cross_entropy:", loss.item(), " logits.grad:", logits.grad)
torch.testing.assert_close(loss, torch.tensor(120.0))
torch.testing.assert_close(logits.grad, torch.tensor([[1.0, -1.0]]))

z = torch.tensor([-120.0], requires_grad=True)
assert math.isinf(-torch.log(torch.sigmoid(z)).item())
loss = -F.logsigmoid(z).sum()
loss.backward()
torch.testing.assert_close(loss, torch.tensor(120.0))
torch.testing.assert_close(z.grad, torch.tensor([-1.0]))

# %%
# A NaN gradient, one step earlier
# --------------------------------
# The loss can be finite while its gradient is NaN: a backward function whose derivative is
# undefined where it is evaluated, as ``sqrt`` at 0 (:doc:`/errors/pitfalls/nan-gradient-silent`
# has the others). The step writes the NaN into the weights, and the *next* loss is NaN: the
# culprit is in the step before the first NaN loss.

point = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
optimizer = torch.optim.SGD([point], lr=0.1)
goal = torch.tensor([1.0, 2.0])
first = torch.sqrt(((point - goal) ** 2).sum())  # cause: nan-gradient
first.backward()
optimizer.step()
second = torch.sqrt(((point - goal) ** 2).sum())
print("first loss:", first.item(), " second loss:", second.item())
assert first.item() == 0.0
assert math.isnan(second.item())

# %%
# Fix: a computation whose gradient is defined there (``torch.linalg.vector_norm`` defines the
# norm's gradient at 0 as 0); anomaly detection names the backward function that returned NaN
# (:doc:`/errors/anomaly/anomaly-nan`).

point = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
optimizer = torch.optim.SGD([point], lr=0.1)
first = torch.linalg.vector_norm(point - goal)  # fix: nan-gradient
first.backward()
optimizer.step()
second = torch.linalg.vector_norm(point - goal)
torch.testing.assert_close(point.grad, torch.zeros(2))
assert second.item() == 0.0

# %%
# A guard that stays on
# ---------------------
# Whatever the cause, checking the loss before ``backward()`` costs one comparison, and stops
# at the step that went wrong rather than thousands later; the libraries' checks above do this.

model = torch.nn.Linear(3, 1)
loss = F.mse_loss(model(inputs), targets)  # the batch with the NaN
if not torch.isfinite(loss):
    print(f"loss is {loss.item()}: this batch is skipped, the weights stay as they were")
else:
    loss.backward()
assert model.weight.grad is None

# %%
# .. autograd-entry-footer:: nan-loss
