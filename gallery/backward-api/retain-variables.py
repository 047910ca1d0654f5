"""
retain-variables
================

.. autograd-entry:: retain-variables

An argument renamed in 2017
---------------------------

Backward frees the values the graph saved for it (the inputs of a multiplication, the output of
an exponential) as it uses them, so that a second backward pass through the same graph fails
(:doc:`/errors/graph/backward-twice`). Keeping them is what the argument is for. torch 0.1
called it ``retain_variables``; torch 0.2 renamed it ``retain_graph``, which describes what is
kept, and warned about the old name; torch 0.4 removed it. ``backward`` and
``torch.autograd.backward`` have had no such parameter since, so Python refuses the keyword
before torch sees it. Code written for torch 0.1 to 0.3 (tutorials of GANs, of neural style
transfer, of feature visualisation) still carries it.
"""

import torch

# %%
# The repro
# ---------
# A discriminator's loss is back-propagated, then the generator's, through the same graph:
# the first backward must keep the graph, which the old code asked for with
# ``retain_variables``:

weight = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
inputs = torch.tensor([1.0, 2.0, 3.0])
score = (weight * inputs).exp().sum()
try:
    score.backward(retain_variables=True)  # broken  # cause: old-tutorial-code
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# The function form raises the same, with the function's name:

try:
    torch.autograd.backward(score, retain_variables=True)  # cause: old-tutorial-code
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Fix: ``retain_graph=True``
# --------------------------
# The new name does what the old one did. The graph survives the first backward, and the second
# adds its gradient to the first: :math:`x_i e^{w_i x_i}`, twice.

score = (weight * inputs).exp().sum()
score.backward(retain_graph=True)  # fixed  # fix: old-tutorial-code
score.backward()
expected = inputs * (weight.detach() * inputs).exp()
torch.testing.assert_close(weight.grad, 2 * expected)
print("weight.grad =", weight.grad)

# %%
# Keep the graph only where a second backward follows: the last backward through a graph needs
# no argument, and a graph kept without need holds its saved values in memory until it is
# dropped. When both losses are known together, one backward of their sum does the same work
# once:

weight.grad = None
score = (weight * inputs).exp().sum()
(score + score).backward()
torch.testing.assert_close(weight.grad, 2 * expected)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: retain-variables
