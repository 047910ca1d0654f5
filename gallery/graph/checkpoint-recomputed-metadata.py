"""
checkpoint-recomputed-metadata
==============================

.. autograd-entry:: checkpoint-recomputed-metadata

What non-reentrant checkpointing checks
---------------------------------------

``checkpoint(fn, x, use_reentrant=False)`` runs ``fn`` once in the forward pass, but instead of
keeping the tensors its operations save for backward, it keeps only their shape, dtype and
device. When backward reaches the checkpointed region, it runs ``fn`` again to get those tensors
back, and compares each with what it recorded. If ``fn`` read something that changed between the
two runs, the recomputed tensors differ, the gradient would be wrong, and it raises.
"""

import torch
from torch import nn
from torch.utils.checkpoint import CheckpointError, checkpoint


class CachedAttention(nn.Module):
    """Attention over the keys of this call and of earlier ones, as with ``use_cache=True``."""

    def __init__(self, use_cache: bool) -> None:
        super().__init__()
        self.key = nn.Linear(4, 4)
        self.use_cache = use_cache
        self.cache: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keys = self.key(x)
        if self.use_cache:
            self.cache.append(keys)
            keys = torch.cat(self.cache)
        return (x @ keys.T).softmax(-1) @ keys


# %%
# The repro
# ---------
# A layer that appends its keys to a cache, checkpointed: the recomputation appends them again,
# so the sequence of keys is twice as long (3 → 6) as it was in the forward pass.

layer = CachedAttention(use_cache=True)  # broken
x = torch.randn(3, 4, requires_grad=True)
try:
    out = checkpoint(layer, x, use_reentrant=False)  # cause: state-changes-between-runs
    out.sum().backward()  # broken  # cause: state-changes-between-runs
except CheckpointError as error:
    print(f"CheckpointError: {error}")

# %%
# Fix 1: no state changes inside the checkpointed code
# ----------------------------------------------------
# Caches serve generation, not training: turn them off (``model.config.use_cache = False`` for
# Hugging Face models). The checkpointed layer then gives the same gradients as the plain one.

layer = CachedAttention(use_cache=False)  # fixed  # fix: state-changes-between-runs
x = torch.randn(3, 4, requires_grad=True)
checkpoint(layer, x, use_reentrant=False).sum().backward()
checkpointed = x.grad.clone()
x.grad = None
layer(x).sum().backward()
torch.testing.assert_close(checkpointed, x.grad)
print("same gradient with and without checkpointing")

# %%
# A parameter that is sharded again before backward
# -------------------------------------------------
# DeepSpeed ZeRO-3 and FSDP keep each parameter sharded, gather it just before a layer runs,
# and release it after. Here a dictionary stands for the framework: ``gather`` puts the full
# weight in, ``release`` leaves an empty shard. Gathering *around* the checkpointed function
# means the recomputation runs on the released shard:

full_weight = torch.randn(4, requires_grad=True)
store = {"weight": torch.empty(0)}


def gather() -> None:
    store["weight"] = full_weight


def release() -> None:
    store["weight"] = torch.empty(0, requires_grad=True)


def project(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x.sum(1, keepdim=True) * store["weight"])


x = torch.randn(3, 4)
try:
    gather()  # cause: sharded-parameter
    out = checkpoint(project, x, use_reentrant=False)  # cause: sharded-parameter
    release()  # cause: sharded-parameter
    out.sum().backward()  # cause: sharded-parameter
except CheckpointError as error:
    print(f"CheckpointError: {error}")

# %%
# Fix 2: gather inside the checkpointed function
# ----------------------------------------------
# When the gathering is part of the function (as the frameworks' per-layer hooks are, once each
# layer is wrapped and checkpointed as a whole), the recomputation gathers again. With
# ``s = x.sum(1)``, the gradient of ``sum(tanh(s w))`` with respect to ``w`` is
# ``sum_i s_i (1 - tanh(s_i w)**2)``.


def gathered_project(x: torch.Tensor) -> torch.Tensor:
    gather()  # fixed
    try:
        return project(x)
    finally:
        release()


out = checkpoint(gathered_project, x, use_reentrant=False)  # fix: sharded-parameter
out.sum().backward()
s = x.sum(1, keepdim=True)
expected = (s * (1 - torch.tanh(s * full_weight.detach()) ** 2)).sum(0)
torch.testing.assert_close(full_weight.grad, expected)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: checkpoint-recomputed-metadata
