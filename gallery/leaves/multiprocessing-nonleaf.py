"""
multiprocessing-nonleaf
=======================

.. autograd-entry:: multiprocessing-nonleaf

What crosses a process boundary
-------------------------------

``torch.multiprocessing`` registers its own pickling of tensors: a tensor sent to another
process (put on a ``multiprocessing.Queue``, returned by a pool worker, or given as an argument
to a process started with the ``spawn`` method, as ``torch.multiprocessing.spawn`` and Windows
and macOS always do) travels as a handle to shared memory, plus its ``requires_grad``. A leaf
can be rebuilt that way on the other side. A tensor computed from others that require grad
cannot: its graph, which links it to the tensors it came from, lives in this process, and
autograd has no way to follow it into another. So the pickler refuses, whatever the tensor is
part of: a model output, or a module attribute such as the ``weight`` that the hook-based
``torch.nn.utils.weight_norm`` computes.
"""

import io
import pickle
from multiprocessing import reduction
from multiprocessing.reduction import ForkingPickler

import torch
from torch import nn


def make_model() -> nn.Module:
    return nn.Sequential(nn.utils.weight_norm(nn.Linear(4, 8)), nn.Tanh(), nn.Linear(8, 1))


# %%
# The repro
# ---------
# A model with weight normalisation (vocoders and text-to-speech models use it), handed to a
# process started with ``spawn``. ``Process.start()`` then pickles the process object, its
# arguments included, before it launches the child: ``multiprocessing.reduction.dump(process,
# file)``, the call below, with the model as the argument. (``mp.spawn(train, args=(model,))``
# and PyTorch Lightning's ``ddp_spawn`` do it for every rank; the traceback then runs through
# ``popen_spawn_posix.py``, or ``popen_spawn_win32.py`` on Windows.)

model = make_model()
arguments = (model,)
try:
    reduction.dump(arguments, io.BytesIO())  # broken  # cause: module-sent-to-process
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: send the state dict, build the model in the worker
# ---------------------------------------------------------
# The state dict holds leaves only (``weight_g`` and ``weight_v``, not the computed ``weight``).
# Pickle it as a process would, and rebuild the model from it on the other side: the rebuilt
# model computes the same outputs, and its own parameters receive its gradients.


def send(obj: object) -> object:
    """Pickle ``obj`` as torch.multiprocessing does for a queue or a spawned process; load it."""
    return pickle.loads(ForkingPickler.dumps(obj))


state = send(model.state_dict())  # fixed  # fix: module-sent-to-process
rebuilt = make_model()
rebuilt.load_state_dict(state)
x = torch.randn(2, 4)
torch.testing.assert_close(rebuilt(x), model(x))
rebuilt(x).sum().backward()
expected = torch.autograd.grad(model(x).sum(), model[0].weight_v)[0]
torch.testing.assert_close(rebuilt[0].weight_v.grad, expected)

# %%
# Results put on a queue
# ----------------------
# A worker process (a rollout actor in reinforcement learning, a feature extractor) puts the
# outputs of a model on a queue. ``Queue.put`` hands each item to a feeder thread, which pickles
# it with the same pickler; its traceback goes to the worker's stderr. Here the pickling is
# done directly, as the feeder thread does it:

policy = nn.Linear(4, 2)
observation = torch.randn(3, 4)
logits = policy(observation)
try:
    ForkingPickler.dumps(logits)  # cause: output-on-queue
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: send values, not the graph
# ---------------------------------
# The other process cannot backpropagate into this one anyway. Send ``detach()``-ed values, or
# compute them under ``torch.no_grad()`` when no gradient is needed at all (acting, evaluating).
# What arrives is the same numbers, a leaf that does not require grad:

received = send(logits.detach())  # fixed  # fix: output-on-queue
torch.testing.assert_close(received, logits.detach())
with torch.no_grad():
    actions = policy(observation)  # fix: output-on-queue
received = send(actions)
assert not received.requires_grad
assert received.grad_fn is None
torch.testing.assert_close(received, logits.detach())

# %%
# Leaves cross: parameters arrive as parameters, still requiring grad (each process then has
# its own graph and its own gradients).

weight = send(policy.weight)
assert isinstance(weight, nn.Parameter)
assert weight.requires_grad
assert weight.is_leaf

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: multiprocessing-nonleaf
