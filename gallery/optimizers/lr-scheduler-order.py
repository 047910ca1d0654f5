"""
lr-scheduler-order
==================

.. autograd-entry:: lr-scheduler-order

How a scheduler knows the optimizer has stepped
-----------------------------------------------

A learning-rate scheduler sets each parameter group's ``lr`` for the *next* optimizer step:
``scheduler.step()`` belongs after ``optimizer.step()``, once per epoch or per iteration. Since
torch 1.2 the scheduler checks the order. When it is created it wraps ``optimizer.step`` in a
function that marks the optimizer as stepped, and at its own first ``step()`` it looks at two
things: whether ``optimizer.step`` is still its wrapper (if not, something replaced the method
after the scheduler was created, and it cannot tell), and whether the wrapper ever ran (if not,
the schedule moved on before its first value was used).

Both are warnings, printed once. The second is also a fact about your run: the first learning
rate of the schedule was never used.
"""

import types
import warnings

import torch
from torch import nn


def make_model() -> nn.Linear:
    model = nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.fill_(0.5)
        model.bias.zero_()
    return model


inputs = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
targets = torch.tensor([[1.0], [0.0]])


def loss_of(model: nn.Module) -> torch.Tensor:
    return nn.functional.mse_loss(model(inputs), targets)


def gradient_at(weight: torch.Tensor) -> torch.Tensor:
    """The weight's gradient of the loss, computed on a fresh copy by autograd."""
    copy = make_model()
    with torch.no_grad():
        copy.weight.copy_(weight)
    loss_of(copy).backward()
    return copy.weight.grad.clone()


# %%
# The repro
# ---------
# The order of the torch 1.0 tutorials: the scheduler first, at the top of each epoch. Its
# first ``step()`` moves the learning rate from 0.1 to 0.05 before any optimizer step.

model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _epoch in range(2):
        scheduler.step()  # broken  # cause: scheduler-before-optimizer
        optimizer.zero_grad()
        loss_of(model).backward()
        optimizer.step()  # broken
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("learning rates used: 0.05, then", optimizer.param_groups[0]["lr"])

# %%
# Fix 1: step the optimizer, then the scheduler
# ---------------------------------------------
# With the calls in this order the first epoch uses the schedule's first value, 0.1: the
# weight after one step is ``w - 0.1 * grad``, with the gradient computed independently.

model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
start = model.weight.detach().clone()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    optimizer.zero_grad()
    loss_of(model).backward()
    optimizer.step()  # fixed  # fix: scheduler-before-optimizer
    scheduler.step()  # fixed  # fix: scheduler-before-optimizer
assert not caught, [str(w.message) for w in caught]
torch.testing.assert_close(model.weight.detach(), start - 0.1 * gradient_at(start))
assert optimizer.param_groups[0]["lr"] == 0.05
print("first step taken with lr 0.1; next lr", optimizer.param_groups[0]["lr"])

# %%
# A step the gradient scaler skipped
# ----------------------------------
# In mixed precision, ``scaler.step(optimizer)`` calls ``optimizer.step()`` only if the
# unscaled gradients are finite; otherwise it skips the step and ``scaler.update()`` halves
# the scale. The first iterations of float16 training on a GPU often overflow at the default
# scale of 65536, so the loop below, in the right order, still warns: the optimizer did not
# step before the scheduler did. Here, on the CPU, a scale of :math:`2^{126}` overflows the
# float32 gradients in the same way.

model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**126)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    optimizer.zero_grad()
    scaler.scale(loss_of(model)).backward()
    scaler.step(optimizer)  # skipped: the scaled gradients are inf
    scaler.update()
    scheduler.step()  # cause: skipped-by-grad-scaler
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("scale after the skipped step:", scaler.get_scale())

# %%
# Fix 2: step the scheduler only after a real step
# ------------------------------------------------
# A skipped step leaves the weights alone and lowers the scale, so comparing the scale before
# and after ``update()`` tells whether the optimizer stepped. Step the scheduler only then:
# the schedule stays in line with the updates the model received. (If the skipped steps are
# only the first few, ignoring the warning costs one value of the schedule; this keeps it.)

model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**126)
start = model.weight.detach().clone()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _iteration in range(2):
        optimizer.zero_grad()
        scaler.scale(loss_of(model)).backward()
        scale_before = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        if scaler.get_scale() >= scale_before:  # fixed  # fix: skipped-by-grad-scaler
            scheduler.step()  # fixed  # fix: skipped-by-grad-scaler
assert not caught, [str(w.message) for w in caught]
# The first iteration was skipped; the second stepped with the schedule's first value, 0.1.
torch.testing.assert_close(model.weight.detach(), start - 0.1 * gradient_at(start))
assert scheduler.last_epoch == 1
assert optimizer.param_groups[0]["lr"] == 0.05
print("one real step, taken with lr 0.1; scale now", scaler.get_scale())

# %%
# ``optimizer.step`` replaced after the scheduler was made
# --------------------------------------------------------
# NVIDIA apex's ``amp.initialize(model, optimizer)`` and other wrappers (fp16 loss scalers,
# gradient accumulators) patch ``optimizer.step`` with a method of their own. Done after the
# scheduler was created, that patch throws away the scheduler's wrapper, and the first
# ``scheduler.step()`` says so, whatever the order of the calls. The wrapper below patches the
# method the way apex does.


def wrap_step(optimizer: torch.optim.Optimizer) -> None:
    """A wrapper in the manner of apex.amp: replace ``optimizer.step`` by a bound method."""
    original_step = optimizer.step

    def step(self, closure=None):
        return original_step(closure)

    optimizer.step = types.MethodType(step, optimizer)


model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    wrap_step(optimizer)  # cause: step-replaced-after-scheduler
    optimizer.zero_grad()
    loss_of(model).backward()
    optimizer.step()
    scheduler.step()  # cause: step-replaced-after-scheduler
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# Fix 3: wrap the optimizer first, then create the scheduler
# ----------------------------------------------------------
# Created after the wrapping (for apex: after ``amp.initialize``), the scheduler wraps the
# patched method, and can see every step again. The step it tracks is the wrapper's, which
# updates the weights as the plain optimizer would:

model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
wrap_step(optimizer)  # fixed  # fix: step-replaced-after-scheduler
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)  # fixed
start = model.weight.detach().clone()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    optimizer.zero_grad()
    loss_of(model).backward()
    optimizer.step()
    scheduler.step()  # fix: step-replaced-after-scheduler
assert not caught, [str(w.message) for w in caught]
torch.testing.assert_close(model.weight.detach(), start - 0.1 * gradient_at(start))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: lr-scheduler-order
