"""
inplace-modified
================

.. autograd-entry:: inplace-modified

Saved tensors and version counters
----------------------------------

To compute gradients later, many operations *save* tensors during the forward pass:
``torch.sigmoid`` saves its output (its derivative is ``s * (1 - s)``), ``torch.relu`` its
output, ``x * w`` both inputs. Every tensor also has a version counter, ``_version``, which
every in-place operation on it (or on a view of it) increments. Autograd records the version
of each tensor it saves, and checks it when backward needs the tensor again.
"""

import torch

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
print("version after sigmoid:", y._version)
y.mul_(2)
print("version after mul_:   ", y._version)

# %%
# The repro
# ---------
# ``sigmoid`` saved ``y`` at version 0; ``mul_`` moved it to version 1. Backward needs the
# original ``y`` to compute ``y * (1 - y)``, and refuses the changed one:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y.mul_(2)  # broken
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# The notes' other classic: an in-place activation whose output something else saved. ``relu``
# saves its output; a later ``+=`` (a residual connection, say) changes it:

x = torch.randn(4, requires_grad=True)
try:
    hidden = torch.nn.ReLU(inplace=True)(x * 2)  # cause: inplace-after-saving-op
    hidden += x  # cause: inplace-after-saving-op
    hidden.sum().backward()  # cause: inplace-after-saving-op
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Any in-place change to a saved output does it: ``*=``, or an assignment through a mask,
# after a ``sigmoid``:

x = torch.randn(4, requires_grad=True)
try:
    probs = torch.sigmoid(x)  # cause: inplace-after-saving-op
    probs *= 2  # cause: inplace-after-saving-op
    probs.sum().backward()  # cause: inplace-after-saving-op
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    probs = torch.sigmoid(x)  # cause: inplace-after-saving-op
    probs[probs < 0.5] = 0  # cause: inplace-after-saving-op
    probs.sum().backward()  # cause: inplace-after-saving-op
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``optimizer.step()`` changes parameters in place, and a forward pass saved them. A GAN step
# that computes both losses from one forward pass, steps the discriminator, then backpropagates
# the generator's loss through the discriminator, meets the changed weights. The saved tensor is
# the transposed weight of the discriminator's last ``nn.Linear`` (``[4, 1]``), which the message
# names ``AsStrided`` (older releases: ``AsStridedBackward0``, or ``TBackward`` before 1.10):

from torch import nn


def make_gan() -> tuple[nn.Sequential, nn.Sequential]:
    generator = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3))
    discriminator = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    return generator, discriminator


generator, discriminator = make_gan()
opt_d = torch.optim.SGD(discriminator.parameters(), lr=0.1)
opt_g = torch.optim.SGD(generator.parameters(), lr=0.1)
real, noise = torch.randn(5, 3), torch.randn(5, 2)
try:
    fake = generator(noise)  # cause: optimizer-step
    d_loss = discriminator(real).mean() - discriminator(fake).mean()  # cause: optimizer-step
    g_loss = discriminator(fake).mean()  # cause: optimizer-step
    d_loss.backward(retain_graph=True)  # cause: optimizer-step
    opt_d.step()  # cause: optimizer-step
    g_loss.backward()  # cause: optimizer-step
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same GAN under ``DistributedDataParallel``, up to torch 2.11: the discriminator, with a
# ``BatchNorm`` layer, runs on the real batch and then on the fake one before a single
# ``backward()``. Before every forward pass DDP copies rank 0's buffers (BatchNorm's running
# mean and variance) into every rank's module, in place (``broadcast_buffers=True``, the
# default), and the first pass had saved them: the second copy bumps their version. The saved
# tensor is a leaf, so the message has no "output 0 of". The same code runs without DDP, and
# on torch 2.12 and later, whose broadcast keeps the buffers' version counters
# (`PR #175851 <https://github.com/pytorch/pytorch/pull/175851>`__). It takes more than one
# process: here two ``gloo`` ranks on this machine, forked (on a cluster, ``torchrun``).

import multiprocessing
import os
import tempfile
import traceback

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def make_discriminator() -> nn.Sequential:
    torch.manual_seed(0)  # the same weights on every rank, and in the reference copy
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))


def make_batches() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(1)  # the same batch on every rank, and for the reference
    return torch.randn(6, 3), torch.randn(6, 3)


def discriminator_loss(
    discriminator: nn.Module, real: torch.Tensor, fake: torch.Tensor, one_pass: bool
) -> torch.Tensor:
    if one_pass:
        scores = discriminator(torch.cat([real, fake]))  # one pass, one buffer broadcast
        return scores[: len(real)].mean() - scores[len(real) :].mean()
    return discriminator(real).mean() - discriminator(fake).mean()  # two passes


