"""
ddp-static-graph
================

.. autograd-entry:: ddp-static-graph

What ``static_graph=True`` promises
-----------------------------------

Without it, ``DistributedDataParallel`` finds out at every step which parameters will get a
gradient (with ``find_unused_parameters=True``, by walking the graph after each forward pass),
and waits for each of them during backward. ``static_graph=True`` (or the older private
``model._set_static_graph()``) promises that the graph is the same at every step. DDP then
learns it once, in the first iteration, records which parameters were used and in what order
their gradients arrived, and from the second iteration on reduces by that record, without
searching. It also makes patterns work that confuse the per-step bookkeeping: reentrant
activation checkpointing, a parameter used twice.

If an iteration does not follow the record, DDP cannot tell what to wait for, and raises. A
parameter used in the first iteration and not in a later one leaves its gradient missing: the
next forward pass finds the reduction unfinished. A parameter unused in the first iteration and
used later delivers a gradient DDP has no place for: the backward pass that computes it raises.

This page runs DDP on the CPU with the ``gloo`` backend, in a process group of one process: the
record is kept per process, and two gloo ranks on 127.0.0.1 raise the same messages.
"""

import os
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

store_path = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", store=dist.FileStore(store_path, 1), rank=0, world_size=1)


class WithAuxiliaryHead(nn.Module):
    """A model whose auxiliary head runs only for the batches that have its targets."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(2, 2)
        self.aux = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor, with_aux: bool) -> torch.Tensor:
        hidden = self.body(x)
        loss = hidden.pow(2).mean()
        if with_aux:
            loss = loss + self.aux(hidden).pow(2).mean()
        return loss


# %%
# The repro
# ---------
# The first batch has auxiliary targets, the second does not: ``aux`` was used, then unused,
# and the third forward pass raises. The indices are those of ``model.parameters()``: 2 and 3
# are ``aux.weight`` and ``aux.bias``.

model = DistributedDataParallel(WithAuxiliaryHead(), static_graph=True)  # broken
try:
    for with_aux in (True, False, True):  # cause: graph-changes
        model(torch.randn(4, 2), with_aux).backward()  # cause: graph-changes
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The other way round, a head that the first iteration skipped: its first gradient, in the
# second backward pass, is refused.

model = DistributedDataParallel(WithAuxiliaryHead(), static_graph=True)
try:
    for with_aux in (False, True):  # cause: graph-changes
        model(torch.randn(4, 2), with_aux).backward()  # cause: graph-changes
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: no static graph for a graph that changes
# -----------------------------------------------
# Leave out ``static_graph=True`` (and any ``_set_static_graph()`` call), and let DDP find the
# unused parameters at each step with ``find_unused_parameters=True``. The gradients are
# checked against the same steps on a plain copy of the model (with one process, DDP's averaged
# gradient is the local one):

model = DistributedDataParallel(WithAuxiliaryHead(), find_unused_parameters=True)  # fixed
reference = WithAuxiliaryHead()
reference.load_state_dict(model.module.state_dict())
for with_aux in (True, False, True, False):
    model.zero_grad()
    reference.zero_grad()
    x = torch.randn(4, 2)
    model(x, with_aux).backward()  # fix: graph-changes
    reference(x, with_aux).backward()
    torch.testing.assert_close(model.module.body.weight.grad, reference.body.weight.grad)
    if with_aux:
        torch.testing.assert_close(model.module.aux.weight.grad, reference.aux.weight.grad)
print("four steps, the auxiliary head in two")

# %%
# A graph that does not change, and still fails
# ---------------------------------------------
# A known limitation of DDP (https://github.com/pytorch/pytorch/issues/79171): ``forward``
# returns two outputs, the loss uses one, and the other head never gets a gradient, in every
# iteration alike. The graph is static, yet the third forward pass raises the first message.


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.main = nn.Linear(2, 1)
        self.extra = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.main(x), self.extra(x)


model = DistributedDataParallel(TwoHeads(), static_graph=True)
try:
    for _step in range(3):  # cause: output-not-in-loss
        prediction, _extra = model(torch.randn(4, 2))  # cause: output-not-in-loss
        prediction.pow(2).mean().backward()  # cause: output-not-in-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: return only what the loss uses
# -------------------------------------
# Compute the extra output where it is needed, not in every ``forward``: the ``extra``
# parameters are then unused from the first iteration on, which the static graph records and
# accepts. (Or drop ``static_graph=True`` and pass ``find_unused_parameters=True``, as above.)
# The gradient of :math:`\operatorname{mean}((Wx + b)^2)` with respect to ``b`` is
# :math:`2\,\operatorname{mean}(Wx + b)`:


class MainHeadOnly(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.main = nn.Linear(2, 1)
        self.extra = nn.Linear(2, 1)  # used by an evaluation step, outside DDP's forward

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.main(x)


model = DistributedDataParallel(MainHeadOnly(), static_graph=True)
for _step in range(3):
    model.zero_grad()
    x = torch.randn(4, 2)
    prediction = model(x)  # fix: output-not-in-loss
    prediction.pow(2).mean().backward()
    torch.testing.assert_close(model.module.main.bias.grad, 2 * prediction.detach().mean(0))
    assert model.module.extra.weight.grad is None

# %%
# The process group is destroyed, so that nothing outlives the script:

dist.destroy_process_group()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-static-graph
