"""
vmap-item
=========

.. autograd-entry:: vmap-item

How vmap runs your function
---------------------------

``torch.func.vmap(f)`` does not call ``f`` once per sample. It calls it once, with *batched*
tensors: each stands for the whole batch, but hides the batch dimension, so that ``f`` sees the
shape of one sample. Every operation inside ``f`` then runs on all samples at once, through a
batching rule that knows where the hidden dimension is. The per-sample gradients of
``vmap(grad(f))`` run ``f`` that way too. ``jacrev``, ``jacfwd`` and ``hessian`` use vmap
internally, but over the derivative's vectors, not over the values ``f`` sees: there ``.item()``
raises nothing, and quietly becomes a constant (see the pitfall below).

A Python number has no room for a hidden dimension: ``.item()`` on a batched tensor would have to
return one number per sample at once. vmap refuses rather than pick one.
"""

import torch
from torch.func import functional_call, grad, vmap


def per_sample(t):
    print("inside vmap, t.shape =", tuple(t.shape))
    return t.sum()


print("result:", vmap(per_sample)(torch.ones(4, 3)))

# %%
# The repro
# ---------

batch = torch.randn(2, 3)
try:
    vmap(lambda t: t.sum().item())(batch)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# In practice the ``.item()`` hides in a loss function that works fine on one sample. Per-sample
# gradients, computed with ``vmap(grad(loss))``, run it on batched tensors; here ``label.item()``
# picks the score of the true class:

model = torch.nn.Linear(4, 3)
params = {name: p.detach() for name, p in model.named_parameters()}
inputs = torch.randn(5, 4)
labels = torch.tensor([0, 2, 1, 1, 0])


def loss_with_item(params, x, label):
    log_probs = functional_call(model, params, (x,)).log_softmax(-1)
    return -log_probs[label.item()]  # broken


try:
    vmap(grad(loss_with_item), in_dims=(None, 0, 0))(params, inputs, labels)  # cause: item-in-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Dropping ``.item()`` and indexing with the tensor, ``log_probs[label]``, is not enough here:
# plain ``vmap`` accepts a batched 0-d index since torch 2.13, but under ``grad`` inside ``vmap``
# the index still has to become a Python number, and the same message comes back:


def loss_with_tensor_index(params, x, label):
    log_probs = functional_call(model, params, (x,)).log_softmax(-1)
    return -log_probs[label]  # cause: item-in-loss


per_sample = vmap(grad(loss_with_tensor_index), in_dims=(None, 0, 0))
try:
    per_sample(params, inputs, labels)  # cause: item-in-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``float(t)`` and ``int(t)`` call ``.item()`` too, and so do slice bounds taken from a batched
# tensor (``row[start : start + 2]``), ``range(n.item())`` and ``torch.arange(n)`` with a
# tensor ``n``: a per-sample normalisation by a Python number, a window that starts at a
# per-sample offset, a loop whose length depends on the sample.

try:
    vmap(lambda t: t / float(t.abs().sum()))(batch)  # cause: python-number
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    vmap(lambda t: t * int(t.abs().sum()))(batch)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    vmap(lambda n: sum(range(n.item())) * torch.ones(()))(torch.tensor([2, 3]))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

rows, starts = torch.randn(3, 5), torch.tensor([0, 1, 3])
try:
    vmap(lambda row, start: row[start : start + 2])(rows, starts)  # cause: tensor-slice-bounds
except RuntimeError as error:
    print(f"RuntimeError: {error}")

lengths = torch.tensor([2, 3])
try:
    vmap(lambda n: torch.arange(n).sum())(lengths)  # cause: data-dependent-size
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Not everything that leaves torch goes through ``.item()``. ``t.tolist()`` and a NumPy
# conversion (``t.numpy()``, ``np.asarray(t)``) fail earlier, with another message: a batched
# tensor has no storage of its own to read. A Python ``if`` on a tensor needs a single truth
# value, and fails with a sibling message about data-dependent control flow:


def other_messages():
    for name, function in [
        ("tolist", lambda t: t * t.sum().tolist()),
        ("numpy", lambda t: t * t.sum().numpy()),
        ("if", lambda t: t if t.sum() > 0 else -t),
    ]:
        try:
            vmap(function)(batch)
        except RuntimeError as error:
            print(f"{name}: RuntimeError: {error}")


other_messages()

# %%
# Fix 1: stay with tensors
# ------------------------
# Pick the true class's score with ``gather`` on a tensor index instead of a Python number. The
# check computes each sample's gradient separately, with ``torch.autograd.grad``:


def loss(params, x, label):
    log_probs = functional_call(model, params, (x,)).log_softmax(-1)
    return -log_probs.gather(-1, label.unsqueeze(-1)).squeeze(-1)  # fixed


per_sample_grad = vmap(grad(loss), in_dims=(None, 0, 0))  # fix: item-in-loss
per_sample_grads = per_sample_grad(params, inputs, labels)  # fixed
for i in range(len(inputs)):
    sample_loss = torch.nn.functional.cross_entropy(model(inputs[i : i + 1]), labels[i : i + 1])
    weight_grad, bias_grad = torch.autograd.grad(sample_loss, [model.weight, model.bias])
    torch.testing.assert_close(per_sample_grads["weight"][i], weight_grad)
    torch.testing.assert_close(per_sample_grads["bias"][i], bias_grad)
