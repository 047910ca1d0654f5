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
# The second classic: a model built (or loaded) inside inference mode, by a helper that wraps
# everything in it, and then trained. Its parameters are inference tensors, and the optimizer's
# in-place update is refused:

with torch.inference_mode():
    frozen_model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(frozen_model.parameters(), lr=0.1)
frozen_model(torch.randn(5, 3)).sum().backward()
try:
    optimizer.step()
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
    test_loss /= len(batches)
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
# Fix 3: build models you train outside inference mode
# ----------------------------------------------------
# The same model created normally trains: the weight gets its gradient and the optimizer step
# applies it. For the loss ``sum(w . x_i + b)`` the gradient of ``w`` is the sum of the inputs:

trained = nn.Linear(3, 1)
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
# Turning gradients on for an inference tensor is refused as well, with a message of its own
# ("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."): the
# cure is the same ``clone()``.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inference-inplace
