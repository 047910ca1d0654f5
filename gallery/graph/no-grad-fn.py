"""
no-grad-fn
==========

.. autograd-entry:: no-grad-fn

Where gradients come from
-------------------------

``backward()`` starts at the tensor you call it on and follows its ``grad_fn`` back to the
leaves. A tensor computed only from tensors that do not require grad has no ``grad_fn``: there
is nothing to follow. ``detach()`` makes exactly such a tensor: same values, no history.
"""

import warnings

import numpy as np
import torch
from torch.utils.checkpoint import checkpoint

x = torch.randn(3, requires_grad=True)
print("(x * 2).grad_fn:         ", (x * 2).grad_fn)
print("(x.detach() * 2).grad_fn:", (x.detach() * 2).grad_fn)

# %%
# The repro
# ---------
# A loss computed from a detached tensor:

x = torch.randn(3, requires_grad=True)
loss = (x.detach() * 2).sum()  # broken
try:
    loss.backward()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``detach()`` on purpose: stopping gradients at a layer
# ------------------------------------------------------
# The notes use ``detach()`` to train only the second of two layers: everything before the
# ``detach()`` receives no gradient. That works because the loss still depends on
# ``layer2.weight``, which requires grad. Detach *every* path to the parameters (or freeze them
# all) and there is no graph left: the error above.


class TwoLayers(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer1 = torch.nn.Linear(4, 8, bias=False)
        self.layer2 = torch.nn.Linear(8, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.layer1(x)).detach()
        return self.layer2(hidden)


model = TwoLayers()
model(torch.randn(5, 4)).sum().backward()
print("layer1.weight.grad:", model.layer1.weight.grad)
print("layer2.weight.grad is set:", model.layer2.weight.grad is not None)

# %%
# The common causes
# -----------------
# Reentrant checkpointing over a block whose input does not require grad. A LoRA-style
# fine-tune freezes the embeddings; with ``use_reentrant=True`` the checkpointed block records
# only its inputs, so the trainable parameters inside are out of the graph, and when every
# trainable part is checkpointed the loss has no graph at all (the warning of
# :doc:`/errors/graph/checkpoint-no-inputs-require-grad` comes first):

embedding = torch.nn.Embedding(10, 4)
embedding.requires_grad_(False)
block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh())
tokens = torch.tensor([1, 5, 7])
frozen = embedding(tokens)  # does not require grad
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hidden = checkpoint(block, frozen, use_reentrant=True)  # cause: reentrant-checkpoint
    hidden.sum().backward()  # cause: reentrant-checkpoint
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Frozen parameters, or detached inputs on every path: nothing the loss depends on requires
# grad.

model = TwoLayers()
try:
    model.layer2.requires_grad_(False)  # cause: frozen-or-detached
    model(torch.randn(5, 4)).sum().backward()  # cause: frozen-or-detached
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same for a tensor created without ``requires_grad``, the leaf one meant to train:

try:
    scale = torch.ones(3)  # cause: frozen-or-detached
    (scale * torch.randn(3)).sum().backward()  # cause: frozen-or-detached
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A loss computed with grad mode off, by evaluation code reused for training:


@torch.no_grad()  # cause: no-grad-mode
def evaluate(model: torch.nn.Module, batch: torch.Tensor) -> torch.Tensor:
    return model(batch).pow(2).mean()


model = TwoLayers()
try:
    evaluate(model, torch.randn(5, 4)).backward()  # cause: no-grad-mode
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    with torch.inference_mode():  # cause: no-grad-mode
        loss = model(torch.randn(5, 4)).pow(2).mean()  # cause: no-grad-mode
    loss.backward()  # cause: no-grad-mode
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A loss made of operations that have no gradient: ``argmax`` returns integers, comparisons
# booleans, and casting to an integer type drops the graph. An accuracy is such a loss:

logits = torch.randn(6, 3, requires_grad=True)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
try:
    accuracy = (logits.argmax(dim=1) == labels).float().mean()  # cause: non-differentiable-loss
    accuracy.backward()  # cause: non-differentiable-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    logits.long().float().sum().backward()  # cause: non-differentiable-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Losses rebuilt as a new tensor. ``torch.tensor`` copies the values and nothing else (it also
# warns about converting tensors that require grad):

weight = torch.randn(3, requires_grad=True)
loss_a, loss_b = weight.sum(), weight.pow(2).sum()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    combined = torch.tensor([loss_a, loss_b]).sum()
try:
    combined.backward()  # cause: rewrapped-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    torch.tensor(loss_a.item()).backward()  # cause: rewrapped-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A NumPy round trip does the same: the tensor that comes back is new, with no history.

