"""
ddp-find-unused-not-needed
==========================

.. autograd-entry:: ddp-find-unused-not-needed

What ``find_unused_parameters=True`` does at every step
-------------------------------------------------------

``DistributedDataParallel`` averages gradients while backward runs: a hook on every parameter
marks it ready when autograd delivers its gradient, and a step's reduction is finished when
every parameter has been marked. A parameter that gets no gradient in a step would leave it
pending, and the next forward pass raises (see ``ddp-unused-parameters``). With
``find_unused_parameters=True``, DDP walks the autograd graph after each forward pass, from
the tensors ``forward`` returned, and marks every parameter the walk does not reach as ready
at once. The walk is paid at every step.

When a walk reaches every parameter DDP holds, it found nothing to mark, and DDP warns that
the flag may be unneeded. The warning comes from C++, from the reducer
(``torch/csrc/distributed/c10d/reducer.cpp``), during the *forward* call: DDP's
``_post_forward`` calls ``reducer.prepare_for_backward`` through pybind11, where no Python
warning handler waits, so c10 writes the warning to standard error, as
``[rank0]:[W... reducer.cpp:NNN] Warning: ... (function operator())``. It is not a Python
warning: ``warnings.catch_warnings`` does not record it and ``warnings.filterwarnings`` does
not silence it. The warning is ``TORCH_WARN_ONCE``, printed once per process; this page
calls ``torch.set_warn_always(True)``, which prints it at every forward pass that finds
nothing, to show every case.

The warning judges the forward pass it has just seen. A model whose later steps leave
parameters out needs the flag even if its first step warned, and so does a model whose loss
leaves out an output the forward pass computed: the walk reaches the parameters behind it,
backward does not.

This page runs DDP on the CPU with the ``gloo`` backend, in a process group of one process:
the walk is per process, so one rank warns as each of eight GPUs would, and the gradients DDP
leaves in ``.grad`` (the average over one rank) are those of the plain module.
"""

import os
import tempfile
import warnings
from collections.abc import Callable

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

torch.set_warn_always(True)  # the warning is TORCH_WARN_ONCE: once per process otherwise
store_path = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", store=dist.FileStore(store_path, 1), rank=0, world_size=1)


def batch_of(step: int) -> torch.Tensor:
    """The batch of a step."""
    return torch.randn(8, 3, generator=torch.Generator().manual_seed(step))