print("per-sample weight gradients:", tuple(per_sample_grads["weight"].shape))

# %%
# Fix 2: convert after vmap returns
# ---------------------------------
# Numbers for logging or for Python decisions belong outside: return tensors from the vmapped
# function and convert the batched result, which is an ordinary tensor.

per_sample_losses = vmap(loss, in_dims=(None, 0, 0))(params, inputs, labels)
values = per_sample_losses.tolist()  # fixed: outside vmap
expected = torch.nn.functional.cross_entropy(model(inputs), labels, reduction="none")
torch.testing.assert_close(torch.tensor(values), expected.detach())
print("per-sample losses:", [round(v, 4) for v in values])

# %%
# Fix 3: divide by the tensor, gather a window, mask a fixed-size range
# ----------------------------------------------------------------------
# The normalisation needs no Python number: divide by the tensor. A window at a per-sample offset
# is a ``gather`` of ``start + torch.arange(size)``. A length that varies per sample becomes a
# mask over a range of fixed size (the largest length), here to sum ``0 + 1 + ... + (n - 1)`` for
# each ``n``:

normalised = vmap(lambda t: t / t.abs().sum())(batch)  # fix: python-number
torch.testing.assert_close(normalised, batch / batch.abs().sum(1, keepdim=True))


def window(row, start):
    return row.gather(0, start + torch.arange(2))


windows = vmap(window)(rows, starts)  # fix: tensor-slice-bounds
torch.testing.assert_close(windows, torch.stack([rows[0, 0:2], rows[1, 1:3], rows[2, 3:5]]))

steps = torch.arange(int(lengths.max()))
sums = vmap(lambda n: torch.where(steps < n, steps, 0).sum())(lengths)  # fix: data-dependent-size
torch.testing.assert_close(sums, lengths * (lengths - 1) // 2)
print("per-sample sums:", sums.tolist())

# %%
# A value that is the same for every sample is not batched when passed with ``in_dims=None``, and
# ``.item()`` on it is allowed. A temperature, say:

temperature = torch.tensor(2.0)


def tempered_loss(params, x, label, temperature):
    logits = functional_call(model, params, (x,)) / temperature.item()  # fixed: unbatched
    return -logits.log_softmax(-1).gather(-1, label.unsqueeze(-1)).squeeze(-1)


grads = vmap(grad(tempered_loss), in_dims=(None, 0, 0, None))(params, inputs, labels, temperature)
sample_loss = torch.nn.functional.cross_entropy(model(inputs[:1]) / 2.0, labels[:1])
torch.testing.assert_close(grads["bias"][0], torch.autograd.grad(sample_loss, model.bias)[0])

# %%
# The pitfall: ``.item()`` under ``grad`` or ``jacrev`` alone is silent
# -----------------------------------------------------------------------
# Without a ``vmap`` around them, ``grad``, ``jacrev``, ``jacfwd`` and ``hessian`` accept
# ``.item()``: the Python number it returns is a constant to them, so its part of the derivative
# is silently dropped. For :math:`f(x) = \|x\|^2 \cdot \|x\|^2`, the gradient is
# :math:`4 \|x\|^2 x`; with one factor taken through ``.item()``, half of it:

point = torch.tensor([1.0, 2.0, 3.0])
silent = grad(lambda t: (t**2).sum() * (t**2).sum().item())(point)
true_gradient = 4 * (point**2).sum() * point
print("with .item():", silent, " true gradient:", true_gradient)
torch.testing.assert_close(silent, true_gradient / 2)
silent_jacobian = torch.func.jacrev(lambda t: t * (t**2).sum().item())(point)
torch.testing.assert_close(silent_jacobian, (point**2).sum() * torch.eye(3))

# %%
# The pitfall of ``torch.where``
# ------------------------------
# A Python ``if`` must become ``torch.where`` under vmap, and ``torch.where`` computes both
# branches for every sample. The gradient of the branch not taken is multiplied by zero, and zero
# times an infinite or NaN gradient is NaN: ``sqrt`` of a negative number poisons the gradient
# even where the other branch was chosen (more in :doc:`/errors/pitfalls/nan-gradient-silent`).


def safe_sqrt_naive(t):
    return torch.where(t > 0, t.sqrt(), torch.zeros_like(t))


points = torch.tensor([[4.0], [-1.0]])
naive = vmap(grad(lambda t: safe_sqrt_naive(t).sum()))(points)
print("gradient with both branches computed:", naive.squeeze(1))
assert torch.isnan(naive[1]).all()

# %%
# Make the unused branch harmless: feed it a value where it is finite. The gradient of
# :math:`\sqrt{t}` is :math:`1 / (2\sqrt{t})` where :math:`t > 0`, and 0 elsewhere:


def safe_sqrt(t):
    positive = t > 0
    return torch.where(positive, torch.where(positive, t, 1.0).sqrt(), 0.0)


fixed = vmap(grad(lambda t: safe_sqrt(t).sum()))(points)
torch.testing.assert_close(fixed, torch.tensor([[0.25], [0.0]]))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: vmap-item
