"""
ddp-mark-ready-twice
====================

.. autograd-entry:: ddp-mark-ready-twice

One gradient per parameter per step
-----------------------------------

``DistributedDataParallel`` puts a hook on every parameter; when autograd delivers the
parameter's gradient, the hook marks it ready for the all-reduce. DDP expects exactly one mark
per parameter per step. With ``find_unused_parameters=True`` it also marks, at the end of the
forward pass, every parameter it cannot reach by walking the graph back from the outputs.

Reentrant checkpointing hides the checkpointed layers from that walk: the forward pass runs
them under ``no_grad``, and only one custom node stands for them in the graph. So DDP marks
their parameters as unused right away, and marks them a second time when the checkpoint's own
backward pass computes their gradients. The same happens when one module is checkpointed in
two places. This is the combination Hugging Face users meet: LoRA or full fine-tuning with
``gradient_checkpointing=True`` (reentrant by default in older releases) and
``ddp_find_unused_parameters=True``.

DDP runs on the CPU here, with the ``gloo`` backend in a process group of one process: the
bookkeeping that raises is per process, so one process shows what every rank of a GPU job does.
"""

import os
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint

store_path = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", store=dist.FileStore(store_path, 1), rank=0, world_size=1)


class CheckpointedBlock(nn.Module):
    """A frozen embedding, a trained layer under activation checkpointing, a trained head."""

    def __init__(self, use_reentrant: bool) -> None:
        super().__init__()
        self.embedding = nn.Embedding(10, 4).requires_grad_(False)
        self.layer = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        self.use_reentrant = use_reentrant

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        # What `model.enable_input_require_grads()` does, so that reentrant checkpointing works.
        hidden = self.embedding(tokens).requires_grad_()
        hidden = checkpoint(self.layer, hidden, use_reentrant=self.use_reentrant)
        return self.head(torch.tanh(hidden))


tokens = torch.tensor([1, 4, 7, 2])

# %%
# The repro
# ---------

try:
    model = DistributedDataParallel(
        CheckpointedBlock(use_reentrant=True),  # broken  # cause: reentrant-checkpoint-find-unused
        find_unused_parameters=True,  # broken  # cause: reentrant-checkpoint-find-unused
    )
    model(tokens).sum().backward()  # cause: reentrant-checkpoint-find-unused
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The gradient to expect
# ----------------------
# The same module without DDP or checkpointing gives the reference gradients (with one
# process, DDP's average is the local gradient).


def reference_grad(module: CheckpointedBlock) -> torch.Tensor:
    plain = CheckpointedBlock(use_reentrant=False)
    plain.load_state_dict(module.state_dict())
    hidden = plain.layer(plain.embedding(tokens))
    out = plain.head(torch.tanh(hidden)).sum()
    return torch.autograd.grad(out, plain.layer.weight)[0]


# %%
# Fix 1: non-reentrant checkpointing
# ----------------------------------
# ``use_reentrant=False`` records the checkpointed operations in the graph, so DDP's walk finds
# the layer's parameters and marks each once (Hugging Face:
# ``gradient_checkpointing_kwargs={"use_reentrant": False}``).

module = CheckpointedBlock(use_reentrant=False)  # fixed  # fix: reentrant-checkpoint-find-unused
model = DistributedDataParallel(module, find_unused_parameters=True)
for _step in range(2):
    model.zero_grad()
    model(tokens).sum().backward()
    torch.testing.assert_close(module.layer.weight.grad, reference_grad(module))

# %%
# Fix 2: no unused-parameter search
# ---------------------------------
# When every parameter takes part in every step, ``find_unused_parameters=False`` (the default;
# Hugging Face: ``ddp_find_unused_parameters=False``) leaves only the hooks to mark them, once.

module = CheckpointedBlock(use_reentrant=True)
model = DistributedDataParallel(module, find_unused_parameters=False)  # fixed
for _step in range(2):
    model.zero_grad()
    model(tokens).sum().backward()
    torch.testing.assert_close(module.layer.weight.grad, reference_grad(module))

# %%
# One module checkpointed twice
# -----------------------------
# A block applied twice (shared weights, a recurrence), each time under reentrant
# checkpointing: each checkpoint's backward pass delivers a gradient for the same parameters.


class SharedBlock(nn.Module):
    def __init__(self, use_reentrant: bool) -> None:
        super().__init__()
        self.block = nn.Linear(2, 2)
        self.use_reentrant = use_reentrant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = checkpoint(self.block, x, use_reentrant=self.use_reentrant)
        return checkpoint(self.block, x, use_reentrant=self.use_reentrant)


x = torch.randn(3, 2, requires_grad=True)
model = DistributedDataParallel(SharedBlock(use_reentrant=True), find_unused_parameters=True)
try:
    model(x).sum().backward()  # cause: module-checkpointed-twice
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: non-reentrant checkpointing, or a static graph
# -----------------------------------------------------
# Non-reentrant checkpointing accumulates both uses into one gradient before the hook fires.
# ``static_graph=True`` is the other way out DDP offers, when the set of used parameters is the
# same in every step. The gradient of ``sum(W (W x + b) + b)`` with respect to ``b`` is
# ``n * (colsum(W) + 1)`` for ``n`` rows.

module = SharedBlock(use_reentrant=False)  # fix: module-checkpointed-twice
model = DistributedDataParallel(module, find_unused_parameters=True)
model(x).sum().backward()
column_sums = module.block.weight.detach().sum(0)
torch.testing.assert_close(module.block.bias.grad, 3 * (column_sums + 1))

module = SharedBlock(use_reentrant=True)
model = DistributedDataParallel(module, static_graph=True)  # fix: module-checkpointed-twice
for _step in range(2):
    model.zero_grad()
    model(x).sum().backward()
    column_sums = module.block.weight.detach().sum(0)
    torch.testing.assert_close(module.block.bias.grad, 3 * (column_sums + 1))

# %%
# The process group is destroyed, so that nothing outlives the script:

dist.destroy_process_group()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-mark-ready-twice