class Regressor(nn.Module):
    """A model that uses every parameter in every step."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(x)))


def expected_grads(
    module: nn.Module, loss_of: Callable[..., torch.Tensor], *args: int
) -> list[torch.Tensor | None]:
    """The gradients of ``loss_of(copy, *args)`` for a plain copy of ``module``, parameter by
    parameter (None for a parameter the loss does not reach): with one process, the average DDP
    leaves in ``.grad`` is this local gradient."""
    plain = type(module)()
    plain.load_state_dict(module.state_dict())
    loss = loss_of(plain, *args)
    return list(torch.autograd.grad(loss, list(plain.parameters()), allow_unused=True))


def assert_grads(module: nn.Module, expected: list[torch.Tensor | None]) -> None:
    for parameter, grad in zip(module.parameters(), expected, strict=True):
        if grad is None:
            assert parameter.grad is None
        else:
            torch.testing.assert_close(parameter.grad, grad)


def sum_loss(model: nn.Module, step: int) -> torch.Tensor:
    return model(batch_of(step)).sum()


# %%
# The repro
# ---------
# The flag set "to be safe" on a model that uses everything. The first forward pass walks the
# graph, reaches both layers, and prints the warning to standard error, so ``caught`` stays
# empty:

module = Regressor()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = DistributedDataParallel(module, find_unused_parameters=True)  # broken
    for step in range(2):
        model.zero_grad()
        loss = sum_loss(model, step)  # broken  # cause: set-as-precaution
        loss.backward()
print("Python warnings recorded:", len(caught), "(the warning went to standard error)")

# %%
# The gradients are right: here the flag only costs time.

assert_grads(module, expected_grads(module, sum_loss, 1))

# %%
# Fix 1: turn the flag off
# ------------------------
# ``find_unused_parameters`` is ``False`` by default. Without it DDP does not walk the graph
# (nothing is printed), and every gradient arrives through the hooks, as before:

module = Regressor()
model = DistributedDataParallel(module)  # fixed  # fix: set-as-precaution
for step in range(2):
    model.zero_grad()
    sum_loss(model, step).backward()
    assert_grads(module, expected_grads(module, sum_loss, step))
assert model.find_unused_parameters is False

# %%
# The default of a framework
# --------------------------
# Often nobody wrote the flag: a framework passed it. Hugging Face's ``Trainer`` passes
# ``find_unused_parameters=True`` unless ``TrainingArguments(ddp_find_unused_parameters=...)``
# says otherwise or the model uses gradient checkpointing; PyTorch Lightning 1.x did so for
# ``strategy="ddp"`` (Lightning 2 passes it for ``"ddp_find_unused_parameters_true"``). The
# function below wraps a model by the ``Trainer``'s rule (``transformers/trainer.py``):


def wrap_like_trainer(
    model: nn.Module, ddp_find_unused_parameters: bool | None = None
) -> DistributedDataParallel:
    if ddp_find_unused_parameters is not None:
        find_unused_parameters = ddp_find_unused_parameters
    else:
        find_unused_parameters = not getattr(model, "is_gradient_checkpointing", False)
    return DistributedDataParallel(model, find_unused_parameters=find_unused_parameters)


module = Regressor()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = wrap_like_trainer(module)  # cause: framework-default
    sum_loss(model, 0).backward()  # cause: framework-default
print("find_unused_parameters:", model.find_unused_parameters)

# %%
# Fix 2: turn it off where the framework takes it
# -----------------------------------------------
# ``TrainingArguments(ddp_find_unused_parameters=False)`` for the ``Trainer``;
# ``strategy="ddp"`` on Lightning 2, ``DDPStrategy(find_unused_parameters=False)`` (or
# ``"ddp_find_unused_parameters_false"``) on Lightning 1.x.

module = Regressor()
model = wrap_like_trainer(module, ddp_find_unused_parameters=False)  # fix: framework-default
sum_loss(model, 0).backward()
assert model.find_unused_parameters is False
assert_grads(module, expected_grads(module, sum_loss, 0))

# %%
# Flow control: parameters unused in later steps
# ----------------------------------------------
# The false positive the warning itself names. Here an auxiliary head is trained only on the
# batches that have its targets, every other step: the first step uses everything, so DDP
# warns, and the second leaves the head without a gradient.


class WithAuxHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.main = nn.Linear(4, 1)
        self.aux = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor, with_aux: bool) -> tuple[torch.Tensor, ...]:
        hidden = torch.relu(self.body(x))
        if with_aux:
            return self.main(hidden), self.aux(hidden)
        return (self.main(hidden),)


def aux_loss(model: nn.Module, step: int) -> torch.Tensor:
    """The loss of a step: the auxiliary term on even steps only."""
    outputs = model(batch_of(step), with_aux=step % 2 == 0)
    return sum(output.pow(2).mean() for output in outputs)


module = WithAuxHead()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = DistributedDataParallel(module, find_unused_parameters=True)
    loss = aux_loss(model, 0)  # cause: flow-control
    loss.backward()

# %%
# Taking the warning's advice breaks the next step but one: the step without the auxiliary head
# leaves its gradients missing, and the forward pass after it raises the error of
# ``ddp-unused-parameters`` (shown here from inside a function).


def steps_without_the_flag(
    module: nn.Module, loss_of: Callable[..., torch.Tensor], steps: int
) -> str:
    """The error ``steps`` training steps of ``module`` raise under DDP without the flag."""
    model = DistributedDataParallel(module)
    try:
        for step in range(steps):
            loss_of(model, step).backward()
    except RuntimeError as error:
        return str(error)
    return "no error"


message = steps_without_the_flag(WithAuxHead(), aux_loss, 3)
print(message.splitlines()[0][:120], "...")
assert message.startswith("Expected to have finished reduction in the prior iteration")

# %%
# Fix 3: keep the flag
# --------------------
# When the set of parameters a step uses changes from step to step, the walk is what lets the
# steps without the head finish: keep ``find_unused_parameters=True`` and ignore the warning,
# which is printed once per process. (``TORCH_CPP_LOG_LEVEL=ERROR`` in the environment, set
# before torch is imported, silences it, with every other C++ warning.) ``static_graph=True``
# is no way out here: it records the first step and raises when a later one differs (see
# ``ddp-static-graph``). The head's gradient stays ``None`` in the steps that leave it out:

module = WithAuxHead()
model = DistributedDataParallel(module, find_unused_parameters=True)  # fix: flow-control
for step in range(4):
    model.zero_grad(set_to_none=True)
    aux_loss(model, step).backward()
    assert_grads(module, expected_grads(module, aux_loss, step))
assert module.aux.weight.grad is None

# %%
# An output the loss leaves out
# -----------------------------
# The walk starts from what ``forward`` returned, so it reaches the parameters behind every
# output, including one the loss then leaves out. The warning says no parameter is unused, yet
# backward gives that head no gradient, and without the flag the second step raises.


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.main = nn.Linear(4, 1)
        self.aux = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = torch.relu(self.body(x))
        return self.main(hidden), self.aux(hidden)


def main_only_loss(model: nn.Module, step: int) -> torch.Tensor:
    prediction = model(batch_of(step))[0]
    return prediction.pow(2).mean()


module = TwoHeads()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = DistributedDataParallel(module, find_unused_parameters=True)
    loss = main_only_loss(model, 0)  # cause: output-left-out
    loss.backward()


message = steps_without_the_flag(TwoHeads(), main_only_loss, 2)
print(message.splitlines()[0][:120], "...")
assert message.startswith("Expected to have finished reduction in the prior iteration")

# %%
# Fix 4: keep the flag, or stop returning what the loss does not use
# ------------------------------------------------------------------
# With the flag, DDP passes the outputs through an autograd function of its own, and an output
# the loss leaves out just gets no gradient (torch 1.10 and later): the auxiliary head's
# ``grad`` stays ``None``.

module = TwoHeads()
model = DistributedDataParallel(module, find_unused_parameters=True)  # fix: output-left-out
for step in range(2):
    model.zero_grad(set_to_none=True)
    main_only_loss(model, step).backward()
    assert_grads(module, expected_grads(module, main_only_loss, step))
assert module.aux.weight.grad is None

# %%
# If the auxiliary head is not trained at all, leave it out of the step: a ``forward`` that
# returns only what the loss uses, with the head frozen before wrapping (DDP holds only the
# parameters that require grad), needs no flag, and nothing is printed.


class MainHeadOnly(TwoHeads):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor]:  # type: ignore[override]
        return (self.main(torch.relu(self.body(x))),)


module = MainHeadOnly()
module.aux.requires_grad_(False)  # fix: output-left-out
model = DistributedDataParallel(module)  # fix: output-left-out
for step in range(2):
    model.zero_grad(set_to_none=True)
    main_only_loss(model, step).backward()
    assert_grads(module, expected_grads(module, main_only_loss, step))
assert model.find_unused_parameters is False
assert module.aux.weight.grad is None

# %%
# The process group is destroyed, so that nothing outlives the script:

dist.destroy_process_group()
torch.set_warn_always(False)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-find-unused-not-needed
