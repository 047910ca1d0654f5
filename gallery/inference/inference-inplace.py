"""
inference-inplace
=================

.. autograd-entry:: inference-inplace

Inference tensors have no version counter
-----------------------------------------

Every ordinary tensor carries a version counter, which each in-place operation increments:
that is how autograd notices that a tensor it saved for the backward pass was changed in the
meantime. Tensors created under ``torch.inference_mode()`` (*inference tensors*) are made
without one, to save work. Inside inference mode nothing needs the counter, so in-place
operations are allowed there. Outside it they are not: the operation would have no counter to
increment, and autograd could no longer vouch for any tensor sharing that memory.
"""

import io

import torch
from torch import nn

normal = torch.zeros(3)
normal += 1
print("ordinary tensor, version after +=:", normal._version)
with torch.inference_mode():
    frozen = torch.zeros(3)
    frozen += 1  # allowed: we are still inside inference mode
print("inference tensor:", frozen.is_inference())

# %%
# The repro
# ---------
# An evaluation loop that sums the loss under inference mode and averages it after the block.
# ``test_loss`` starts as the Python int 0; the first ``+=`` replaces it with a tensor created
# inside the block, an inference tensor. The division after the block is in place:

model = nn.Linear(4, 1)
loss_fn = nn.MSELoss()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]

model.eval()
test_loss = 0
with torch.inference_mode():
    for inputs, targets in batches:
        test_loss += loss_fn(model(inputs), targets)
try:
    test_loss /= len(batches)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# The repro is the first one: a metric finished outside the block. Accuracy counted the same way
# fails on the same line:

accuracy = 0
with torch.inference_mode():
    for inputs, targets in batches:
        accuracy += (model(inputs) > 0).eq(targets > 0).float().mean()
try:
    accuracy /= len(batches)  # cause: metric-after-block
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Often it is only indentation: the line was meant to be inside the ``with`` block.
#
# ``torch.no_grad()`` does not lift the restriction: only inference mode itself allows in-place
# changes to inference tensors.

try:
    with torch.no_grad():
        test_loss /= len(batches)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# State created during an evaluation that ran in inference mode, and updated later outside it.
# PyTorch Lightning runs validation, test and predict under ``torch.inference_mode()`` by
# default (``Trainer(inference_mode=True)``), so a metric accumulator, a cache or a buffer that
# is first created there is an inference tensor, and the next in-place update in training (or in
# a callback) fails:


class RunningMean:
    def __init__(self) -> None:
        self.total: torch.Tensor | None = None

    def update(self, value: torch.Tensor) -> None:
        if self.total is None:
            self.total = torch.zeros_like(value)
        self.total += value


tracker = RunningMean()
with torch.inference_mode():  # the validation loop ran first
    tracker.update(loss_fn(model(batches[0][0]), batches[0][1]))
try:
    tracker.update(torch.tensor(0.5))  # cause: state-created-in-inference
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A model built inside inference mode, by a helper that wraps everything in it, and then
# trained. Its parameters are inference tensors, and the optimizer's in-place update is refused:

with torch.inference_mode():
    frozen_model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(frozen_model.parameters(), lr=0.1)
frozen_model(torch.randn(5, 3)).sum().backward()
try:
    optimizer.step()  # cause: model-made-in-inference
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Unpickling a whole model with ``torch.load`` inside inference mode creates its parameters
# there too:

saved = io.BytesIO()
torch.save(nn.Linear(3, 1), saved)
saved.seek(0)
with torch.inference_mode():
    loaded_model = torch.load(saved, weights_only=False)
optimizer = torch.optim.SGD(loaded_model.parameters(), lr=0.1)
loaded_model(torch.randn(5, 3)).sum().backward()
try:
    optimizer.step()  # cause: model-made-in-inference
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Worse, the error comes late: the backward pass before it ran without complaint, yet left the
# weight without a gradient (the bias got one). ``nn.Linear`` uses its weight through a
# transposed view, and a view of an inference tensor is an inference tensor again, outside the
# graph. A model that will be trained must not be built under inference mode at all.

print("weight.t() requires grad:", frozen_model.weight.t().requires_grad)
print("weight.grad:", frozen_model.weight.grad, " bias.grad:", frozen_model.bias.grad)
assert frozen_model.weight.grad is None

