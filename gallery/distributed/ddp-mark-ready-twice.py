"""
ddp-mark-ready-twice
====================

.. autograd-entry:: ddp-mark-ready-twice

One gradient per parameter per step
-----------------------------------

``DistributedDataParallel`` puts a hook on every parameter that requires grad; when autograd
delivers the parameter's gradient, the hook marks it ready for the all-reduce. DDP expects
exactly one mark per parameter per step. With ``find_unused_parameters=True`` it also marks, at
the end of each forward pass, every parameter it cannot reach by walking the graph back from
that pass's outputs. A parameter marked there, whose gradient autograd then delivers anyway, is
marked twice.

Reentrant checkpointing hides the checkpointed layers from that walk: the forward pass runs
them under ``no_grad``, and only one custom node stands for them in the graph. So DDP marks
their parameters as unused right away, and marks them a second time when the checkpoint's own
backward pass computes their gradients. The same happens when one module is checkpointed in
two places, when a parameter used by an earlier forward pass is missing from the last one
before ``backward()``, and when a parameter is used outside ``forward``. The Hugging Face
combination is the first: LoRA or full fine-tuning with ``gradient_checkpointing=True``
(reentrant by default in older releases) and ``ddp_find_unused_parameters=True``.

Every example on this page runs DDP on the CPU in two processes, ranks 0 and 1 of a ``gloo``
process group that meets on 127.0.0.1, each with its own batch, as two GPUs would. The script
forks them (``torch.multiprocessing.start_processes`` with ``start_method="fork"``), so that
they can run the functions defined here, in a script or in a notebook; where there is no fork
(Windows), run the same functions under ``torchrun``. An exception a rank raises is raised again
in this process, where the page catches it.
"""

import contextlib
import importlib
import os
import re
import socket
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint

WORLD_SIZE = 2


def run_rank(rank: int, port: int, reports: object, step: Callable[[int], object]) -> None:
    """One rank: join the process group, run ``step``, and hand what it returned, or the
    exception it raised, to the launching process."""
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD_SIZE
    )
    try:
        value = step(rank)
    except Exception as error:
        reports.put((rank, None, error))  # type: ignore[attr-defined]
        # Leave at once, the group not destroyed: the failed step may have left a collective
        # waiting for the other rank, and destroying gloo's threads would wait for it forever.
        # A failed rank makes start_processes stop the other one.
        os._exit(1)
    reports.put((rank, value, None))  # type: ignore[attr-defined]
    dist.destroy_process_group()


def on_two_ranks(step: Callable[[int], object]) -> list[object]:
    """Run ``step(rank)`` on ranks 0 and 1 and return what each returned (plain Python values,
    tensors as lists); raise here the first exception a rank raised."""
    with socket.socket() as probe:  # a free port for the rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reports = mp.get_context("fork").SimpleQueue()
    failure = None
    try:
        mp.start_processes(
            run_rank, args=(port, reports, step), nprocs=WORLD_SIZE, start_method="fork"
        )
    except (mp.ProcessRaisedException, mp.ProcessExitedException) as error:
        failure = error
    results: list[object] = [None] * WORLD_SIZE
    while not reports.empty():
        rank, value, raised = reports.get()
        if raised is not None:
            raise raised from None
        results[rank] = value
    if failure is not None:
        raise failure
    return results


def import_dynamo_once() -> None:
    """DDP imports ``torch._dynamo`` the first time it wraps a model (torch 2.0 and later), which
    takes seconds: imported here, before the ranks are forked, it is not imported once per rank."""
    with contextlib.suppress(ImportError):
        importlib.import_module("torch._dynamo")


import_dynamo_once()


def average_over_ranks(local_grad: Callable[[int], torch.Tensor]) -> torch.Tensor:
    """What DDP should leave in ``.grad``: the mean of each rank's gradient for its own batch."""
    return sum(local_grad(rank) for rank in range(WORLD_SIZE)) / WORLD_SIZE


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


def tokens_of(rank: int) -> torch.Tensor:
    """Each rank's batch."""
    return torch.tensor([1, 4, 7, 2]) + 2 * rank


