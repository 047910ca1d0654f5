"""
inference-requires-grad
=======================

.. autograd-entry:: inference-requires-grad

Inference tensors stay inference tensors
----------------------------------------

``torch.inference_mode()`` is a faster ``torch.no_grad()``: tensors created inside it are
*inference tensors*, which carry no autograd metadata and no version counter at all. They keep
that status after the block ends. Outside inference mode, asking one of them to require grad
would have autograd track a tensor it has no means to track, so torch refuses.
"""

import torch
from torch import nn

encoder = nn.Linear(4, 4)


@torch.inference_mode()
def encode(batch: torch.Tensor) -> torch.Tensor:
    """A frozen feature extractor, as libraries often write it."""
    return encoder(batch)


# %%
# The repro
# ---------
# A saliency map needs the gradient of a score with respect to the features, so the features
# must require grad; they come from a function that ran in inference mode:

head = nn.Linear(4, 1)
features = encode(torch.randn(3, 4))
print("inference tensor:", features.is_inference())
try:
    features.requires_grad_()  # broken  # cause: input-from-inference-mode
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: a normal copy, made outside inference mode
# -------------------------------------------------
# ``clone()`` outside inference mode makes an ordinary tensor. The gradient of
# ``sum(head(f))`` with respect to ``f`` is the head's weight on every row.

features = encode(torch.randn(3, 4)).clone()  # fixed  # fix: input-from-inference-mode
features.requires_grad_()  # fixed
head(features).sum().backward()
torch.testing.assert_close(features.grad, head.weight.detach().expand(3, 4))

# %%
# Or run the extractor under ``torch.no_grad()``: its outputs are ordinary tensors.

with torch.no_grad():
    features = encoder(torch.randn(3, 4))
features.requires_grad_()
head(features).sum().backward()
torch.testing.assert_close(features.grad, head.weight.detach().expand(3, 4))

# %%
# Weights made in inference mode
# ------------------------------
# A model built (or whose weights were loaded or merged) inside inference mode has inference
# tensors as parameters. Freezing and unfreezing it later fails:

with torch.inference_mode():
    adapter = nn.Linear(4, 1)
adapter.requires_grad_(False)
try:
    adapter.requires_grad_(True)  # cause: weights-made-in-inference-mode
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: build the model outside inference mode, then load the weights
# ---------------------------------------------------------------------
# ``load_state_dict`` copies the values into the ordinary parameters of a model built outside
# inference mode (changing ``.data`` is not enough: the parameter objects stay inference
# tensors without a version counter). The gradient of ``sum(W x + b)`` with respect to ``W``
# is ``x.sum(0)``.

trainable = nn.Linear(4, 1)  # fix: weights-made-in-inference-mode
trainable.load_state_dict(adapter.state_dict())  # fix: weights-made-in-inference-mode
trainable.requires_grad_(True)
x = torch.randn(5, 4)
trainable(x).sum().backward()
assert not trainable.weight.is_inference()
torch.testing.assert_close(trainable.weight.grad, x.sum(0, keepdim=True))
torch.testing.assert_close(trainable.weight.detach(), adapter.weight.clone())

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inference-requires-grad
