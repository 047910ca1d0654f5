"""
gradscaler-unscale-twice
========================

.. autograd-entry:: gradscaler-unscale-twice

What ``unscale_`` records, and what clears it
---------------------------------------------

With mixed precision, ``scaler.scale(loss)`` multiplies the loss by the scaler's scale (65536
to begin with) so that small float16 gradients do not flush to zero, and the gradients come
out of ``backward`` multiplied by it too. ``scaler.unscale_(optimizer)`` divides the
optimizer's gradients by the scale, in place, and checks them for inf and NaN: users call it
before clipping or inspecting gradients, and ``scaler.step(optimizer)`` calls it itself when
nobody did. A second division would leave the gradients 65536 times too small, so the scaler
records, per optimizer, that its gradients are unscaled, and a second ``unscale_`` raises.
Only ``scaler.update()``, which ends the iteration, clears that record, for every optimizer;
``step`` does not.

So the error points at an iteration that unscaled and never reached ``update()``: a
micro-batch of gradient accumulation that unscaled without stepping, a batch skipped after
its gradients were clipped, a training library whose clipping and stepping disagree about
where an accumulation ends. FSDP's ``ShardedGradScaler`` keeps the same record and raises the
same message.

The scaler runs on the CPU here (``torch.amp.GradScaler("cpu")``); on a GPU the code is the same
with ``"cuda"`` (``torch.cuda.amp.GradScaler()`` in older code).
"""

import torch
from torch import nn

micro_batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(6)]
accumulation_steps = 2
max_norm = 1.0


def fresh_model() -> nn.Linear:
    """The same small model each time: a linear layer with fixed weights."""
    model = nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.5, -0.3, 0.2]]))
        model.bias.fill_(0.1)
    return model


