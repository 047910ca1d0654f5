"""
volatile-removed
================

.. autograd-entry:: volatile-removed

What ``volatile`` was, and what replaced it
-------------------------------------------

Before torch 0.4, tensors that took part in autograd were wrapped in ``Variable``, and
``Variable(x, volatile=True)`` marked an input for inference: everything computed from it
recorded no graph. Torch 0.4 merged ``Variable`` into ``Tensor`` and replaced the flag by a
mode, ``torch.no_grad()`` (and since 1.9 ``torch.inference_mode()``, which is stricter). The
argument and the attribute were kept so that old code still runs, but they do nothing: setting
them warns, reading ``.volatile`` warns and gives ``False``.

Nothing fails, which is the trouble: evaluation code written for 0.3 now records a graph for
every batch, and holds the activations it saves, as training does.
"""

import warnings

import torch
from torch import nn
from torch.autograd import Variable

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
images = torch.randn(4, 8)

# %%
# The repro
# ---------
# An evaluation step of torch 0.3 code: the input wrapped as volatile.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    inputs = Variable(images, volatile=True)  # broken  # cause: volatile-inference
    outputs = model(inputs)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("graph recorded anyway:", outputs.requires_grad, type(outputs.grad_fn).__name__)

# %%
# Fix 1: evaluate under ``torch.no_grad()``
# -----------------------------------------
# Tensors need no ``Variable`` wrapper any more; the mode goes around the evaluation loop.
# Nothing computed inside records a graph, and the outputs are the same numbers:

with torch.no_grad():  # fixed  # fix: volatile-inference
    outputs = model(images)  # fixed
assert not outputs.requires_grad
assert outputs.grad_fn is None
torch.testing.assert_close(outputs, model(images).detach())
with torch.inference_mode():  # fix: volatile-inference
    outputs = model(images)
assert not outputs.requires_grad

# %%
# Libraries written for 0.3 warn from their own code (old torchtext fields built
# ``Variable(arr, volatile=not train)``): the same fix applies, in your evaluation loop, until
# the library is updated.
#
# Reading ``.volatile``
# ---------------------
# Code that asked a tensor whether it was volatile, to skip work that only training needs (a
# backward hook, a dropout mask), now always gets ``False`` and does that work during
# evaluation too:

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.no_grad():
        hidden = model[0](images)
        skip_training_only_work = hidden.volatile  # cause: volatile-flag-read
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("volatile under no_grad:", skip_training_only_work)

# %%
# Fix 2: ask the grad mode, or the tensor's ``requires_grad``
# -----------------------------------------------------------
# ``torch.is_grad_enabled()`` says whether operations are being recorded now; ``requires_grad``
# whether this tensor takes part in a graph:

with torch.no_grad():
    hidden = model[0](images)
    skip_training_only_work = not torch.is_grad_enabled()  # fix: volatile-flag-read
    assert skip_training_only_work
    assert not hidden.requires_grad
hidden = model[0](images)
assert torch.is_grad_enabled()  # fix: volatile-flag-read
assert hidden.requires_grad

# %%
# Both flags at once
# ------------------
# Asking for ``volatile`` and ``requires_grad`` together is still refused, as 0.3 refused it:

try:
    Variable(images, volatile=True, requires_grad=True)
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: volatile-removed