def discriminator_step(
    rank: int, init_file: str, broadcast_buffers: bool, one_pass: bool
) -> list[list]:
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    discriminator = DistributedDataParallel(
        make_discriminator(), broadcast_buffers=broadcast_buffers
    )
    real, fake = make_batches()
    discriminator_loss(discriminator, real, fake, one_pass).backward()
    # Plain lists cross the process boundary by value (a tensor would be shared memory).
    return [p.grad.tolist() for p in discriminator.module.parameters()]


def run_rank(rank: int, results: multiprocessing.Queue, *arguments: object) -> None:
    """One rank, in a forked process: its gradients, or its traceback, go to ``results``."""
    # A forked process must not use the OpenMP threads it inherited from its parent.
    torch.set_num_threads(1)
    try:
        results.put((rank, None, discriminator_step(rank, *arguments)))
    except Exception:
        results.put((rank, traceback.format_exc(), None))
    results.close()
    results.join_thread()
    # Leave without tearing the interpreter down: destroying gloo's threads at exit can
    # deadlock on the GIL. (On a cluster each rank is a process of its own, from torchrun.)
    os._exit(0)


def on_two_ranks(broadcast_buffers: bool, one_pass: bool) -> list[list[torch.Tensor]]:
    """Run ``discriminator_step`` on two ranks and return their gradients; a rank's error is
    raised here with its traceback, as ``torch.multiprocessing.spawn`` reports it."""
    init_file = os.path.join(tempfile.mkdtemp(), "init")
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    arguments = (results, init_file, broadcast_buffers, one_pass)
    ranks = [context.Process(target=run_rank, args=(rank, *arguments)) for rank in range(2)]
    for process in ranks:
        process.start()
    outcomes = sorted((results.get(timeout=300) for _ in ranks), key=lambda item: item[0])
    for process in ranks:
        process.join()
    for rank, failure, _ in outcomes:
        if failure is not None:
            # The rank's error first, then its traceback: a recording keeps the first line.
            last = failure.strip().splitlines()[-1]
            raise ChildProcessError(f"rank {rank} failed: {last}\n{failure}")
    return [[torch.tensor(grad) for grad in grads] for _, _, grads in outcomes]


def gradients_without_ddp(one_pass: bool) -> list[torch.Tensor]:
    reference = make_discriminator()
    real, fake = make_batches()
    discriminator_loss(reference, real, fake, one_pass).backward()
    return [p.grad for p in reference.parameters()]


try:
    on_two_ranks(broadcast_buffers=True, one_pass=False)  # cause: ddp-broadcast-buffers
except ChildProcessError as error:  # the ranks' RuntimeError, with their traceback
    print(f"{type(error).__name__}: {str(error).strip().splitlines()[-1]}")

# %%
# A loop that writes each step into a preallocated tensor and reads the previous step from it.
# ``h[t - 1] @ W`` saves the row ``h[t - 1]`` (to compute the gradient of ``W``); writing
# ``h[t]`` bumps the version counter that all rows share with ``h``:

W = torch.randn(3, 3, requires_grad=True)
h = torch.zeros(4, 3)
h[0] = torch.tensor([0.1, 0.2, 0.3])
try:
    for t in range(1, 4):  # cause: loop-writes-buffer
        h[t] = torch.tanh(h[t - 1] @ W)  # cause: loop-writes-buffer
    h.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Reading the message
# -------------------
# ``[torch.FloatTensor [3]]`` is the type and shape of the saved tensor; ``output 0 of Sigmoid``
# names the operation that produced it (older releases print the backward node instead,
# ``SigmoidBackward0``); ``version 1; expected version 0`` says how many in-place changes it
# went through. Search your forward pass for an in-place operation on the output of that
# operation.
#
# Finding the culprit with anomaly detection
# ------------------------------------------
# In a large model the operation named in the message may be far from the in-place change.
# Under anomaly detection, autograd also warns with the *forward* traceback of the operation
# whose backward failed (that warning belongs to :doc:`/errors/anomaly/anomaly-nan`), and the
# hint changes accordingly:

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly(check_nan=False):
        x = torch.randn(3, requires_grad=True)
        y = torch.sigmoid(x)
        y.mul_(2)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"RuntimeError: {error}")
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message).splitlines()[0]}")

# %%
# Fix 1: use the out-of-place form
# --------------------------------
# ``y * 2`` creates a new tensor; the saved ``y`` stays as it was. The gradient of
# ``sum(2 * sigmoid(x))`` is ``2 * s * (1 - s)``:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y = y * 2  # fixed
y.sum().backward()
s = torch.sigmoid(x.detach())
torch.testing.assert_close(x.grad, 2 * s * (1 - s))
print("x.grad =", x.grad)

# %%
# For layers, drop ``inplace=True`` and write the residual connection out of place. The
# gradient of ``relu(2x) + x`` is 3 where ``x > 0`` and 1 elsewhere:

