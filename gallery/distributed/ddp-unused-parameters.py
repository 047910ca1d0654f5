"""
ddp-unused-parameters
=====================

.. autograd-entry:: ddp-unused-parameters

How DDP knows a backward pass is complete
-----------------------------------------

``DistributedDataParallel`` averages gradients across processes *during* backward: it puts a
hook on every parameter, and each time autograd delivers a parameter's gradient the hook marks
it ready; when every parameter of a bucket is ready, that bucket's all-reduce starts. The
step's reduction is finished when every parameter has been marked. A parameter that did not
take part in the loss never gets a gradient, its hook never fires, and the reduction of that
step stays pending. The next forward pass checks, and raises.

This page runs DDP on the CPU with the ``gloo`` backend, in a process group of one process:
``world_size=1`` raises the same error as eight GPUs would, because the bookkeeping is per
process. On a cluster each rank runs the same code under ``torchrun``.
"""

import os
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

store_path = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", store=dist.FileStore(store_path, 1), rank=0, world_size=1)


class WithSpareHead(nn.Module):
    """A model with a head its forward pass does not use (left over, or used in other steps)."""

    def __init__(self) -> None:
        super().__init__()
        self.used = nn.Linear(2, 1)
        self.spare = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.used(x)


# %%
# The repro
# ---------
# The first step's backward leaves ``spare`` without a gradient; the second forward pass
# raises. The indices in the message are those of ``model.parameters()``: 2 and 3 are
# ``spare.weight`` and ``spare.bias``.

model = DistributedDataParallel(WithSpareHead())  # broken
try:
    for _step in range(2):  # cause: submodule-not-called
        model(torch.randn(4, 2)).sum().backward()  # cause: submodule-not-called
except RuntimeError as error:
    print(f"RuntimeError: {error}")
print([name for name, _ in model.module.named_parameters()])

# %%
# Fix 1: ``find_unused_parameters=True``
# --------------------------------------
# DDP then walks the autograd graph from the forward pass's outputs and marks every parameter
# it cannot reach as ready, with a zero contribution. The walk costs time at every step, so
# use it when the unused set really changes from step to step. With one process the averaged
# gradient is the local one: ``x.sum(0)`` for the weight of ``sum(W x + b)``.

model = DistributedDataParallel(WithSpareHead(), find_unused_parameters=True)  # fixed
for _step in range(2):
    model.zero_grad()
    x = torch.randn(4, 2)
    model(x).sum().backward()  # fix: submodule-not-called
    torch.testing.assert_close(model.module.used.weight.grad, x.sum(0, keepdim=True))
    assert model.module.spare.weight.grad is None
print("two steps with the spare head left out")

# %%
# Fix 2: leave out of DDP what never trains
# -----------------------------------------
# A layer that is never used (or deliberately frozen) should not be waited for: delete it, or
# freeze it before wrapping; DDP only tracks parameters that require grad.

plain = WithSpareHead()
plain.spare.requires_grad_(False)  # fixed
model = DistributedDataParallel(plain)
for _step in range(2):
    model.zero_grad()
    x = torch.randn(4, 2)
    model(x).sum().backward()
    torch.testing.assert_close(model.module.used.weight.grad, x.sum(0, keepdim=True))

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


model = DistributedDataParallel(TwoHeads())
try:
    for _step in range(2):  # cause: output-not-in-loss
        prediction, aux = model(torch.randn(4, 2))  # cause: output-not-in-loss
        aux.pow(2).mean().backward()  # cause: output-not-in-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: a loss built from every output
# -------------------------------------
# Add the term the step forgot (here the main loss, the point of training), so every head is
# reached. The main head's weight gradient is checked against the same loss on the plain
# module.

model = DistributedDataParallel(TwoHeads())
reference = TwoHeads()
reference.load_state_dict(model.module.state_dict())
for _step in range(2):
    model.zero_grad()
    x, target = torch.randn(4, 2), torch.randn(4, 1)
    prediction, aux = model(x)
    loss = (prediction - target).pow(2).mean() + aux.pow(2).mean()  # fix: output-not-in-loss
    loss.backward()
    ref_prediction, ref_aux = reference(x)
    ref_loss = (ref_prediction - target).pow(2).mean() + ref_aux.pow(2).mean()
    expected = torch.autograd.grad(ref_loss, reference.main.weight)[0]
    torch.testing.assert_close(model.module.main.weight.grad, expected)
    with torch.no_grad():
        for mine, theirs in zip(model.module.parameters(), reference.parameters(), strict=True):
            mine -= 0.1 * mine.grad
            theirs.copy_(mine)

# %%
# The process group is destroyed, so that nothing outlives the script:

dist.destroy_process_group()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-unused-parameters