def expected_layer_grad(module: CheckpointedBlock) -> torch.Tensor:
    """The layer's gradient DDP should produce, from the same weights without DDP."""

    def local_grad(rank: int) -> torch.Tensor:
        plain = CheckpointedBlock(use_reentrant=False)
        plain.load_state_dict(module.state_dict())
        out = plain.head(torch.tanh(plain.layer(plain.embedding(tokens_of(rank))))).sum()
        return torch.autograd.grad(out, plain.layer.weight)[0]

    return average_over_ranks(local_grad)


# %%
# The repro
# ---------


def reentrant_checkpointing_step(rank: int) -> None:
    model = DistributedDataParallel(
        CheckpointedBlock(use_reentrant=True),  # broken  # cause: reentrant-checkpoint-find-unused
        find_unused_parameters=True,  # cause: reentrant-checkpoint-find-unused
    )
    model(tokens_of(rank)).sum().backward()


try:
    on_two_ranks(reentrant_checkpointing_step)  # cause: reentrant-checkpoint-find-unused
except RuntimeError as error:
    message = str(error)
    print(f"RuntimeError: {error}")

# %%
# Which parameter: its name, and what the index counts
# ----------------------------------------------------
# Since torch 2.1 the message names the parameter (``with name layer.bias``); torch 2.0 and
# older name it only with ``TORCH_DISTRIBUTED_DEBUG=INFO`` set. The index counts only the
# parameters DDP holds, those that require grad, in ``named_parameters()`` order: with the
# frozen embedding first, index 1 is ``layer.bias``, not the second entry of
# ``named_parameters()``.

module = CheckpointedBlock(use_reentrant=True)
held_by_ddp = [name for name, parameter in module.named_parameters() if parameter.requires_grad]
index = int(re.search(r"Parameter at index (\d+)", message).group(1))
named = re.search(r"with name (\S+)", message)
print("index", index, "->", held_by_ddp[index])
print("named_parameters():", [name for name, _ in module.named_parameters()])
assert held_by_ddp[index] == "layer.bias"
assert named is None or named.group(1) == held_by_ddp[index]

# %%
# Fix 1: non-reentrant checkpointing
# ----------------------------------
# ``use_reentrant=False`` records the checkpointed operations in the graph, so DDP's walk finds
# the layer's parameters and marks each once (Hugging Face:
# ``gradient_checkpointing_kwargs={"use_reentrant": False}``). Each rank ends the step with the
# average of the two ranks' gradients.


def non_reentrant_step(rank: int) -> list[float]:
    block = CheckpointedBlock(use_reentrant=False)  # fixed  # fix: reentrant-checkpoint-find-unused
    model = DistributedDataParallel(block, find_unused_parameters=True)
    for _step in range(2):
        model.zero_grad()
        model(tokens_of(rank)).sum().backward()
        torch.testing.assert_close(block.layer.weight.grad, expected_layer_grad(block))
    return block.layer.weight.grad.tolist()


rank_grads = on_two_ranks(non_reentrant_step)  # fix: reentrant-checkpoint-find-unused
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# Fix 2: no unused-parameter search, when each layer is checkpointed once
# -----------------------------------------------------------------------
# When every parameter takes part in every step, ``find_unused_parameters=False`` (the default;
# Hugging Face: ``ddp_find_unused_parameters=False``) leaves only the hooks to mark them. With
# each layer checkpointed once, as in Hugging Face models, each is marked once and the average
# is right. (Not so for a module checkpointed twice: see below.)


def no_search_step(rank: int) -> list[float]:
    module = CheckpointedBlock(use_reentrant=True)
    model = DistributedDataParallel(
        module,
        find_unused_parameters=False,  # fix: reentrant-checkpoint-find-unused
    )
    for _step in range(2):
        model.zero_grad()
        model(tokens_of(rank)).sum().backward()
        torch.testing.assert_close(module.layer.weight.grad, expected_layer_grad(module))
    return module.layer.weight.grad.tolist()