def mse(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    inputs, targets = batch
    return (model(inputs) - targets).pow(2).mean()


def reference_weight(batches: list, steps: int) -> torch.Tensor:
    """The weight after the same training in float32, without a scaler: every ``steps``
    micro-batches, the accumulated gradient (of each loss divided by ``steps``), clipped to
    ``max_norm``, makes one SGD step."""
    model = fresh_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, batch in enumerate(batches):
        (mse(model, batch) / steps).backward()
        if (i + 1) % steps == 0:
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad()
    return model.weight.detach().clone()


# %%
# The repro: unscaling every micro-batch
# --------------------------------------
# Gradient accumulation with clipping, written as microsoft/Swin-Transformer's SimMIM
# pre-training loop did (Swin-Transformer#311): every micro-batch's backward is followed by
# ``unscale_`` and ``clip_grad_norm_``, and ``scaler.step`` and ``scaler.update`` come only
# every ``accumulation_steps`` micro-batches. The second micro-batch unscales gradients that
# are already unscaled, and now hold its own scaled gradient on top: even if the scaler allowed
# it, the sum would be wrong.

model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
try:
    for i, batch in enumerate(micro_batches):
        scaler.scale(mse(model, batch) / accumulation_steps).backward()
        scaler.unscale_(optimizer)  # broken  # cause: unscale-every-micro-batch
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        if (i + 1) % accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# accelerate's ``accelerator.clip_grad_norm_`` unscales too (it calls ``scaler.unscale_`` on
# each optimizer it prepared): called on every micro-batch inside ``accelerator.accumulate``,
# it fails the same way (huggingface/accelerate#641; the DreamBooth example of
# huggingface/diffusers#668, fixed by clipping under ``if accelerator.sync_gradients:``).
#
# Fix 1: unscale only where you step
# ----------------------------------
# Accumulate the scaled gradients untouched, and unscale, clip, step and update together, on
# the micro-batch that ends an accumulation (the "Gradient accumulation" example of PyTorch's
# AMP notes, pytorch/pytorch#36601). The weight is the one the same loop gives in float32,
# without a scaler:

model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for i, batch in enumerate(micro_batches):
    scaler.scale(mse(model, batch) / accumulation_steps).backward()
    if (i + 1) % accumulation_steps == 0:
        scaler.unscale_(optimizer)  # fixed  # fix: unscale-every-micro-batch
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
torch.testing.assert_close(
    model.weight.detach(), reference_weight(micro_batches, accumulation_steps)
)

# %%
# A library's accumulation: transformers' ``Trainer`` with accelerate 0.20
# ------------------------------------------------------------------------
# In June 2023 (transformers 4.30, accelerate 0.20), fp16 fine-tuning with
# ``gradient_accumulation_steps`` above 1 stopped with this message, often once the first
# epoch was over (huggingface/transformers#23935, #24849). Two counts disagreed about which
# micro-batch ends an accumulation. The ``Trainer`` counted micro-batches across epochs, and on
# every ``gradient_accumulation_steps``-th one it clipped through accelerate's
# ``clip_grad_norm_``, which unscales, then called ``optimizer.step()``. That optimizer is
# accelerate's wrapper, which steps and calls ``scaler.update()`` only where its own count ends
# an accumulation, and that count starts again with every epoch. In an epoch whose length is
# not a multiple of the accumulation the two drift apart: the ``Trainer`` unscales, the wrapper
# skips the step and the update, and the next unscale raises. The same bookkeeping, in a few
# lines (three micro-batches an epoch, two to accumulate):


class AcceleratedOptimizer:
    """accelerate 0.20's optimizer wrapper, reduced to what matters here: it steps, and updates
    the scaler, only where its own count, started again every epoch, ends an accumulation."""

    def __init__(self, optimizer, scaler, accumulation_steps):
        self.optimizer, self.scaler = optimizer, scaler
        self.accumulation_steps = accumulation_steps
        self.count = 0
        self.sync_gradients = False
        self.steps_taken = 0

    def accumulate(self, end_of_epoch: bool) -> None:
        """What ``with accelerator.accumulate(model):`` counts, micro-batch by micro-batch."""
        if end_of_epoch:
            self.count, self.sync_gradients = 0, True
        else:
            self.count += 1
            self.sync_gradients = self.count % self.accumulation_steps == 0

    def step(self) -> None:
        if self.sync_gradients:
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.steps_taken += 1


epochs = [micro_batches[:3], micro_batches[3:]]
model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
wrapped = AcceleratedOptimizer(optimizer, scaler, accumulation_steps)
total_batched_samples = 0
try:
    for epoch in epochs:
        for i, batch in enumerate(epoch):
            wrapped.accumulate(end_of_epoch=i == len(epoch) - 1)
            scaler.scale(mse(model, batch) / accumulation_steps).backward()
            total_batched_samples += 1
            if total_batched_samples % accumulation_steps == 0:  # the Trainer's count
                # accelerator.clip_grad_norm_(...): unscale, then clip
                scaler.unscale_(optimizer)  # cause: library-skipped-step
                nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                wrapped.step()
                model.zero_grad()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
print("optimizer steps taken:", wrapped.steps_taken, "of", len(micro_batches) // 2)

# %%
# Fix 2: one count decides (upgrade transformers and accelerate)
# --------------------------------------------------------------
# transformers' fix (huggingface/transformers PR #24415) tells accelerate to step whenever the
# ``Trainer`` has decided to: the step and the update then follow every unscale. Upgrading both
# libraries brings it; on the old versions, ``gradient_accumulation_steps=1`` avoids the
# error. With the counts agreeing, the three accumulations of the six micro-batches make three
# steps, and the weight is the float32 one:

model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
wrapped = AcceleratedOptimizer(optimizer, scaler, accumulation_steps)
total_batched_samples = 0
for epoch in epochs:
    for i, batch in enumerate(epoch):
        wrapped.accumulate(end_of_epoch=i == len(epoch) - 1)
        scaler.scale(mse(model, batch) / accumulation_steps).backward()
        total_batched_samples += 1
        if total_batched_samples % accumulation_steps == 0:
            wrapped.sync_gradients = True  # fix: library-skipped-step
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            wrapped.step()
            model.zero_grad()
assert wrapped.steps_taken == 3
torch.testing.assert_close(
    model.weight.detach(), reference_weight(micro_batches, accumulation_steps)
)

# %%
# A batch skipped after clipping, without ``update()``
# ----------------------------------------------------
# A guard that skips the step when the gradient norm is too large (Haian-Jin/LVSM#19: "grad
# norm too large ..., skipping optimizer step") or not finite (espnet/espnet#2362) leaves the
# iteration with ``continue`` after ``unscale_``: neither ``step`` nor ``update`` runs, and the
# next batch's ``unscale_`` finds the optimizer still unscaled. A loop that never calls
# ``update()`` at all fails the same way on its second iteration (PyTorch Lightning 1.0's
# manual optimization, Lightning-AI/pytorch-lightning#4148). Here the first batch's targets are
# far off, and its gradient norm is over the guard's threshold:

spiky_batches = [(micro_batches[0][0], 1000 * micro_batches[0][1]), micro_batches[1]]
model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
try:
    for batch in spiky_batches:
        scaler.scale(mse(model, batch)).backward()
        scaler.unscale_(optimizer)  # cause: step-skipped-without-update
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        if not torch.isfinite(grad_norm) or grad_norm > 20.0:
            optimizer.zero_grad()
            continue  # skip this batch
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: every iteration that unscaled ends with ``update()``
# -----------------------------------------------------------
# Call ``scaler.update()`` on the skipping path too (LVSM#19 and espnet#2362 moved it out of
# the ``if``). For inf and NaN no guard of your own is needed: ``scaler.step`` skips the
# optimizer's step when ``unscale_`` found any, and ``update`` then lowers the scale. The
# skipped batch leaves the weight alone, and the second batch makes the one step:

model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for batch in spiky_batches:
    scaler.scale(mse(model, batch)).backward()
    scaler.unscale_(optimizer)
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    if not torch.isfinite(grad_norm) or grad_norm > 20.0:
        optimizer.zero_grad()
        scaler.update()  # fix: step-skipped-without-update
        continue
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
torch.testing.assert_close(model.weight.detach(), reference_weight(spiky_batches[1:], 1))

# %%
# The pitfalls
# ------------
# **The scaler's other stage errors say the same with other words.** ``step`` twice without
# ``update`` raises "step() has already been called since the last update().", and
# ``unscale_`` after ``step`` "unscale_() is being called after step().": the same missing
# ``update()``, seen from the other call.


def other_stage_errors() -> None:
    model = fresh_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(mse(model, micro_batches[0])).backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    for again in (scaler.step, scaler.unscale_):
        try:
            again(optimizer)
        except RuntimeError as error:
            print(f"RuntimeError: {error}")


other_stage_errors()

# %%
# **Unscaling through another optimizer object is not caught.** The record is kept per
# optimizer object. Two optimizers that hold the same parameters, or a wrapper and the
# optimizer it wraps (accelerate unscaled its wrapper object before huggingface/accelerate#113
# was fixed), divide the same gradients twice without an error, and the gradients come out
# divided by the scale once too often:

model = fresh_model()
first = torch.optim.SGD(model.parameters(), lr=0.1)
second = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale(mse(model, micro_batches[0])).backward()
scaler.unscale_(first)
scaler.unscale_(second)  # no error, and the gradients are divided twice
reference = fresh_model()
mse(reference, micro_batches[0]).backward()
torch.testing.assert_close(model.weight.grad, reference.weight.grad / scaler.get_scale())

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: gradscaler-unscale-twice
