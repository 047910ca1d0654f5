"""
ddp-no-trainable-parameters
===========================

.. autograd-entry:: ddp-no-trainable-parameters

What DistributedDataParallel is for
-----------------------------------

``DistributedDataParallel`` keeps one copy of a module per process and makes the copies train
as one: when it wraps the module it broadcasts rank 0's parameters and buffers to every rank,
and during each backward pass it averages the gradients of the parameters that require grad
across ranks, so that every optimizer takes the same step. A module with no parameter that
requires grad has nothing to average, and its copies never diverge: wrapping it would only
cost communication. The constructor refuses, on every rank, before any communication.

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


def batch_of(rank: int) -> torch.Tensor:
    """Each rank's batch."""
    return torch.randn(3, 4, generator=torch.Generator().manual_seed(rank))


def feature_extractor() -> nn.Module:
    """A frozen network for a perceptual loss (a VGG in real code), the same on every rank."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU()).requires_grad_(False)


# %%
# The repro
# ---------
# A frozen network used inside the loss, wrapped like the model it helps train: here the
# feature extractor of a perceptual loss, with every parameter frozen.


def wrap_feature_extractor(rank: int) -> None:
    DistributedDataParallel(feature_extractor())  # broken


try:
    on_two_ranks(wrap_feature_extractor)  # cause: frozen-network
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# A network that does not train, wrapped all the same: the feature extractor above, the teacher
# of a distillation, a frozen VAE or text encoder beside the trained model.


def wrap_teacher(rank: int) -> None:
    teacher = nn.Linear(4, 8).requires_grad_(False)
    DistributedDataParallel(teacher)  # cause: frozen-network


try:
    on_two_ranks(wrap_teacher)  # cause: frozen-network
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A module with no parameters at all (a loss module, a spectrogram or other preprocessing
# module that holds only buffers), wrapped because everything that is an ``nn.Module`` went
# through the same wrapping code (``accelerator.prepare`` did this).


def wrap_preprocess(rank: int) -> None:
    DistributedDataParallel(nn.Identity())  # cause: no-parameters


try:
    on_two_ranks(wrap_preprocess)  # cause: no-parameters
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A training configuration that unfreezes nothing: the model is frozen, and the names of the
# parts to train match no parameter (a typo, a module this model does not have), so the model
# reaches DDP with every parameter frozen.

TRAINABLE = ["adaptor"]  # the configuration's name for the part to train


def backbone_and_adapter(trainable: list[str]) -> nn.Module:
    """A backbone ("0") and an adapter ("1"); only the parameters named in ``trainable`` train."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    for name, param in model.named_parameters():
        param.requires_grad_(any(name.startswith(prefix) for prefix in trainable))
    return model


def wrap_configured_model(rank: int) -> None:
    DistributedDataParallel(backbone_and_adapter(TRAINABLE))  # cause: nothing-unfrozen


try:
    on_two_ranks(wrap_configured_model)  # cause: nothing-unfrozen
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: wrap only what trains
# ----------------------------
# A frozen network needs no DDP: every rank holds the same copy (load the same weights, or seed
# its creation identically, as here) and uses it as it is. Wrap the model that trains. Each rank
# then ends the step with the average of the two ranks' gradients, checked against the same
# loss computed here, on plain copies, for both batches:


def student() -> nn.Module:
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(4, 4), nn.Tanh())


def perceptual_loss(model: nn.Module, features: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    return (features(model(batch)) - features(batch)).pow(2).mean()


def student_step(rank: int) -> list[float]:
    module, features = student(), feature_extractor()
    model = DistributedDataParallel(module)  # fix: frozen-network
    perceptual_loss(model, features, batch_of(rank)).backward()
    assert all(param.grad is None for param in features.parameters())
    return module[0].weight.grad.tolist()


def expected_student_grad() -> torch.Tensor:
    grads = []
    for rank in range(WORLD_SIZE):
        plain = student()
        loss = perceptual_loss(plain, feature_extractor(), batch_of(rank))
        grads.append(torch.autograd.grad(loss, plain[0].weight)[0])
    return sum(grads) / WORLD_SIZE


rank_grads = on_two_ranks(student_step)  # fix: frozen-network
torch.testing.assert_close(torch.tensor(rank_grads[0]), expected_student_grad())
torch.testing.assert_close(torch.tensor(rank_grads[1]), expected_student_grad())

# %%
# Fix 2: call a parameter-free module directly
# --------------------------------------------
# Move it to the device and call it: it has no state to synchronise.

preprocess = nn.Identity()
preprocessed = preprocess(batch_of(0))  # fix: no-parameters
torch.testing.assert_close(preprocessed, batch_of(0))

# %%
# Fix 3: make sure something trains before wrapping
# -------------------------------------------------
# Unfreeze by the names the model really has, and check what requires grad before handing the
# model to DDP. Only the adapter's gradients are averaged; the backbone stays frozen. For
# ``sum(A h + c)``, the adapter's bias gets the batch size, 3, and its weight the mean over the
# ranks of the column sums of the backbone's output ``h``:

# The adapter's real name:
TRAINABLE = ["1."]  # fix: nothing-unfrozen
model = backbone_and_adapter(TRAINABLE)
trainable = [name for name, param in model.named_parameters() if param.requires_grad]
assert trainable == ["1.weight", "1.bias"], trainable


def adapter_step(rank: int) -> list[list[float]]:
    module = backbone_and_adapter(TRAINABLE)
    model = DistributedDataParallel(module)  # fix: nothing-unfrozen
    model(batch_of(rank)).sum().backward()
    assert module[0].weight.grad is None
    return [module[1].weight.grad.tolist(), module[1].bias.grad.tolist()]


with torch.no_grad():
    backbone = backbone_and_adapter(TRAINABLE)[0]
    column_sums = [backbone(batch_of(rank)).sum(0) for rank in range(WORLD_SIZE)]
expected_weight = (sum(column_sums) / WORLD_SIZE).expand(2, 4)
for weight_grad, bias_grad in on_two_ranks(adapter_step):  # fix: nothing-unfrozen
    torch.testing.assert_close(torch.tensor(weight_grad), expected_weight)
    torch.testing.assert_close(torch.tensor(bias_grad), torch.full((2,), 3.0))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-no-trainable-parameters