rank_grads = on_two_ranks(no_search_step)  # fix: reentrant-checkpoint-find-unused
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# Several forward passes before one backward
# ------------------------------------------
# A multi-task step that runs the wrapped model once per task and back-propagates the sum of
# the losses (pytorch/pytorch#60844; teacher and student passes, two views, alternating
# heads). ``find_unused_parameters=True`` is on because some heads are not trained in a step.
# After the last forward pass DDP marks every parameter that pass did not reach, the first
# task's head among them, as unused; the backward pass then delivers that head's gradient.


class MultiTask(nn.Module):
    """A shared encoder and one head per task; ``forward`` runs the tasks it is given a batch
    for."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(2, 2)
        self.heads = nn.ModuleDict({task: nn.Linear(2, 1) for task in ("depth", "class", "aux")})

    def forward(self, batches: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {task: self.heads[task](self.encoder(x)) for task, x in batches.items()}


def batches_of(rank: int) -> dict[str, torch.Tensor]:
    """Each rank's batch for the two tasks trained in this step (``aux`` is not)."""
    generator = torch.Generator().manual_seed(rank)
    return {task: torch.randn(4, 2, generator=generator) for task in ("depth", "class")}


def one_forward_per_task_step(rank: int) -> None:
    model = DistributedDataParallel(MultiTask(), find_unused_parameters=True)
    losses = [
        model({task: x})[task].pow(2).mean()  # cause: several-forwards-one-backward
        for task, x in batches_of(rank).items()
    ]
    sum(losses).backward()


try:
    on_two_ranks(one_forward_per_task_step)  # cause: several-forwards-one-backward
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: one forward pass of the wrapped model per backward
# ---------------------------------------------------------
# Give the tasks' batches to one call: DDP then searches the graph of everything the step
# uses. (Back-propagating after each forward pass works too.) Each head's gradient is the
# average over the ranks of the same loss on the plain module.


def expected_head_grad(module: MultiTask, task: str) -> torch.Tensor:
    def local_grad(rank: int) -> torch.Tensor:
        plain = MultiTask()
        plain.load_state_dict(module.state_dict())
        loss = sum(out.pow(2).mean() for out in plain(batches_of(rank)).values())
        return torch.autograd.grad(loss, plain.heads[task].weight)[0]

    return average_over_ranks(local_grad)


def one_forward_step(rank: int) -> list[float]:
    module = MultiTask()
    model = DistributedDataParallel(module, find_unused_parameters=True)
    outputs = model(batches_of(rank))  # fix: several-forwards-one-backward
    sum(out.pow(2).mean() for out in outputs.values()).backward()
    for task in ("depth", "class"):
        torch.testing.assert_close(module.heads[task].weight.grad, expected_head_grad(module, task))
    assert module.heads["aux"].weight.grad is None
    return module.heads["depth"].weight.grad.tolist()


rank_grads = on_two_ranks(one_forward_step)  # fix: several-forwards-one-backward
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

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
        block, reentrant = self.block, self.use_reentrant
        x = checkpoint(block, x, use_reentrant=reentrant)  # cause: module-checkpointed-twice
        return checkpoint(block, x, use_reentrant=reentrant)  # cause: module-checkpointed-twice


def inputs_of(rank: int) -> torch.Tensor:
    """Each rank's batch; it requires grad, as reentrant checkpointing needs."""
    generator = torch.Generator().manual_seed(10 + rank)
    return torch.randn(3, 2, generator=generator).requires_grad_()


def expected_block_grad(module: SharedBlock) -> torch.Tensor:
    def local_grad(rank: int) -> torch.Tensor:
        plain = SharedBlock(use_reentrant=False)
        plain.load_state_dict(module.state_dict())
        return torch.autograd.grad(plain(inputs_of(rank)).sum(), plain.block.weight)[0]

    return average_over_ranks(local_grad)


def shared_block_step(rank: int) -> None:
    model = DistributedDataParallel(SharedBlock(use_reentrant=True), find_unused_parameters=True)
    model(inputs_of(rank)).sum().backward()


