"""
deepcopy-nonleaf
================

.. autograd-entry:: deepcopy-nonleaf

What ``copy.deepcopy`` can copy
-------------------------------

``Tensor.__deepcopy__`` copies a tensor's data and, for a leaf, its ``requires_grad``: the copy
is a new leaf, as if created by hand. A tensor computed from others that require grad (the
output of an operation, with a ``grad_fn``) cannot be copied that way: the copy would have to
either belong to the same graph (it is not the same tensor) or be cut from it (then it is not a
copy), so torch refuses. A module is deep-copied attribute by attribute, so the error reaches
``copy.deepcopy(model)`` whenever the module holds such a tensor as a plain attribute: a
forward result it kept, the ``weight`` that the old ``weight_norm`` and ``spectral_norm``
compute from their parameters, the ``weight`` that pruning computes from ``weight_orig`` and
its mask. Parameters and buffers are leaves and copy fine.
"""

import copy

import torch
import torch.nn.utils.prune as prune
from torch import nn

# %%
# The repro
# ---------
# A module that keeps its last output for inspection, then copied for an exponential moving
# average of its weights (``ModelEMA`` in the YOLO repositories does ``deepcopy(model)``):


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 2)
        self.last_output = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.linear(x)
        self.last_output = out  # broken: a tensor of the graph, kept on the module
        return out


model = Head()
model(torch.randn(3, 4))
try:
    ema = copy.deepcopy(model)  # broken  # cause: cached-output
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: keep a detached tensor, or none
# --------------------------------------
# What is kept for inspection needs no graph: ``detach()`` it (it shares the data, costs
# nothing, and lets the graph be freed). The copy is then a real copy: equal weights, separate
# tensors.


class FixedHead(Head):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.linear(x)
        self.last_output = out.detach()  # fixed
        return out


model = FixedHead()
model(torch.randn(3, 4))
ema = copy.deepcopy(model)  # fix: cached-output
torch.testing.assert_close(ema.linear.weight, model.linear.weight)
assert ema.linear.weight.data_ptr() != model.linear.weight.data_ptr()
assert ema.linear.weight.is_leaf
assert ema.linear.weight.requires_grad

# %%
# For a module you cannot change, drop the attribute before copying (the copy does not need
# what the last forward pass left behind):

model = Head()
model(torch.randn(3, 4))
model.last_output = None  # fix: cached-output
ema = copy.deepcopy(model)
torch.testing.assert_close(ema.linear.weight, model.linear.weight)

# %%
# ``weight_norm`` and ``spectral_norm`` (the old hook-based ones)
# ---------------------------------------------------------------
# ``torch.nn.utils.weight_norm`` replaces ``weight`` by two parameters, ``weight_g`` and
# ``weight_v``, and recomputes ``weight`` from them before every forward, as a plain attribute.
# That attribute is computed, not a leaf, from the moment the function is applied.
# ``spectral_norm`` does the same from the first forward pass in training mode. Torch 2.1 added
# the name of this case to the message.

layer = nn.utils.weight_norm(nn.Linear(4, 2))
print("weight is a leaf:", layer.weight.is_leaf)
print("parameters:", [name for name, _ in layer.named_parameters()])
try:
    copy.deepcopy(layer)  # cause: weight-norm
except RuntimeError as error:
    print(f"RuntimeError: {error}")
normalised = nn.utils.spectral_norm(nn.Linear(4, 2))
normalised(torch.randn(3, 4))  # spectral_norm computes its weight at each training forward
try:
    copy.deepcopy(normalised)  # cause: weight-norm
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: the parametrization, or copy through a state dict
# --------------------------------------------------------
# ``torch.nn.utils.parametrizations.weight_norm`` (torch 2.1 and later; ``spectral_norm``
# there too) computes ``weight`` on access, from parameters registered in
# ``parametrizations.weight``: nothing computed is stored, and the module copies. The two give
# the same weight for the same ``g`` and ``v``.

old = nn.utils.weight_norm(nn.Linear(4, 2))
if hasattr(nn.utils.parametrizations, "weight_norm"):  # torch 2.1 and later
    new = nn.utils.parametrizations.weight_norm(nn.Linear(4, 2))  # fixed  # fix: weight-norm
    with torch.no_grad():
        new.parametrizations.weight.original0.copy_(old.weight_g)
        new.parametrizations.weight.original1.copy_(old.weight_v)
    copied = copy.deepcopy(new)
    torch.testing.assert_close(copied.weight, old.weight)

# %%
# On any release, a copy can be made the way checkpoints are: a new module of the same
# structure, and the state dict (which holds ``weight_g`` and ``weight_v``, not the computed
# ``weight``). Its gradients then flow to its own parameters:

copied = nn.utils.weight_norm(nn.Linear(4, 2))
copied.load_state_dict(old.state_dict())  # fix: weight-norm
x = torch.randn(3, 4)
copied(x).sum().backward()
torch.testing.assert_close(copied(x), old(x))
expected = torch.autograd.grad(old(x).sum(), old.weight_v)[0]
torch.testing.assert_close(copied.weight_v.grad, expected)

# %%
# A pruned layer
# --------------
# ``torch.nn.utils.prune`` keeps the original weight as ``weight_orig``, the mask as a buffer,
# and ``weight = weight_orig * weight_mask`` as a computed attribute:

layer = nn.Linear(4, 2)
prune.l1_unstructured(layer, "weight", amount=0.5)
try:
    copy.deepcopy(layer)  # cause: pruned
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: make the pruning permanent first
# ---------------------------------------
# ``prune.remove`` turns the pruned weight into an ordinary parameter (zeros where the mask
# was), after which the layer copies. Copy before pruning if the copy should keep the
# reparametrisation.

prune.remove(layer, "weight")  # fix: pruned
copied = copy.deepcopy(layer)
assert (copied.weight == 0).sum().item() == 4
torch.testing.assert_close(copied.weight, layer.weight)

# %%
# Deep-copying a computed tensor itself
# -------------------------------------
# The same refusal for a dict of results: a model's output stored with the data, then copied
# (data pipelines' copy transforms do this).

net = nn.Linear(4, 2)
batch = {"image": torch.randn(3, 4)}
batch["pred"] = net(batch["image"])
try:
    saved = copy.deepcopy(batch)  # cause: computed-tensor-copied
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 4: ``clone()`` to stay in the graph, ``detach()`` to leave it
# -----------------------------------------------------------------
# ``clone()`` is differentiable: a cloned prediction still sends gradients to the model.
# ``detach().clone()`` is a copy of the values alone, which is what a saved result needs.

kept = {key: value.clone() for key, value in batch.items()}  # fix: computed-tensor-copied
saved = {key: value.detach().clone() for key, value in batch.items()}  # fix: computed-tensor-copied
kept["pred"].sum().backward()
torch.testing.assert_close(net.weight.grad, batch["image"].sum(0).expand(2, 4))
assert saved["pred"].grad_fn is None
assert not saved["pred"].requires_grad

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: deepcopy-nonleaf
