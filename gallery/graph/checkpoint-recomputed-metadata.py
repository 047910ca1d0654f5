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
# A branch taken in one run only changes *how many* tensors are saved, and the message says
# that instead: here a block that takes an extra step on its first call (a warm-up, a one-time
# log), which the recomputation, its second call, skips.


class WarmUpBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(3, 3)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        hidden = self.layer(x)
        if self.calls == 1:  # cause: state-changes-between-runs
            hidden = torch.sin(hidden)
        return hidden.relu()


block = WarmUpBlock()
x = torch.randn(2, 3, requires_grad=True)
try:
    checkpoint(block, x, use_reentrant=False).sum().backward()  # cause: state-changes-between-runs
except CheckpointError as error:
    print(f"CheckpointError: {error}")

# %%
# Decided outside the checkpointed function and passed in, the branch is the same in both runs;
# the gradients are those of the block without checkpointing:


class PureWarmUpBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor, warm_up: bool) -> torch.Tensor:
        hidden = self.layer(x)
        if warm_up:  # fix: state-changes-between-runs
            hidden = torch.sin(hidden)
        return hidden.relu()


block = PureWarmUpBlock()
x = torch.randn(2, 3, requires_grad=True)
first_call = True
out = checkpoint(block, x, first_call, use_reentrant=False)  # fix: state-changes-between-runs
out.sum().backward()
checkpointed = x.grad.clone()
x.grad = None
block(x, first_call).sum().backward()
torch.testing.assert_close(checkpointed, x.grad)

# %%
# Under ``torch.compile`` the checkpointed code can be pure and still save other tensors the
# second time: when the same code has two compiled graphs (one for static shapes, compiled
# first, and one for dynamic shapes, compiled when a later call changed a size), Dynamo checks
# the most recently used graph first, so the recomputation may run the other one. Torch's own
# message says so from 2.12, and suggests marking the varying dimension dynamic from the start
# (``torch._dynamo.mark_dynamic(x, 0)``) or ``torch._C._dynamo.eval_frame._set_lru_cache(False)``
# (`issue #166926 <https://github.com/pytorch/pytorch/issues/166926>`__, the fix
# `torchtitan <https://github.com/pytorch/torchtitan/pull/1991>`__ applies). This page does not
# run that case: the small functions we compiled here saved the same tensors with either graph.

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
