"""
checkpoint-use-reentrant
========================

.. autograd-entry:: checkpoint-use-reentrant

Two implementations behind one function
---------------------------------------

``torch.utils.checkpoint.checkpoint`` saves memory by not keeping a function's intermediate
results and running the function again during backward to rebuild them. It has two
implementations, chosen by ``use_reentrant``:

- ``use_reentrant=True``, the original one, wraps the call in a single ``autograd.Function``
  that runs it under ``torch.no_grad()`` and, during backward, runs it again and calls
  ``backward()`` inside the backward pass (hence *reentrant*). Autograd only sees the tensors
  passed to ``checkpoint``: when none of them requires grad, the parameters inside get no
  gradient (:doc:`/errors/graph/checkpoint-no-inputs-require-grad`); ``torch.autograd.grad``
  and ``backward(inputs=...)`` are refused (:doc:`/errors/graph/checkpoint-grad-incompatible`).
- ``use_reentrant=False`` records the function's operations as usual and only drops, then
  recomputes, what they save for backward (with saved-tensor hooks). It has none of those
  limits, and PyTorch recommends it.

Leaving the argument out has meant ``use_reentrant=True`` so far. Since torch 2.1, ``checkpoint``
(and, since 2.2, ``checkpoint_sequential``) warns that the choice should be made explicitly,
because the default is to change; the warning has named successive releases for that change
(2.4, 2.5, 2.9) and none has made it yet. Nothing is wrong with the gradients: this is a
deprecation warning, and passing the argument silences it.
"""

import warnings

import torch
from torch import nn
from torch.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

block = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
x = torch.randn(4, 3, requires_grad=True)

# %%
# The repro
# ---------
# A checkpointed block, called without ``use_reentrant``:

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint(block, x)  # broken
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# The result is the reentrant one: the same output and gradients as without checkpointing.
# For ``sum(tanh(W x + b))`` the gradient of ``b`` is ``sum(1 - tanh²)`` over the batch:

out.sum().backward()
expected_bias_grad = (1 - block(x).detach() ** 2).sum(0)
torch.testing.assert_close(block[0].bias.grad, expected_bias_grad)

# %%
# Common causes
# -------------
# Your own call to ``checkpoint``, written before torch 2.1 (when the argument could be left
# out silently), here in a model that checkpoints each layer:


class Checkpointed(nn.Module):
    def __init__(self, use_reentrant: bool | None = None) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(3, 3), nn.Tanh()) for _ in range(2))
        self.use_reentrant = use_reentrant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            if self.use_reentrant is None:
                x = checkpoint(layer, x)  # the argument left out
            else:
                x = checkpoint(layer, x, use_reentrant=self.use_reentrant)
        return x


model = Checkpointed()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(x)  # cause: own-call
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# ``checkpoint_sequential``, which splits an ``nn.Sequential`` into segments and checkpoints
# each, has a warning of its own (since torch 2.2):

layers = nn.Sequential(*(nn.Linear(3, 3) for _ in range(4)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint_sequential(layers, 2, x)  # cause: sequential
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# A library that checkpoints for you: gradient checkpointing switched on in a model library
# that calls ``checkpoint`` without the argument (older Hugging Face ``transformers`` did, and
# training scripts built on them). The warning then points into torch, not into your code.
# ``library_forward`` stands for such a library's code:


def library_forward(layer: nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    return checkpoint(layer, hidden)  # the library's call


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    library_forward(block, x)  # cause: library-call
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# Fix 1: ``use_reentrant=False``
# ------------------------------
# The recommended choice. Same output, same gradients, no warning:

block.zero_grad()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint(block, x, use_reentrant=False)  # fixed
assert not caught
out.sum().backward()
torch.testing.assert_close(block[0].bias.grad, expected_bias_grad)

# %%
# In the model, pass it at every call. The gradient is checked against the same model run
# without checkpointing:

model = Checkpointed(use_reentrant=False)  # fix: own-call
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(x).sum().backward()  # fix: own-call
assert not caught
plain = nn.Sequential(*model.layers)
expected = torch.autograd.grad(plain(x).sum(), plain[0][0].weight)[0]
torch.testing.assert_close(model.layers[0][0].weight.grad, expected)

# %%
# And to ``checkpoint_sequential``:

layers.zero_grad()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint_sequential(layers, 2, x, use_reentrant=False)  # fix: sequential
assert not caught
out.sum().backward()
expected = torch.autograd.grad(layers(x).sum(), layers[0].weight)[0]
torch.testing.assert_close(layers[0].weight.grad, expected)

# %%
# Fix 2: ``use_reentrant=True``, to keep the old behaviour
# ---------------------------------------------------------
# Code that relies on the reentrant implementation (a custom Function that is not compatible
# with saved-tensor hooks, say) keeps it by asking for it; the warning goes away too:

block.zero_grad()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint(block, x, use_reentrant=True)
assert not caught
out.sum().backward()
torch.testing.assert_close(block[0].bias.grad, expected_bias_grad)

# %%
# Fix 3: the library's own option
# -------------------------------
# Libraries that checkpoint for you take the argument through their own settings; in Hugging
# Face ``transformers`` it is ``gradient_checkpointing_kwargs={"use_reentrant": False}``, given
# to ``model.gradient_checkpointing_enable(...)`` or to ``TrainingArguments(...)``.
# Where a library has no such option yet, the warning is harmless: filter it by its message
# (it is a ``UserWarning`` from ``torch.utils.checkpoint``) until the library is updated.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="torch.utils.checkpoint")  # fix: library-call
    out = library_forward(block, x)  # fix: library-call
assert not caught
torch.testing.assert_close(out, block(x))

# %%
# What changes with ``use_reentrant=False``
# -----------------------------------------
# The non-reentrant implementation checks that the recomputation saves the same tensors as the
# first run. A function whose shapes change between the two calls (it reads state that changed
# in between) is refused during backward with a ``CheckpointError``
# (:doc:`/errors/graph/checkpoint-recomputed-metadata`), where the reentrant one would have
# computed something else without a word:

calls = []


def stateful(t: torch.Tensor) -> torch.Tensor:
    calls.append(1)
    return (t * t) if len(calls) == 1 else (t[:2] * t[:2])


def recompute_differs() -> None:
    y = checkpoint(stateful, torch.randn(3, requires_grad=True), use_reentrant=False)
    try:
        y.sum().backward()
    except CheckpointError as error:
        print(f"CheckpointError: {str(error).splitlines()[0]}")


recompute_differs()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: checkpoint-use-reentrant