try:
    on_two_ranks(shared_block_step)  # cause: module-checkpointed-twice
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 4: non-reentrant checkpointing, or a static graph
# -----------------------------------------------------
# Non-reentrant checkpointing accumulates both uses into one gradient before the hook fires.
# ``static_graph=True`` is the other way out DDP offers, when the set of used parameters is the
# same in every step.


def shared_non_reentrant_step(rank: int) -> list[float]:
    module = SharedBlock(use_reentrant=False)  # fix: module-checkpointed-twice
    model = DistributedDataParallel(module, find_unused_parameters=True)
    model(inputs_of(rank)).sum().backward()
    torch.testing.assert_close(module.block.weight.grad, expected_block_grad(module))
    return module.block.weight.grad.tolist()


def shared_static_graph_step(rank: int) -> list[float]:
    module = SharedBlock(use_reentrant=True)
    model = DistributedDataParallel(module, static_graph=True)  # fix: module-checkpointed-twice
    for _step in range(2):
        model.zero_grad()
        model(inputs_of(rank)).sum().backward()
        torch.testing.assert_close(module.block.weight.grad, expected_block_grad(module))
    return module.block.weight.grad.tolist()


for step in (shared_non_reentrant_step, shared_static_graph_step):
    rank_grads = on_two_ranks(step)  # fix: module-checkpointed-twice
    torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# The pitfall: ``find_unused_parameters=False`` on a module checkpointed twice
# ----------------------------------------------------------------------------
# Turning the search off silences the error here, and the gradients come out wrong: part of
# each rank's gradient arrives after its bucket was averaged, so each rank keeps a different,
# wrong gradient, and the ranks' weights drift apart from the first step.


def shared_no_search_step(rank: int) -> list[float]:
    module = SharedBlock(use_reentrant=True)
    model = DistributedDataParallel(module, find_unused_parameters=False)
    model(inputs_of(rank)).sum().backward()
    assert not torch.allclose(module.block.weight.grad, expected_block_grad(module))
    return module.block.weight.grad.tolist()


rank_grads = on_two_ranks(shared_no_search_step)
assert not torch.allclose(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))
print("no error, and a wrong gradient that differs between the ranks")

# %%
# A parameter used outside ``forward``
# ------------------------------------
# Calling a submodule of the wrapped model directly (``model.module.head(...)``) leaves it out
# of the forward pass DDP inspects: with ``find_unused_parameters=True`` it is marked unused,
# then its gradient arrives (the case pytorch/pytorch#19515 tests).


class Encoder(nn.Module):
    """``forward`` returns features; the training loop applies the head to them."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(2, 2)
        self.head = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.encoder(x))


def head_outside_step(rank: int) -> None:
    model = DistributedDataParallel(Encoder(), find_unused_parameters=True)
    features = model(inputs_of(rank))
    model.module.head(features).sum().backward()  # cause: parameter-used-outside-forward


try:
    on_two_ranks(head_outside_step)  # cause: parameter-used-outside-forward
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 5: every parameter used inside the wrapped ``forward``
# ----------------------------------------------------------
# Apply the head in ``forward``, so that the pass DDP inspects reaches it.


class EncoderAndHead(Encoder):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(super().forward(x))  # fix: parameter-used-outside-forward


def expected_head_weight_grad(module: Encoder) -> torch.Tensor:
    def local_grad(rank: int) -> torch.Tensor:
        plain = EncoderAndHead()
        plain.load_state_dict(module.state_dict())
        return torch.autograd.grad(plain(inputs_of(rank)).sum(), plain.head.weight)[0]

    return average_over_ranks(local_grad)


def head_inside_step(rank: int) -> list[float]:
    module = EncoderAndHead()
    model = DistributedDataParallel(module, find_unused_parameters=True)
    model(inputs_of(rank)).sum().backward()
    torch.testing.assert_close(module.head.weight.grad, expected_head_weight_grad(module))
    return module.head.weight.grad.tolist()


rank_grads = on_two_ranks(head_inside_step)  # fix: parameter-used-outside-forward
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-mark-ready-twice
