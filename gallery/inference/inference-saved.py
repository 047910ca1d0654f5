"""
inference-saved
===============

.. autograd-entry:: inference-saved

What inference mode leaves out
------------------------------

``torch.inference_mode()`` is ``torch.no_grad()`` taken further. Under ``no_grad`` autograd
records nothing, but every tensor still gets the bookkeeping autograd may need later: a version
counter, and room for autograd metadata. Under ``inference_mode`` the tensors created are
*inference tensors*, made without any of it, which saves a little time and memory per
operation. The price: autograd can never rely on them afterwards.
"""

import torch
from torch import nn

with torch.inference_mode():
    made_in_inference_mode = torch.ones(3)
with torch.no_grad():
    made_under_no_grad = torch.ones(3)
print("inference_mode:", made_in_inference_mode.is_inference())
print("no_grad:       ", made_under_no_grad.is_inference())

# %%
# The repro
# ---------
# A linear probe: the features of a frozen backbone are computed once, under inference mode,
# then a trainable head is fitted on them. The error comes at the forward call of the head, not
# at ``backward()``:

backbone = nn.Sequential(nn.Linear(8, 4), nn.ReLU())  # frozen, pretrained
head = nn.Linear(4, 2)  # trained
images = torch.randn(16, 8)
with torch.inference_mode():  # broken
    features = backbone(images)  # broken
try:
    logits = head(features)  # cause: features-made-in-inference
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# The repro above is one. More often the inference tensor hides in a cache that a model fills
# the first time it needs it. If that first time is an evaluation (or text generation) under
# inference mode, the cache is an inference tensor, and the next training step fails, in a
# forward pass that looks innocent:


class Rotary(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cos_cached: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.cos_cached is None or self.cos_cached.shape[0] < x.shape[0]:
            positions = torch.arange(x.shape[0], dtype=x.dtype)
            self.cos_cached = torch.cos(positions)[:, None]
        return x * self.cos_cached[: x.shape[0]]


rotary = Rotary()
projection = nn.Linear(4, 4)
with torch.inference_mode():  # evaluation ran first
    rotary(projection(torch.randn(6, 4)))
try:
    rotary(projection(torch.randn(6, 4)))  # cause: cache-made-in-inference
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And autograd inside an evaluation loop that runs under inference mode, as PyTorch Lightning's
# validation, test and predict loops do by default. Leaving inference mode locally does not turn
# the batch the loop created into an ordinary tensor:

try:
    with torch.inference_mode():  # the evaluation loop
        batch = torch.randn(4, 8)
        with torch.inference_mode(False):
            backbone(batch)  # cause: autograd-in-evaluation
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Why autograd refuses
# --------------------
# To compute the gradient of ``head.weight`` later, the matrix product inside ``head`` must
# *save* its input, ``features``, for the backward pass. Saving a tensor includes recording its
# version, so that an in-place change made before ``backward()`` is caught instead of giving a
# wrong gradient (see :doc:`/errors/inplace/inplace-modified`). An inference tensor has no version
# counter: autograd could not guarantee the saved value, so it refuses to save it at all.
#
# Using an inference tensor is fine when nothing has to save it. Its sum, computed outside
# inference mode, is an ordinary tensor; and adding it to a parameter saves neither operand
# (the gradient of a sum does not depend on them):

print("features.sum(0) is an inference tensor:", features.sum(0).is_inference())
bias = torch.zeros(4, requires_grad=True)
(features + bias).sum().backward()
torch.testing.assert_close(bias.grad, torch.full((4,), 16.0))
print("bias.grad =", bias.grad)

# %%
# So the error depends on the operation, not only on the tensor: ``head(features)`` fails
# because the head's weight requires grad and its gradient needs ``features``.
#
# Fix 1: use ``torch.no_grad()`` for what training reuses
# --------------------------------------------------------
# Under ``no_grad`` the backbone still records no graph and keeps no activations, but its
# outputs are ordinary tensors that the head can save. The gradient of ``sum(head(features))``
# with respect to ``head.weight`` is, for every output row, the sum of the feature rows:

with torch.no_grad():  # fixed
    features = backbone(images)  # fixed
head(features).sum().backward()  # fix: features-made-in-inference
torch.testing.assert_close(head.weight.grad, features.sum(0).expand(2, 4))
torch.testing.assert_close(head.bias.grad, torch.full((2,), 16.0))
print("head.weight.grad =", head.weight.grad)

# %%
# The cache: rebuild it when it is an inference tensor. The training step then saves an
# ordinary tensor, and the gradient of ``sum(projection(x) * cos)`` with respect to the
# projection's bias is the sum of the cosines:


class SafeRotary(Rotary):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.cos_cached is not None and self.cos_cached.is_inference():
            self.cos_cached = self.cos_cached.clone()
        return super().forward(x)


rotary = SafeRotary()  # fix: cache-made-in-inference
projection = nn.Linear(4, 4)
with torch.inference_mode():
    rotary(projection(torch.randn(6, 4)))
rotary(projection(torch.randn(6, 4))).sum().backward()  # fix: cache-made-in-inference
torch.testing.assert_close(projection.bias.grad, torch.cos(torch.arange(6.0)).sum().expand(4))
print("projection.bias.grad =", projection.bias.grad)

# %%
# With PyTorch Lightning, validation, test and prediction run under inference mode by default
# (``Trainer(inference_mode=True)``); a step that needs autograd there, or whose outputs are
# reused in training, calls for ``Trainer(inference_mode=False)``, which makes them use
# ``no_grad`` instead. Without Lightning, the same: run that evaluation under ``no_grad``, where
# ``torch.enable_grad()`` turns recording back on. The gradient of ``sum(backbone(x))`` with
# respect to the batch is the first layer's weight, masked by the ReLU, summed over outputs:

with torch.no_grad():  # fix: autograd-in-evaluation
    batch = torch.randn(4, 8)  # fix: autograd-in-evaluation
    with torch.enable_grad():  # fix: autograd-in-evaluation
        batch.requires_grad_()
        hidden = backbone[0](batch)
        (saliency,) = torch.autograd.grad(backbone[1](hidden).sum(), batch)
expected = (hidden.detach() > 0).float() @ backbone[0].weight.detach()
torch.testing.assert_close(saliency, expected)
# %%
# Fix 2: clone the inference tensor
# ---------------------------------
# When the tensors already exist (a cache computed by someone else's code), ``clone()`` outside
# inference mode makes an ordinary copy, with a version counter of its own:

head = nn.Linear(4, 2)
with torch.inference_mode():
    cached = backbone(images)
features = cached.clone()
print("clone is an inference tensor:", features.is_inference())
head(features).sum().backward()
torch.testing.assert_close(head.weight.grad, cached.sum(0).expand(2, 4))
print("head.weight.grad =", head.weight.grad)

# %%
# The copy costs memory once per tensor: for a large cache, recomputing under ``no_grad`` (fix
# 1) avoids holding both.
#
# Pitfall: ``detach()`` does not help
# -----------------------------------
# ``detach()`` returns a new tensor sharing the same data, and with it the same missing version
# counter: the detached tensor is an inference tensor too, and the head still refuses it.

detached = cached.detach()
print("detach() is an inference tensor:", detached.is_inference())
try:
    head(detached)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inference-saved
