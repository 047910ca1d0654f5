"""
ddp-unused-parameters
=====================

.. autograd-entry:: ddp-unused-parameters

How DDP knows a backward pass is complete
-----------------------------------------

``DistributedDataParallel`` averages gradients across processes *during* backward: it puts a
hook on every parameter that requires grad (it records which ones when it wraps the model), and
each time autograd delivers a parameter's gradient the hook marks it ready; when every
parameter of a bucket is ready, that bucket's all-reduce starts. The step's reduction is
finished when every parameter has been marked. A parameter that did not take part in the loss
never gets a gradient, its hook never fires, and the reduction of that step stays pending. The
next forward pass checks, and raises.

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


def batch_of(rank: int, step: int = 0) -> torch.Tensor:
    """Each rank's batch for a step."""
    return torch.randn(4, 2, generator=torch.Generator().manual_seed(100 * step + rank))


class WithSpareHead(nn.Module):
    """A frozen input layer, a head the forward pass uses, and one it does not (left over, or
    used in other steps)."""

    def __init__(self) -> None:
        super().__init__()
        self.frozen = nn.Linear(2, 2).requires_grad_(False)
        self.used = nn.Linear(2, 1)
        self.spare = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.used(self.frozen(x))


def expected_used_grad(module: WithSpareHead, step: int) -> torch.Tensor:
    """The average over the ranks of ``used.weight``'s gradient of ``sum(W frozen(x) + b)``:
    the column sums of ``frozen(x)``."""
    with torch.no_grad():
        return average_over_ranks(
            lambda rank: module.frozen(batch_of(rank, step)).sum(0, keepdim=True)
        )


# %%
# The repro
# ---------
# The first step's backward leaves ``spare`` without a gradient; the second forward pass
# raises.


def spare_head_step(rank: int) -> None:
    model = DistributedDataParallel(WithSpareHead())  # broken
    for step in range(2):  # cause: submodule-not-called
        model(batch_of(rank, step)).sum().backward()  # cause: submodule-not-called


try:
    on_two_ranks(spare_head_step)  # cause: submodule-not-called
except RuntimeError as error:
    message = str(error)
    print(f"RuntimeError: {error}")

# %%
# Which parameters: what the indices count
# ----------------------------------------
# The indices count only the parameters DDP holds, those that require grad, in
# ``named_parameters()`` order. With the frozen layer first, 2 and 3 are ``spare.weight`` and
# ``spare.bias``; entries 2 and 3 of ``named_parameters()`` are ``used.weight`` and
# ``used.bias``, which did get their gradients. (``TORCH_DISTRIBUTED_DEBUG=INFO`` makes the
# message list the names as well.)

module = WithSpareHead()
held_by_ddp = [name for name, parameter in module.named_parameters() if parameter.requires_grad]
indices = re.search(r"did not receive grad for rank \d+: ([\d ]+)", message).group(1).split()
print("indices", indices, "->", [held_by_ddp[int(index)] for index in indices])
print("named_parameters():", [name for name, _ in module.named_parameters()])
assert [held_by_ddp[int(index)] for index in indices] == ["spare.weight", "spare.bias"]

# %%
# Fix 1: ``find_unused_parameters=True``
# --------------------------------------
# DDP then walks the autograd graph from the forward pass's outputs and marks every parameter
# it cannot reach as ready. The walk costs time at every step, so use it when the unused set
# really changes from step to step. Each rank ends the step with the average of the ranks'
# gradients; the spare head gets none.


def find_unused_step(rank: int) -> list[float]:
    module = WithSpareHead()
    model = DistributedDataParallel(module, find_unused_parameters=True)  # fixed
    for step in range(2):
        model.zero_grad()
        model(batch_of(rank, step)).sum().backward()  # fix: submodule-not-called
        torch.testing.assert_close(module.used.weight.grad, expected_used_grad(module, step))
        assert module.spare.weight.grad is None
    return module.used.weight.grad.tolist()


rank_grads = on_two_ranks(find_unused_step)  # fix: submodule-not-called
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# Fix 2: leave out of DDP what never trains
# -----------------------------------------
# A layer that is never used (or deliberately frozen) should not be waited for: delete it, or
# freeze it before wrapping; DDP only tracks parameters that require grad.


def frozen_spare_step(rank: int) -> list[float]:
    module = WithSpareHead()
    module.spare.requires_grad_(False)  # fix: submodule-not-called
    model = DistributedDataParallel(module)
    for step in range(2):
        model.zero_grad()
        model(batch_of(rank, step)).sum().backward()
        torch.testing.assert_close(module.used.weight.grad, expected_used_grad(module, step))
    return module.used.weight.grad.tolist()