# %%
# Fix 1: write it out of place, or inside the block
# -------------------------------------------------
# An out-of-place operation is allowed outside the block: it makes a new, ordinary tensor and
# leaves the inference tensor alone. The expected value is the mean of the per-batch losses,
# computed here independently:

expected = sum(((model(x) - y) ** 2).mean().item() for x, y in batches) / len(batches)

test_loss = 0
with torch.inference_mode():
    for inputs, targets in batches:
        test_loss += loss_fn(model(inputs), targets)
test_loss = test_loss / len(batches)  # fixed
print("out-of-place result is an inference tensor:", test_loss.is_inference())
torch.testing.assert_close(test_loss.item(), expected)
print("test loss:", test_loss.item())

# %%
# Inside inference mode the in-place division is allowed too: indenting the line into the
# ``with`` block is enough. Accumulating Python numbers with ``.item()`` avoids the question
# altogether:

test_loss = 0
with torch.inference_mode():
    for inputs, targets in batches:
        test_loss += loss_fn(model(inputs), targets)
    test_loss /= len(batches)  # fix: metric-after-block
torch.testing.assert_close(test_loss.item(), expected)

running = 0.0
with torch.inference_mode():
    for inputs, targets in batches:
        running += loss_fn(model(inputs), targets).item()
torch.testing.assert_close(running / len(batches), expected)

# %%
# Fix 2: clone before changing it
# -------------------------------
# ``clone()`` outside inference mode returns an ordinary tensor with a version counter of its
# own, which may then be changed in place:

with torch.inference_mode():
    total = sum(loss_fn(model(x), y) for x, y in batches)
total = total.clone()
total /= len(batches)
torch.testing.assert_close(total.item(), expected)

# %%
# For state, create it outside inference mode (in ``__init__``), so that evaluation only
# updates an ordinary tensor; the running total then keeps both updates:


class EagerRunningMean(RunningMean):
    def __init__(self) -> None:
        self.total = torch.zeros(())


tracker = EagerRunningMean()  # fix: state-created-in-inference
first_loss = loss_fn(model(batches[0][0]), batches[0][1]).detach()
with torch.inference_mode():
    tracker.update(loss_fn(model(batches[0][0]), batches[0][1]))
tracker.update(torch.tensor(0.5))
torch.testing.assert_close(tracker.total, first_loss + 0.5)

# %%
# Fix 3: build models you train outside inference mode
# ----------------------------------------------------
# The same model created normally trains: the weight gets its gradient and the optimizer step
# applies it. For the loss ``sum(w . x_i + b)`` the gradient of ``w`` is the sum of the inputs:

trained = nn.Linear(3, 1)  # fix: model-made-in-inference
optimizer = torch.optim.SGD(trained.parameters(), lr=0.1)
inputs = torch.randn(5, 3)
weight_before = trained.weight.detach().clone()
trained(inputs).sum().backward()
torch.testing.assert_close(trained.weight.grad, inputs.sum(0, keepdim=True))
optimizer.step()
torch.testing.assert_close(
    trained.weight.detach(), weight_before - 0.1 * inputs.sum(0, keepdim=True)
)
print("weight after one step:", trained.weight.detach())

# %%
# Loading weights into a model that exists is fine under inference mode: ``load_state_dict``
# copies them into the model's own parameters, which stay ordinary tensors, and training
# proceeds:

trained = nn.Linear(3, 1)
with torch.inference_mode():
    trained.load_state_dict(loaded_model.state_dict())
assert not trained.weight.is_inference()
trained(inputs).sum().backward()
torch.testing.assert_close(trained.weight.grad, inputs.sum(0, keepdim=True))
torch.optim.SGD(trained.parameters(), lr=0.1).step()

# %%
# Turning gradients on for an inference tensor is refused as well, with a message of its own
# ("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."): the
# cure is the same ``clone()``.


def require_grad_on_inference_tensor() -> None:
    with torch.inference_mode():
        made_inside = torch.ones(2)
    try:
        made_inside.requires_grad_()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")
    copy = made_inside.clone().requires_grad_()
    (copy * 3).sum().backward()
    torch.testing.assert_close(copy.grad, torch.full((2,), 3.0))


require_grad_on_inference_tensor()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inference-inplace
