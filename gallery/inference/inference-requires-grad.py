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

import io

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
# Leaving inference mode inside a step that runs in it
# ----------------------------------------------------
# Evaluation loops often run the whole step under inference mode: Lightning runs ``test_step``
# and ``predict_step`` that way by default, so the batch is an inference tensor there. An
# adversarial or saliency evaluation leaves inference mode locally to get a gradient, and the
# batch it received still refuses:


@torch.inference_mode()
def evaluation_step(batch: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode(False):
        batch.requires_grad_()  # cause: input-from-inference-mode
        return head(batch).sum()


with torch.inference_mode():
    batch = torch.randn(3, 4)  # what the loop hands the step
try:
    evaluation_step(batch)  # cause: input-from-inference-mode
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# There, the clone is made inside ``torch.inference_mode(False)``, which is outside inference
# mode for the tensors it creates (in Lightning, ``Trainer(inference_mode=False)`` runs the loop
# under ``torch.no_grad()`` instead):


@torch.inference_mode()
def gradient_evaluation_step(batch: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode(False):
        batch = batch.clone().requires_grad_()  # fix: input-from-inference-mode
        (input_grad,) = torch.autograd.grad(head(batch).sum(), batch)
    return input_grad


torch.testing.assert_close(gradient_evaluation_step(batch), head.weight.detach().expand(3, 4))

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
# Unpickling a whole saved model under inference mode builds it there too (``load_state_dict``
# into a model built outside does not):

saved = io.BytesIO()
torch.save(nn.Linear(4, 1), saved)
saved.seek(0)
with torch.inference_mode():
    loaded = torch.load(saved, weights_only=False)
print("loaded weight is an inference tensor:", loaded.weight.is_inference())
try:
    loaded.requires_grad_(False).requires_grad_(True)  # cause: weights-made-in-inference-mode
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
