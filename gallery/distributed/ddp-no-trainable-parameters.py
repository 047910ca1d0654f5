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
cost communication. The constructor refuses.

This page runs a real process group of two ``gloo`` ranks on ``127.0.0.1``, on the CPU: this
script is rank 0, and starts rank 1 as a second Python process running ``PEER`` below, which
does what rank 0 does (on a cluster, ``torchrun`` starts the same script once per rank).
"""

import datetime
import subprocess
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

# Rank 1: the same modules, wrapped in the same order; the failed wraps need no communication,
# the successful ones broadcast rank 0's parameters and average gradients with rank 0.
PEER = """
import datetime, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

timeout = datetime.timedelta(seconds=60)
store = dist.TCPStore("127.0.0.1", int(sys.argv[1]), 2, False, timeout=timeout)
dist.init_process_group("gloo", store=store, rank=1, world_size=2, timeout=timeout)
batch = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))
for frozen in (nn.Linear(4, 8).requires_grad_(False), nn.Identity()):
    try:
        DistributedDataParallel(frozen)
    except RuntimeError:
        pass
torch.manual_seed(0)
features = nn.Sequential(nn.Linear(4, 8), nn.ReLU()).requires_grad_(False)
student = DistributedDataParallel(nn.Sequential(nn.Linear(4, 4), nn.Tanh()))
(features(student(batch)) - features(batch)).pow(2).mean().backward()
model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
model[0].requires_grad_(False)
wrapped = DistributedDataParallel(model)  # kept: a DDP collected early reduces nothing
wrapped(batch).sum().backward()
# Close the connections only once rank 0 is done with its last collective.
store.wait(["rank 0 done"])
dist.destroy_process_group()
"""

timeout = datetime.timedelta(seconds=60)
store = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=timeout, wait_for_workers=False)
peer = subprocess.Popen(
    [sys.executable, "-c", PEER, str(store.port)],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.PIPE,
)
dist.init_process_group("gloo", store=store, rank=0, world_size=2, timeout=timeout)
print("rank", dist.get_rank(), "of", dist.get_world_size())


def batch_of(rank: int) -> torch.Tensor:
    """Each rank's batch (rank 0 rebuilds rank 1's to check the averaged gradients)."""
    return torch.randn(3, 4, generator=torch.Generator().manual_seed(rank))


# %%
# The repro
# ---------
# A frozen network used inside the loss, wrapped like the model it helps train: here a feature
# extractor for a perceptual loss (a VGG in real code), with every parameter frozen.

torch.manual_seed(0)
features = nn.Sequential(nn.Linear(4, 8), nn.ReLU()).requires_grad_(False)
try:
    DistributedDataParallel(features)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# A network that does not train, wrapped all the same: a feature extractor for a perceptual
# loss, the teacher of a distillation, a frozen VAE or text encoder beside the trained model.

teacher = nn.Linear(4, 8).requires_grad_(False)
try:
    DistributedDataParallel(teacher)  # cause: frozen-network
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A module with no parameters at all (a loss module, a spectrogram or other preprocessing
# module that holds only buffers), wrapped because everything that is an ``nn.Module`` went
# through the same wrapping code (``accelerator.prepare`` did this).

preprocess = nn.Identity()
try:
    DistributedDataParallel(preprocess)  # cause: no-parameters
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A training configuration that unfreezes nothing: the model is frozen, and the names of the
# parts to train match no parameter (a typo, a module this model does not have), so the model
# reaches DDP with every parameter frozen.

model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))  # "0": backbone, "1": adapter
model.requires_grad_(False)
for name, param in model.named_parameters():
    if name.startswith("adaptor"):  # the config's name for the part to train
        param.requires_grad_(True)
try:
    DistributedDataParallel(model)  # cause: nothing-unfrozen
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: wrap only what trains
# ----------------------------
# A frozen network needs no DDP: every rank holds the same copy (load the same weights, or seed
# its creation identically, as here) and uses it as it is. Wrap the model that trains. The
# gradient that arrives in the student is then the average of the two ranks' gradients, which
# rank 0 checks by computing both ranks' losses itself on plain copies:

student_module = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
student = DistributedDataParallel(student_module)  # fix: frozen-network
reference = [nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(2)]
for copy in reference:
    copy.load_state_dict(student_module.state_dict())
batch = batch_of(0)
loss = (features(student(batch)) - features(batch)).pow(2).mean()  # fix: frozen-network
loss.backward()
for rank, copy in enumerate(reference):
    (features(copy(batch_of(rank))) - features(batch_of(rank))).pow(2).mean().backward()
expected = (reference[0][0].weight.grad + reference[1][0].weight.grad) / 2
torch.testing.assert_close(student_module[0].weight.grad, expected)
assert all(p.grad is None for p in features.parameters())

# %%
# Fix 2: call a parameter-free module directly
# --------------------------------------------
# Move it to the device and call it: it has no state to synchronise.

preprocessed = preprocess(batch)  # fix: no-parameters
torch.testing.assert_close(preprocessed, batch)

# %%
# Fix 3: make sure something trains before wrapping
# -------------------------------------------------
# Unfreeze by the names the model really has, and check what requires grad before handing the
# model to DDP. Only the adapter's gradients are averaged; the backbone stays frozen:

model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
model.requires_grad_(False)
for name, param in model.named_parameters():
    if name.startswith("1."):  # fix: nothing-unfrozen
        param.requires_grad_(True)
trainable = [name for name, param in model.named_parameters() if param.requires_grad]
assert trainable == ["1.weight", "1.bias"], trainable
wrapped = DistributedDataParallel(model)  # fix: nothing-unfrozen
wrapped(batch).sum().backward()
hidden = [model[0](batch_of(rank)).detach() for rank in range(2)]
torch.testing.assert_close(model[1].bias.grad, torch.full((2,), 3.0))
torch.testing.assert_close(
    model[1].weight.grad, (hidden[0].sum(0) + hidden[1].sum(0)).expand(2, 4) / 2
)
assert model[0].weight.grad is None

# %%
# The process group is destroyed (rank 1 waits for rank 0 to be done before closing its
# connections), and rank 1 must have finished cleanly:

store.set("rank 0 done", "yes")
dist.destroy_process_group()
_, peer_errors = peer.communicate(timeout=60)
assert peer.returncode == 0, peer_errors.decode()
print("rank 1 exited with", peer.returncode)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-no-trainable-parameters