rank_grads = on_two_ranks(frozen_spare_step)  # fix: submodule-not-called
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# An output the loss leaves out
# -----------------------------
# The other common way: ``forward`` returns a prediction and an auxiliary output, and the step
# back-propagates only one of them. The head behind the other output gets no gradient.


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(2, 2)
        self.main = nn.Linear(2, 1)
        self.aux = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.body(x)
        return self.main(hidden), self.aux(hidden)


def aux_only_step(rank: int) -> None:
    model = DistributedDataParallel(TwoHeads())
    for step in range(2):
        _prediction, aux = model(batch_of(rank, step))  # cause: output-not-in-loss
        aux.pow(2).mean().backward()  # cause: output-not-in-loss


try:
    on_two_ranks(aux_only_step)  # cause: output-not-in-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: a loss built from every output
# -------------------------------------
# Add the term the step forgot (here the main loss, the point of training), so every head is
# reached. The main head's weight gradient is checked against the average over the ranks of
# the same loss on the plain module.


def full_loss(outputs: tuple[torch.Tensor, torch.Tensor], target: torch.Tensor) -> torch.Tensor:
    prediction, aux = outputs
    return (prediction - target).pow(2).mean() + aux.pow(2).mean()  # fix: output-not-in-loss


def expected_main_grad(module: TwoHeads, step: int) -> torch.Tensor:
    def local_grad(rank: int) -> torch.Tensor:
        plain = TwoHeads()
        plain.load_state_dict(module.state_dict())
        loss = full_loss(plain(batch_of(rank, step)), torch.ones(4, 1))
        return torch.autograd.grad(loss, plain.main.weight)[0]

    return average_over_ranks(local_grad)


def full_loss_step(rank: int) -> list[float]:
    module = TwoHeads()
    model = DistributedDataParallel(module)
    for step in range(2):
        model.zero_grad()
        full_loss(model(batch_of(rank, step)), torch.ones(4, 1)).backward()
        torch.testing.assert_close(module.main.weight.grad, expected_main_grad(module, step))
    return module.main.weight.grad.tolist()


rank_grads = on_two_ranks(full_loss_step)  # fix: output-not-in-loss
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# Parameters frozen after the model was wrapped
# ---------------------------------------------
# DDP records which parameters require grad when it wraps the model. Freezing a backbone
# mid-training (``requires_grad_(False)`` at some iteration, progressive freezing) leaves DDP
# waiting for gradients that no longer come: the step after the freeze raises, and the indices
# are the frozen parameters'.


class Backbone(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Linear(2, 2)
        self.head = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.backbone(x)))


def expected_head_grad(module: Backbone, step: int) -> torch.Tensor:
    with torch.no_grad():
        return average_over_ranks(
            lambda rank: torch.relu(module.backbone(batch_of(rank, step))).sum(0, keepdim=True)
        )


def freeze_after_wrapping_step(rank: int) -> None:
    module = Backbone()
    model = DistributedDataParallel(module)
    model(batch_of(rank, 0)).sum().backward()
    module.backbone.requires_grad_(False)  # cause: frozen-after-wrapping
    for step in range(1, 3):
        model.zero_grad()
        model(batch_of(rank, step)).sum().backward()  # cause: frozen-after-wrapping


try:
    on_two_ranks(freeze_after_wrapping_step)  # cause: frozen-after-wrapping
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 4: wrap the model again after changing ``requires_grad``
# ------------------------------------------------------------
# A new ``DistributedDataParallel`` around the same module records the new set (the optimizer
# can stay: it holds the same parameter tensors). ``find_unused_parameters=True`` on the
# original wrapper works too, at the cost of its walk in every step.


def rewrap_step(rank: int) -> list[float]:
    module = Backbone()
    model = DistributedDataParallel(module)
    model(batch_of(rank, 0)).sum().backward()
    module.backbone.requires_grad_(False)
    module.zero_grad(set_to_none=True)
    model = DistributedDataParallel(module)  # fix: frozen-after-wrapping
    for step in range(1, 3):
        model.zero_grad()
        model(batch_of(rank, step)).sum().backward()
        torch.testing.assert_close(module.head.weight.grad, expected_head_grad(module, step))
        assert module.backbone.weight.grad is None
    return module.head.weight.grad.tolist()


def find_unused_after_freezing_step(rank: int) -> list[float]:
    module = Backbone()
    model = DistributedDataParallel(
        module,
        find_unused_parameters=True,  # fix: frozen-after-wrapping
    )
    model(batch_of(rank, 0)).sum().backward()
    module.backbone.requires_grad_(False)
    module.zero_grad(set_to_none=True)
    for step in range(1, 3):
        model.zero_grad()
        model(batch_of(rank, step)).sum().backward()
        torch.testing.assert_close(module.head.weight.grad, expected_head_grad(module, step))
    return module.head.weight.grad.tolist()


for step in (rewrap_step, find_unused_after_freezing_step):
    rank_grads = on_two_ranks(step)  # fix: frozen-after-wrapping
    torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# An output DDP cannot see, with ``find_unused_parameters=True``
