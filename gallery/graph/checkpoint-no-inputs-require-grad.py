"""
checkpoint-no-inputs-require-grad
=================================

.. autograd-entry:: checkpoint-no-inputs-require-grad

What reentrant checkpointing records
------------------------------------

Activation checkpointing trades compute for memory: the checkpointed function runs without
keeping its intermediate results, and runs again during backward to rebuild them. The
*reentrant* implementation (``use_reentrant=True``, what ``checkpoint`` still falls back to, with
a warning, when the argument is left out, and what many training scripts pass) does this with
one custom ``autograd.Function``: its forward runs the function under ``torch.no_grad()``, and
its backward re-runs it with grad enabled and calls ``backward()`` on the result (a backward
pass inside the backward pass: hence *reentrant*).

Autograd only knows the inputs of that Function: the tensors passed to ``checkpoint``. The
parameters used inside the function are invisible to it. So the output requires grad only if
one of the passed tensors does; if none does, the output is a constant as far as autograd is
concerned, the Function's backward never runs, and the parameters inside never get a gradient.
Torch sees it coming and warns.
"""

import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

# %%
# The repro
# ---------
# A small model in the shape of a LoRA fine-tune: frozen embeddings, a trainable block that is
# checkpointed to save memory, and a trainable head. The embeddings' output does not require
# grad, so the checkpointed block has no input that does:

embedding = nn.Embedding(10, 3)
embedding.requires_grad_(False)  # frozen
block = nn.Sequential(nn.Linear(3, 3), nn.Tanh())  # trainable, checkpointed
head = nn.Linear(3, 1)  # trainable
tokens = torch.tensor([1, 4, 7, 2])

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hidden = checkpoint(block, embedding(tokens), use_reentrant=True)  # broken
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# What "Gradients will be None" means
# -----------------------------------
# The training step runs without error, because the head requires grad and the loss has a
# graph. But the graph stops at the checkpoint's output: the block's parameters keep
# ``.grad = None``, and the optimizer silently never updates them.

loss = head(hidden).sum()
loss.backward()
print("hidden.requires_grad:", hidden.requires_grad)
print("block weight grad:", block[0].weight.grad)
print("head weight grad: ", head.weight.grad)
assert block[0].weight.grad is None
assert head.weight.grad is not None

# %%
# When the checkpointed part is the whole trainable model (every layer checkpointed, as with
# gradient checkpointing in a fine-tuning library), the loss does not require grad at all, and
# ``backward()`` raises the error of :doc:`/errors/graph/no-grad-fn`:


def whole_model_checkpointed():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warning shown above
        out = checkpoint(block, embedding(tokens), use_reentrant=True)
    try:
        out.sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


whole_model_checkpointed()

# %%
# The common causes
# -----------------
# Frozen embeddings before checkpointed trainable layers, as above: the usual LoRA or adapter
# fine-tune with gradient checkpointing switched on.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(block, embedding(tokens), use_reentrant=True)  # cause: frozen-embeddings
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# Leaving ``use_reentrant`` out is the same on torch 2.13: ``checkpoint`` falls back to the
# reentrant implementation, with a warning of its own (silenced here) asking to pass the
# argument explicitly.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="torch.utils.checkpoint: the use_reentrant")
    checkpoint(block, embedding(tokens))  # cause: frozen-embeddings
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# The first layer checkpointed directly on the data, which never requires grad:

images = torch.randn(4, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    features = checkpoint(block, images, use_reentrant=True)  # cause: raw-input
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# And evaluation under ``torch.no_grad()``, where the warning is harmless (see the pitfall
# below):

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.no_grad():
        checkpoint(block, images, use_reentrant=True)  # cause: evaluation
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# The gradient to expect
# ----------------------
# For ``loss = sum_i v . tanh(W e_i + b) + c`` (``v`` the head's weight, ``e_i`` the
# embeddings), the gradient of ``W`` is ``sum_i (v * (1 - a_i**2)) e_i^T`` with
# ``a_i = tanh(W e_i + b)``. The fixes below are checked against this formula.


def expected_block_grad():
    e = embedding(tokens)
    a = torch.tanh(e @ block[0].weight.detach().T + block[0].bias.detach())
    v = head.weight.detach()[0]
    return ((1 - a**2) * v).T @ e


# %%
# Fix 1: non-reentrant checkpointing
# ----------------------------------
# ``use_reentrant=False`` records the operations inside the function as usual and only drops
# (then recomputes) what they save. The parameters are part of the graph whatever the inputs,
# and there is no warning. PyTorch recommends this implementation.

block.zero_grad(set_to_none=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    embedded = embedding(tokens)
    hidden = checkpoint(block, embedded, use_reentrant=False)  # fixed  # fix: frozen-embeddings
assert not caught
head(hidden).sum().backward()  # fix: frozen-embeddings
torch.testing.assert_close(block[0].weight.grad, expected_block_grad())
print("block weight grad:", block[0].weight.grad)

# %%
# The same holds when the data go straight into the checkpointed block. For
# ``sum(tanh(W x + b))`` the gradient of ``b`` is ``sum(1 - tanh²)`` over the batch:

block.zero_grad(set_to_none=True)
features = checkpoint(block, images, use_reentrant=False)  # fix: raw-input
features.sum().backward()
torch.testing.assert_close(block[0].bias.grad, (1 - block(images).detach() ** 2).sum(0))

# %%
# Fix 2: make the checkpoint's input require grad
# -----------------------------------------------
# With reentrant checkpointing, give the Function an input that requires grad. The output of
# the frozen embedding is a fresh tensor with no history, so it may be switched on directly; a
# forward hook does it for every call (this is what Hugging Face's
# ``model.enable_input_require_grads()`` installs):

block.zero_grad(set_to_none=True)
handle = embedding.register_forward_hook(lambda module, args, output: output.requires_grad_())
hidden = checkpoint(block, embedding(tokens), use_reentrant=True)
head(hidden).sum().backward()
handle.remove()
torch.testing.assert_close(block[0].weight.grad, expected_block_grad())
print("block weight grad:", block[0].weight.grad)

# %%
# The embedding itself stays frozen. Its output has become a leaf of its own that requires
# grad: backward computes its gradient (one extra product per checkpointed segment) and stores
# it in that temporary tensor's ``.grad``, freed with it. The embedding table is not in the
# graph and receives nothing.

assert embedding.weight.grad is None

# %%
# Pitfall: the warning during evaluation
# --------------------------------------
# Under ``torch.no_grad()`` no input requires grad either, and reentrant checkpointing warns
# just the same. There it means nothing (no gradient was wanted) but it buries real warnings in
# the log. Skip checkpointing when grad mode is off: it saves nothing there anyway.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.no_grad():
        checkpoint(block, embedding(tokens), use_reentrant=True)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")


def run_block(x):
    if torch.is_grad_enabled():  # fix: evaluation
        return checkpoint(block, x, use_reentrant=False)  # fix: evaluation
    return block(x)  # fix: evaluation


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.no_grad():
        evaluated = run_block(embedding(tokens))  # fix: evaluation
assert not caught
torch.testing.assert_close(evaluated, block(embedding(tokens)))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: checkpoint-no-inputs-require-grad