try:
    from_numpy = torch.from_numpy(np.tanh(weight.detach().numpy()))
    from_numpy.sum().backward()  # cause: rewrapped-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix: keep a path to what you train
# ----------------------------------
# Remove the ``detach()`` (or the ``torch.no_grad()`` block, or the ``.item()`` / NumPy round
# trip) on the path from the loss to the tensors you want gradients for. The gradient of
# ``sum(2 x)`` is 2 everywhere:

x = torch.randn(3, requires_grad=True)
loss = (x * 2).sum()  # fixed
loss.backward()  # fixed
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))
print("x.grad =", x.grad)

# %%
# For checkpointing, ``use_reentrant=False`` records the operations inside the block, whatever
# its inputs; or, with reentrant checkpointing, make the block's input require grad with a
# forward hook on the embedding (what Hugging Face's ``enable_input_require_grads()``
# installs). The gradient of ``sum(tanh(W e + b))`` with respect to ``b`` is
# ``sum(1 - tanh²)`` over the tokens:

block.zero_grad(set_to_none=True)
hidden = checkpoint(block, embedding(tokens), use_reentrant=False)  # fix: reentrant-checkpoint
hidden.sum().backward()
expected = (1 - block(embedding(tokens)).detach() ** 2).sum(0)
torch.testing.assert_close(block[0].bias.grad, expected)

block.zero_grad(set_to_none=True)


def require_grad(module: torch.nn.Module, args: tuple, out: torch.Tensor) -> torch.Tensor:
    return out.requires_grad_()


handle = embedding.register_forward_hook(require_grad)  # fix: reentrant-checkpoint
hidden = checkpoint(block, embedding(tokens), use_reentrant=True)  # fix: reentrant-checkpoint
hidden.sum().backward()
handle.remove()
torch.testing.assert_close(block[0].bias.grad, expected)

# %%
# Unfreeze what should train, and compute the training loss with grad mode on. For
# ``sum(W2 h)`` the gradient of ``W2`` is the column sums of the hidden layer:

model = TwoLayers()
model.layer2.requires_grad_(True)  # fix: frozen-or-detached
batch = torch.randn(5, 4)
model(batch).sum().backward()
hidden_layer = torch.relu(model.layer1(batch)).detach()
torch.testing.assert_close(model.layer2.weight.grad, hidden_layer.sum(0, keepdim=True))

model = TwoLayers()
model(batch).pow(2).mean().backward()  # fix: no-grad-mode
output = model(batch).detach()
hidden_layer = torch.relu(model.layer1(batch)).detach()
torch.testing.assert_close(model.layer2.weight.grad, 2 / 5 * output.T @ hidden_layer)

# %%
# Train on a differentiable loss (cross-entropy on the logits) and keep the accuracy for the
# log. The gradient of the mean cross-entropy is ``(softmax - one_hot) / N``:

logits = torch.randn(6, 3, requires_grad=True)
loss = torch.nn.functional.cross_entropy(logits, labels)  # fix: non-differentiable-loss
loss.backward()  # fix: non-differentiable-loss
one_hot = torch.nn.functional.one_hot(labels, 3).float()
torch.testing.assert_close(logits.grad, (logits.detach().softmax(1) - one_hot) / 6)
accuracy = (logits.argmax(dim=1) == labels).float().mean().item()

# %%
# Combine losses with torch operations; the gradient of ``sum(w) + sum(w²)`` is ``1 + 2w``:

weight = torch.randn(3, requires_grad=True)
loss_a, loss_b = weight.sum(), weight.pow(2).sum()
torch.stack([loss_a, loss_b]).sum().backward()  # fix: rewrapped-loss
torch.testing.assert_close(weight.grad, 1 + 2 * weight.detach())

# %%
# Pitfall: ``loss.requires_grad = True``
# ---------------------------------------
# A loss without a graph is a leaf, so its flag may be switched on, and the error goes away.
# But ``backward()`` then stops at the loss itself: no parameter gets a gradient, and the model
# never trains.

model = TwoLayers()
loss = evaluate(model, batch)
loss.requires_grad = True
loss.backward()
print("layer2.weight.grad after loss.requires_grad = True:", model.layer2.weight.grad)
assert model.layer2.weight.grad is None

# %%
# To find the cut in a real model, walk back from the loss and print ``requires_grad`` and
# ``grad_fn`` of each intermediate result; the first one without a ``grad_fn`` is where the
# graph ends.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: no-grad-fn
