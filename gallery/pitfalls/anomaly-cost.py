"""
anomaly-cost
============

.. autograd-entry:: anomaly-cost

What anomaly mode does on every step
------------------------------------

Anomaly detection (``torch.autograd.set_detect_anomaly(True)`` or the
``torch.autograd.detect_anomaly()`` context manager) exists to turn a backward error into one
you can act on. To do that it adds work in both passes:

- **forward**: every operation that autograd records stores the Python stack trace of the line
  that called it in its node's metadata, so that an error in the backward pass can name the
  forward line responsible (:doc:`/errors/inplace/inplace-modified`,
  :doc:`/errors/anomaly/anomaly-nan`);
- **backward**: with ``check_nan=True`` (the default), the outputs of every backward function are
  scanned for NaN.

The stack traces are visible on the graph:
"""

import statistics
import threading
import time

import torch

x = torch.randn(3, requires_grad=True)
y = x * 2
print("anomaly off: metadata =", dict(y.grad_fn.metadata))
assert "traceback_" not in y.grad_fn.metadata

with torch.autograd.detect_anomaly():
    assert torch.is_anomaly_enabled()
    y = x * 2
print("anomaly on:  metadata keys =", list(y.grad_fn.metadata))
print("last frame:", y.grad_fn.metadata["traceback_"][-1].strip().splitlines()[-1].strip())
assert "traceback_" in y.grad_fn.metadata
assert not torch.is_anomaly_enabled()

# %%
# Nothing says it is on
# ---------------------
# ``set_detect_anomaly(True)``, the switch people add at the top of a script while debugging,
# warns nothing; only the ``detect_anomaly()`` context manager warns, once, as it is entered. A
# script that keeps the switch pays the cost on every step without a word:

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.autograd.set_detect_anomaly(True)  # cause: left-on
    y = x * 2  # cause: left-on
assert caught == []
assert "traceback_" in y.grad_fn.metadata
torch.autograd.set_detect_anomaly(False)
print("warnings from set_detect_anomaly(True):", len(caught))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        pass
print("warnings from detect_anomaly():        ", [str(w.message)[:40] for w in caught])
assert len(caught) == 1

# %%
# Measuring the cost
# ------------------
# The notes report runs two to three times slower (a five-minute run took two to three times
# as long). Here is a small model, four ``Linear(64, 64)`` + ``ReLU`` layers on a batch of 32,
# timed per forward + backward step: the median of 7 rounds of 20 steps each, with anomaly
# detection off, on for the whole step, and on for ``backward()`` only (the three settings take
# turns). The numbers are those of the machine that built this page, whatever they are; timings
# vary from run to run.

model = torch.nn.Sequential(
    *[layer for _ in range(4) for layer in (torch.nn.Linear(64, 64), torch.nn.ReLU())]
)
inputs = torch.randn(32, 64)


def step():
    model.zero_grad()
    model(inputs).sum().backward()


def step_backward_only():
    model.zero_grad()
    loss = model(inputs).sum()
    with torch.autograd.set_detect_anomaly(True):
        loss.backward()


def timed_training(run, steps=20):
    start = time.perf_counter()
    for _ in range(steps):
        run()
    return (time.perf_counter() - start) / steps


def measure(rounds=7):
    """Median time per step of each setting; the settings take turns, so that a change in the
    machine's load affects all three alike."""
    plain, anomaly, backward_only = [], [], []
    step()  # warm up
    for _ in range(rounds):
        plain.append(timed_training(step))
        with torch.autograd.detect_anomaly():  # broken
            modes.append(torch.is_anomaly_enabled())
            anomaly.append(timed_training(step))  # broken
        modes.append(torch.is_anomaly_enabled())
        backward_only.append(timed_training(step_backward_only))
    medians.update(
        plain=statistics.median(plain),
        anomaly=statistics.median(anomaly),
        backward_only=statistics.median(backward_only),
    )


# A thread of its own keeps the timings free of any tracer attached to the main thread (a
# debugger, a coverage tool, the documentation build): tracers slow Python code down, and
# anomaly mode runs Python code for every operation.
medians, modes = {}, []
timer = threading.Thread(target=measure)
timer.start()
timer.join()
plain, anomaly, backward_only = medians["plain"], medians["anomaly"], medians["backward_only"]
assert modes == [True, False] * 7  # anomaly mode was on inside the context, off after it

print(f"anomaly detection off:        {plain * 1e3:7.2f} ms per step")
print(f"on for the whole step:        {anomaly * 1e3:7.2f} ms per step ({anomaly / plain:.1f}x)")
print(
    f"on for backward() only:       {backward_only * 1e3:7.2f} ms per step"
    f" ({backward_only / plain:.1f}x)"
)

# %%
# Whatever the exact figures, the shape of the cost follows from what the mode does. The stack
# trace is taken once per recorded operation and costs about the same for a 64-wide layer as for
# a 4096-wide one, so the slowdown is largest for models made of many small operations (the
# notes' recurrent network, unrolled over time steps, is one) and smallest for a few large
# convolutions. A model's figure is only known by measuring it.
#
# Fix: enable it for the step you are investigating, then disable it
# ------------------------------------------------------------------
# Never leave ``set_detect_anomaly(True)`` at the top of a training script. Wrap the one step
# that fails, or switch the mode on and off around it as the notes do:

torch.autograd.set_detect_anomaly(True)  # fixed
assert torch.is_anomaly_enabled()
step()  # fixed
torch.autograd.set_detect_anomaly(False)  # fixed
assert not torch.is_anomaly_enabled()

with torch.autograd.detect_anomaly():  # fix: left-on
    y = x * 2  # fix: left-on
y = x * 2
assert not torch.is_anomaly_enabled()
assert "traceback_" not in y.grad_fn.metadata

# %%
# Enabling the mode around ``backward()`` only, as ``step_backward_only`` above does, saves the
# forward traces, so the message cannot say which line of the forward pass created a NaN (torch
# warns "No forward pass information available"). But the NaN check stays: every backward
# function's outputs are still scanned, and on a GPU each scan copies its answer to the host
# (``isnan(output)._is_any_true().item()`` in ``torch/csrc/autograd/engine.cpp``), one
# synchronisation per node. The notes' ``x / x`` example shows the check at work:

x = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0], requires_grad=True)
loss = (x / x).sum()
try:
    with torch.autograd.set_detect_anomaly(True):  # cause: backward-only-still-checks
        loss.backward()  # cause: backward-only-still-checks
except RuntimeError as error:
    print(f"RuntimeError: {error}")
assert not torch.is_anomaly_enabled()

# %%
# When you are hunting an in-place error (:doc:`/errors/inplace/inplace-modified`) rather than
# a NaN, ``check_nan=False`` drops the scan; the same backward then runs to the end, NaN and all:

x = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0], requires_grad=True)
loss = (x / x).sum()
with torch.autograd.set_detect_anomaly(True, check_nan=False):  # fix: backward-only-still-checks
    loss.backward()  # fix: backward-only-still-checks
assert torch.isnan(x.grad[0])
torch.testing.assert_close(x.grad[1:], torch.zeros(4))

# %%
# For a check that can stay on in training, test the gradient norm instead (see
# :doc:`/errors/pitfalls/nan-gradient-silent`): one reduction per step, not one scan per
# operation.

step()
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf"))
assert torch.isfinite(total_norm)  # fix: backward-only-still-checks
print("gradient norm:", round(total_norm.item(), 3))

# %%
# .. autograd-entry-footer:: anomaly-cost
