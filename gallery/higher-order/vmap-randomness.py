"""
vmap-randomness
===============

.. autograd-entry:: vmap-randomness

Random numbers under vmap
-------------------------

``torch.func.vmap(f)`` runs ``f`` once, on batched tensors that stand for every sample at
once. A random operation inside ``f`` (dropout, ``torch.randn_like``, ``torch.rand``,
``bernoulli``) then has two possible meanings: one draw shared by every sample, or a draw of
its own for each. vmap will not guess: with its default ``randomness="error"`` it refuses the
random operation, and you choose with ``randomness="different"`` (each sample its own numbers,
as an ordinary batch would get) or ``randomness="same"`` (one draw, repeated).

Per-sample gradients (``vmap(grad(loss))``) and model ensembling run the whole model under
vmap, so a ``Dropout`` layer in training mode is enough. ``jacrev``, ``jacfwd`` and ``hessian``
use vmap internally too.
"""

import torch
from torch import nn
from torch.func import functional_call, grad, vmap

# %%
# The repro
# ---------
# Per-sample gradients of a small classifier with dropout, in training mode:

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
params = {name: p.detach() for name, p in model.named_parameters()}
inputs = torch.randn(6, 4)
labels = torch.tensor([0, 1, 2, 1, 0, 2])


def sample_loss(params, x, label):
    logits = functional_call(model, params, (x.unsqueeze(0),))
    return nn.functional.cross_entropy(logits, label.unsqueeze(0))


per_sample_grads = vmap(grad(sample_loss), in_dims=(None, 0, 0))  # broken
try:
    per_sample_grads(params, inputs, labels)  # cause: dropout-in-model
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: say which randomness you mean
# ------------------------------------
# ``randomness="different"`` gives each sample a dropout mask of its own, as the same batch
# would get in an ordinary forward pass. The check replays the random generator: from the same
# state, the masks that dropout draws for an ordinary batch of six, and each sample's gradient
# computed by hand with its own mask.

generator_state = torch.get_rng_state()
per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0), randomness="different")  # fixed
grads = per_sample(params, inputs, labels)  # fix: dropout-in-model
print("per-sample weight gradients:", tuple(grads["0.weight"].shape))

torch.set_rng_state(generator_state)
masks = torch.empty(6, 8).bernoulli_(0.5) / 0.5  # what dropout draws for a batch of six
for i in range(6):
    hidden = torch.relu(inputs[i : i + 1] @ params["0.weight"].T + params["0.bias"]) * masks[i]
    weight = params["3.weight"].clone().requires_grad_()
    logits = hidden @ weight.T + params["3.bias"]
    loss = nn.functional.cross_entropy(logits, labels[i : i + 1])
    (expected,) = torch.autograd.grad(loss, weight)
    torch.testing.assert_close(grads["3.weight"][i], expected)

# %%
# Fix 2: no dropout at all
# ------------------------
# When the per-sample gradients are for analysis (influence, attribution, clipping audits) and
# not for a training step, the model can be evaluated without dropout: ``model.eval()`` turns
# it into the identity, and nothing random is left under vmap. Each sample's gradient is then
# the gradient of its loss alone, as ``backward()`` on the model computes it:

model.eval()  # fix: dropout-in-model
grads = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, inputs, labels)
for i in range(6):
    model.zero_grad()
    nn.functional.cross_entropy(model(inputs[i : i + 1]), labels[i : i + 1]).backward()
    torch.testing.assert_close(grads["3.weight"][i], model[3].weight.grad)
model.train()

# %%
# Noise drawn inside the function
# -------------------------------
# The same message for noise added inside a vmapped function: data augmentation, a diffusion
# step, the reparametrisation of a variational model.


def noisy_square(x):
    return (x + 0.1 * torch.randn_like(x)).pow(2).sum()


batch = torch.randn(5, 3)
try:
    vmap(grad(noisy_square))(batch)  # cause: noise-in-function
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: draw the noise outside, pass it in
# -----------------------------------------
# Drawn before vmap and passed as an input, the noise is data: batched like the rest, one row
# per sample, and reproducible. The gradient of :math:`\lVert x + 0.1 n \rVert^2` is
# :math:`2 (x + 0.1 n)`:


def square_with_noise(x, noise):
    return (x + 0.1 * noise).pow(2).sum()


noise = torch.randn_like(batch)  # fixed
grads = vmap(grad(square_with_noise))(batch, noise)  # fix: noise-in-function
torch.testing.assert_close(grads, 2 * (batch + 0.1 * noise))

# %%
# The flags' own limits
# ---------------------
# Each flag refuses what it cannot honour. ``randomness="same"`` cannot draw one shared value
# where each sample has its own parameters (``bernoulli`` of a batched probability), and
# ``randomness="different"`` cannot fill an unbatched tensor in place with a different draw per
# sample, since the tensor has room for one:

probabilities = torch.rand(4, 3)
try:
    vmap(torch.bernoulli, randomness="same")(probabilities)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    vmap(lambda row: row + torch.zeros(3).normal_(), randomness="different")(batch)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Drawn out of place (``torch.randn(3)`` instead of ``torch.zeros(3).normal_()``), the noise
# is batched, and each row differs:

rows = vmap(lambda row: row + torch.randn(3), randomness="different")(batch)
assert not torch.allclose(rows[0] - batch[0], rows[1] - batch[1])

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: vmap-randomness
