"""
checkpoint-grad-incompatible
============================

.. autograd-entry:: checkpoint-grad-incompatible

Why reentrant checkpointing needs a plain ``backward()``
--------------------------------------------------------

Reentrant checkpointing wraps the checkpointed function in one custom autograd Function. In the
forward pass it runs the function under ``no_grad``; in the backward pass it runs it again with
grad enabled and calls ``torch.autograd.backward()`` on the result: a backward pass inside the
backward pass. That inner pass accumulates into the ``.grad`` of every leaf the function used,
which is what a plain ``loss.backward()`` wants. ``torch.autograd.grad(...)`` and
``backward(inputs=...)`` want *only* some gradients, returned or accumulated selectively; the
inner pass cannot honour that, so the Function refuses.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

block = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
head = nn.Linear(3, 1)


def model(x: torch.Tensor, use_reentrant: bool) -> torch.Tensor:
    return head(checkpoint(block, x, use_reentrant=use_reentrant))


# %%
# The repro
# ---------
# A gradient penalty (as in WGAN-GP) needs the gradient of the output with respect to the
# input, through the checkpointed block:

x = torch.randn(4, 3, requires_grad=True)
try:
    out = model(x, use_reentrant=True)  # broken  # cause: autograd-grad
    torch.autograd.grad(out.sum(), x, create_graph=True)  # broken  # cause: autograd-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The gradient to expect
# ----------------------
# The same function without checkpointing gives the reference gradient.

reference = torch.autograd.grad(head(block(x)).sum(), x)[0]

# %%
# Fix 1: non-reentrant checkpointing
# ----------------------------------
# ``use_reentrant=False`` records the function's operations in the graph and only drops (then
# recomputes) what they save, so ``torch.autograd.grad`` works, double backward included.

out = model(x, use_reentrant=False)  # fixed  # fix: autograd-grad
(grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)  # fixed
torch.testing.assert_close(grad_x, reference)
penalty = (grad_x.norm(dim=1) - 1).pow(2).mean()
penalty.backward()
assert block[0].weight.grad is not None
print("gradient penalty:", penalty.item())

# %%
# ``backward(inputs=...)``
# ------------------------
# Asking ``backward`` to accumulate only into some tensors is the same kind of request:

x = torch.randn(4, 3, requires_grad=True)
try:
    model(x, use_reentrant=True).sum().backward(inputs=[x])  # cause: backward-inputs
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: the same with non-reentrant checkpointing
# ------------------------------------------------
# Only ``x`` receives a gradient; the block's parameters are left as they were.

block.zero_grad(set_to_none=True)
model(x, use_reentrant=False).sum().backward(inputs=[x])  # fix: backward-inputs
torch.testing.assert_close(x.grad, torch.autograd.grad(head(block(x)).sum(), x)[0])
assert block[0].weight.grad is None

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: checkpoint-grad-incompatible