# --------------------------------------------------------------
# With ``find_unused_parameters=True``, DDP passes the tensors of the return value through an
# autograd function of its own, whose backward lets an output the loss leaves out go without a
# gradient (torch 1.10 and later). It takes them apart as PyTorch's tree utilities do: tuples,
# lists, plain dicts, named tuples. A tensor held in anything else, a dict subclass (an
# attribute dict such as ``EasyDict`` or ``addict.Dict``) or a dataclass, does not go through
# it, yet DDP's search of the graph still finds it and counts the head behind it as used.
# When the loss leaves that output out, the head's gradients never come, and the next forward
# pass raises the message's other wording: "Since ``find_unused_parameters=True`` is enabled,
# this likely means that not all ``forward`` outputs participate in computing loss". (On torch
# 1.9, before that function, any output the loss left out did.)


class AttrDict(dict):
    """A dict whose keys read as attributes, as many training codes return: a dict subclass."""

    def __getattr__(self, name: str) -> torch.Tensor:
        return self[name]


class TwoHeadsInAttrDict(TwoHeads):
    def forward(self, x: torch.Tensor) -> AttrDict:  # type: ignore[override]
        prediction, aux = super().forward(x)
        return AttrDict(prediction=prediction, aux=aux)  # cause: unused-output-ddp-cannot-see


def attr_dict_aux_only_step(rank: int) -> None:
    model = DistributedDataParallel(TwoHeadsInAttrDict(), find_unused_parameters=True)
    for step in range(2):
        outputs = model(batch_of(rank, step))  # cause: unused-output-ddp-cannot-see
        outputs.aux.pow(2).mean().backward()  # cause: unused-output-ddp-cannot-see


try:
    on_two_ranks(attr_dict_aux_only_step)  # cause: unused-output-ddp-cannot-see
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# With ``TORCH_DISTRIBUTED_DEBUG=INFO`` (set before the model is wrapped) the message names the
# parameters that got no gradient, here the prediction head's, before their indices.


def named_attr_dict_aux_only_step(rank: int) -> None:
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "INFO"  # in this rank's process only
    dist.set_debug_level_from_env()
    attr_dict_aux_only_step(rank)  # cause: unused-output-ddp-cannot-see


try:
    on_two_ranks(named_attr_dict_aux_only_step)  # cause: unused-output-ddp-cannot-see
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 5: return the outputs in a container DDP takes apart
# --------------------------------------------------------
# A plain ``dict`` (or a tuple, a list, a named tuple) goes through DDP's function: the
# prediction head, which the loss leaves out, keeps ``grad`` at ``None`` on every rank, and the
# auxiliary head gets the average over the ranks of its gradient. Building the loss from every
# output (Fix 3) works too, and is what torch 1.9 needs.


class TwoHeadsInDict(TwoHeads):
    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:  # type: ignore[override]
        prediction, aux = super().forward(x)
        return {"prediction": prediction, "aux": aux}  # fix: unused-output-ddp-cannot-see


def expected_aux_grad(module: TwoHeads, step: int) -> torch.Tensor:
    def local_grad(rank: int) -> torch.Tensor:
        plain = TwoHeads()
        plain.load_state_dict(module.state_dict())
        loss = plain(batch_of(rank, step))[1].pow(2).mean()
        return torch.autograd.grad(loss, plain.aux.weight)[0]

    return average_over_ranks(local_grad)


def plain_dict_step(rank: int) -> list[float]:
    module = TwoHeadsInDict()
    model = DistributedDataParallel(module, find_unused_parameters=True)
    for step in range(2):
        model.zero_grad()
        model(batch_of(rank, step))["aux"].pow(2).mean().backward()
        torch.testing.assert_close(module.aux.weight.grad, expected_aux_grad(module, step))
        assert module.main.weight.grad is None
    return module.aux.weight.grad.tolist()


rank_grads = on_two_ranks(plain_dict_step)  # fix: unused-output-ddp-cannot-see
torch.testing.assert_close(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))

# %%
# The pitfall: unfreezing after wrapping raises nothing
# -----------------------------------------------------
# The other way round is silent. A parameter frozen when DDP wrapped the model and unfrozen
# later has no hook: it gets each rank's own gradient, never averaged, and the ranks' copies
# drift apart. Wrap again after unfreezing too.


def unfreeze_after_wrapping_step(rank: int) -> list[float]:
    module = Backbone()
    module.backbone.requires_grad_(False)
    model = DistributedDataParallel(module)
    module.backbone.requires_grad_(True)
    model(batch_of(rank, 0)).sum().backward()
    return module.backbone.weight.grad.tolist()


rank_grads = on_two_ranks(unfreeze_after_wrapping_step)
assert not torch.allclose(torch.tensor(rank_grads[0]), torch.tensor(rank_grads[1]))
print("no error, and each rank keeps its own gradient for the backbone")

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-unused-parameters