x = torch.randn(4, requires_grad=True)
hidden = torch.nn.ReLU()(x * 2)  # fix: inplace-after-saving-op
hidden = hidden + x  # fix: inplace-after-saving-op
hidden.sum().backward()
torch.testing.assert_close(x.grad, 1.0 + 2.0 * (x.detach() > 0))
print("x.grad =", x.grad)

# %%
# For the GAN: step the discriminator on ``fake.detach()``, then compute the generator's loss
# with a new forward pass through the updated discriminator. The generator's gradient is then
# the one of its loss under the discriminator it will next face, checked here against
# ``torch.autograd.grad`` on copies of both networks:

import copy

generator, discriminator = make_gan()
opt_d = torch.optim.SGD(discriminator.parameters(), lr=0.1)
opt_g = torch.optim.SGD(generator.parameters(), lr=0.1)
fake = generator(noise)
d_loss = discriminator(real).mean() - discriminator(fake.detach()).mean()  # fix: optimizer-step
opt_d.zero_grad()
d_loss.backward()  # fix: optimizer-step
opt_d.step()  # fix: optimizer-step
g_loss = discriminator(fake).mean()  # fix: optimizer-step
opt_g.zero_grad()
g_loss.backward()  # fix: optimizer-step
generator_copy, discriminator_copy = copy.deepcopy(generator), copy.deepcopy(discriminator)
expected = torch.autograd.grad(
    discriminator_copy(generator_copy(noise)).mean(), list(generator_copy.parameters())
)
for parameter, grad in zip(generator.parameters(), expected, strict=True):
    torch.testing.assert_close(parameter.grad, grad)
print("generator's last bias grad:", generator[2].bias.grad)

# %%
# Under DDP: one forward pass over real and fake together, one broadcast (the BatchNorm
# statistics of that pass then cover both halves); or no broadcast before each forward pass,
# ``broadcast_buffers=False`` (from torch 2.13, ``forward_sync_buffers=False``), each rank
# keeping its own running statistics. ``nn.SyncBatchNorm`` also avoids it, on GPUs only. Both
# ranks see the same batch, so DDP's average of their gradients is the gradient of the same
# loss without DDP:

single = on_two_ranks(broadcast_buffers=True, one_pass=True)  # fix: ddp-broadcast-buffers
no_sync = on_two_ranks(broadcast_buffers=False, one_pass=False)  # fix: ddp-broadcast-buffers
for ranks, one_pass in ((single, True), (no_sync, False)):
    for grads in ranks:
        for ours, expected in zip(grads, gradients_without_ddp(one_pass), strict=True):
            torch.testing.assert_close(ours, expected)
print("two ranks, one backward each: gradients as without DDP")

# %%
# For the loop, collect the steps in a list and stack them once: every step is a new tensor,
# nothing is overwritten. The gradient with respect to ``W`` is checked against finite
# differences:


def unrolled(weight: torch.Tensor) -> torch.Tensor:
    steps = [torch.tensor([0.1, 0.2, 0.3], dtype=weight.dtype)]
    for _ in range(1, 4):
        steps.append(torch.tanh(steps[-1] @ weight))
    return torch.stack(steps).sum()


W = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
steps = [torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)]  # fix: loop-writes-buffer
for _ in range(1, 4):  # fix: loop-writes-buffer
    steps.append(torch.tanh(steps[-1] @ W))  # fix: loop-writes-buffer
h = torch.stack(steps)  # fix: loop-writes-buffer
h.sum().backward()
numeric = torch.zeros(3, 3, dtype=torch.float64)
for i in range(3):
    for j in range(3):
        step = torch.zeros(3, 3, dtype=torch.float64)
        step[i, j] = 1e-6
        numeric[i, j] = (unrolled(W.detach() + step) - unrolled(W.detach() - step)) / 2e-6
torch.testing.assert_close(W.grad, numeric)
print("W.grad =", W.grad)

# %%
# Fix 2: clone before changing
# ----------------------------
# When an in-place update is what you want (to save memory on a large tensor, say), apply it to a
# copy; the saved tensor keeps its version:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
scaled = y.clone()
scaled.mul_(2)
scaled.sum().backward()
s = torch.sigmoid(x.detach())
torch.testing.assert_close(x.grad, 2 * s * (1 - s))
print("x.grad =", x.grad)

# %%
# The pitfall of ``.data`` and ``detach()``
# -----------------------------------------
# ``y.detach()`` shares storage *and* version counter with ``y``: changing it in place still
# raises this error, which is what you want. ``y.data`` shares the storage but not the counter:
# the change goes unseen and the gradient is silently wrong. Here sigmoid's backward computes
# ``s * (1 - s)`` from the doubled ``s``:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y.data.mul_(2)
y.sum().backward()
s = torch.sigmoid(x.detach())
print("true gradient:   ", s * (1 - s))
print("what .grad holds:", x.grad)
assert not torch.allclose(x.grad, s * (1 - s))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inplace-modified
