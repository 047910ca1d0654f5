"""
detach-shares-storage
=====================

.. autograd-entry:: detach-shares-storage

A new tensor object, the same memory
------------------------------------

A tensor is a view of a *storage* (the memory holding the numbers) plus autograd metadata:
``requires_grad``, ``grad_fn``, and a version counter. ``x.detach()`` makes a new tensor object
that views the same storage with no autograd history (``requires_grad=False``, ``grad_fn=None``),
and shares ``x``'s version counter. ``x.data`` does the same, except that it gets a version
counter of its own. Neither copies a single number: that is why they cost nothing, and why
writing through them writes into ``x``.

The notes this page grew from observed that ``id(x.detach())`` differs from ``id(x)`` and
concluded "same values, different memory". ``id()`` names the Python object, not the memory;
``data_ptr()`` tells where the numbers live:
"""

import torch

x = torch.tensor([3.0, 4.0], requires_grad=True)
z = x.detach()
print("id differs:      ", id(z) != id(x))
print("same memory:     ", z.data_ptr() == x.data_ptr())
print("z.requires_grad: ", z.requires_grad, " z.grad_fn:", z.grad_fn)
assert id(z) != id(x)
assert z.data_ptr() == x.data_ptr()
assert x.data.data_ptr() == x.data_ptr()

# %%
# The pitfall
# -----------
# The notes' example: an in-place change to the detached tensor changes the original. ``x`` is a
# leaf that requires grad, so ``x -= 1`` would raise :doc:`/errors/inplace/leaf-inplace`; through
# ``detach()`` (or ``.data``) it goes through without a word:

x = torch.tensor(3.0, requires_grad=True)
z = x.detach()
z -= 1
print("z =", z, " x =", x)
assert x.item() == 2.0

d = x.data
d -= 1
print("d =", d, " x =", x)
assert x.item() == 1.0

# %%
# ``clone()`` copies, so changing the clone leaves ``x`` alone (the clone is part of the graph,
# through ``CloneBackward0``):

x = torch.tensor(3.0, requires_grad=True)
copy = x.clone()
copy -= 1
print("copy =", copy, " x =", x)
assert x.item() == 3.0
assert copy.data_ptr() != x.data_ptr()

# %%
# The same in a training loop
# ---------------------------
# The usual way to be bitten is the other direction: ``x`` changes, and a "snapshot" taken with
# ``detach()`` changes with it. An optimizer updates parameters in place, so a history of
# weights recorded with ``detach()`` holds the same memory several times, all showing the final
# weights:

w = torch.nn.Parameter(torch.tensor([1.0, 1.0]))
optimizer = torch.optim.SGD([w], lr=0.25)
history = []
for _ in range(3):
    snapshot = w.detach()  # broken  # cause: detach-snapshot
    history.append(snapshot)  # cause: detach-snapshot
    optimizer.zero_grad()
    (w * w).sum().backward()
    optimizer.step()
print("recorded weights:", [h.tolist() for h in history])
assert all(torch.equal(h, w.detach()) for h in history)

# %%
# The gradient of ``sum(w * w)`` is ``2 * w``, so each step multiplies ``w`` by
# ``1 - 2 * lr = 0.5``: the weights really went ``[1, 1]``, ``[0.5, 0.5]``, ``[0.25, 0.25]``,
# then ``[0.125, 0.125]``, but the history only ever shows the current memory.
#
# Fix: ``detach().clone()``
# -------------------------
# ``clone()`` makes the snapshot its own memory. Detach first, so that the copy is not recorded
# in the graph:

w = torch.nn.Parameter(torch.tensor([1.0, 1.0]))
optimizer = torch.optim.SGD([w], lr=0.25)
history = []
for _ in range(3):
    snapshot = w.detach().clone()  # fixed  # fix: detach-snapshot
    history.append(snapshot)  # fix: detach-snapshot
    optimizer.zero_grad()
    (w * w).sum().backward()
    optimizer.step()
print("recorded weights:", [h.tolist() for h in history])
torch.testing.assert_close(
    torch.stack(history), torch.tensor([[1.0, 1.0], [0.5, 0.5], [0.25, 0.25]])
)
torch.testing.assert_close(w.detach(), torch.tensor([0.125, 0.125]))
assert not history[0].requires_grad
assert history[0].grad_fn is None

# %%
# ``state_dict()`` is made of the same kind of aliases
# ----------------------------------------------------
# ``model.state_dict()`` returns the parameters detached, not copied. Keeping it as "the best
# model so far" keeps references to the live weights: the optimizer steps that follow change
# it, and the checkpoint written at the end holds the last weights, not the best:

model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.ones(4, 2)
best_loss, best_state = float("inf"), {}
for _ in range(3):
    optimizer.zero_grad()
    loss = model(inputs).pow(2).mean()
    if loss.item() < best_loss:
        best_loss = loss.item()
        best_state = model.state_dict()  # cause: state-dict-snapshot
    loss.backward()
    optimizer.step()
assert torch.equal(best_state["weight"], model.weight.detach())  # the last weights
assert best_state["weight"].data_ptr() == model.weight.data_ptr()
print("best_state follows the model:", best_state["weight"].tolist(), model.weight.tolist())

# %%
# ``copy.deepcopy`` copies every tensor. The saved state is then the weights at the step with the
# lowest loss, which is the first one here, before any update:

import copy

model = torch.nn.Linear(2, 1)
initial = copy.deepcopy(model.state_dict())
optimizer = torch.optim.SGD(model.parameters(), lr=2.0)  # diverges: the first loss is the best
best_loss, best_state = float("inf"), {}
for _ in range(3):
    optimizer.zero_grad()
    loss = model(inputs).pow(2).mean()
    if loss.item() < best_loss:
        best_loss = loss.item()
        best_state = copy.deepcopy(model.state_dict())  # fix: state-dict-snapshot
    loss.backward()
    optimizer.step()
torch.testing.assert_close(best_state["weight"], initial["weight"])
torch.testing.assert_close(best_state["bias"], initial["bias"])

# %%
# Converting does not always copy either: ``.cpu()`` on a tensor already on the CPU returns the
# tensor itself, and ``.numpy()`` wraps the same memory. So ``w.detach().cpu().numpy()`` shares
# ``w``'s memory when ``w`` is on the CPU, and is a copy when it is on a GPU. An optimizer step
# then changes the "copy":

w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
optimizer = torch.optim.SGD([w], lr=0.5)
saved = w.detach().cpu().numpy()  # cause: numpy-view
kept = w.detach().cpu().numpy().copy()  # fix: numpy-view
(w * w).sum().backward()
optimizer.step()
print("saved:", saved, " kept:", kept, " w:", w.detach().numpy())
assert saved.tolist() == [0.0, 0.0]  # w = w - 0.5 * 2w: the step zeroed it, and the "copy" too
assert kept.tolist() == [1.0, 2.0]

# %%
# The version counter: ``detach()`` tells autograd, ``.data`` does not
# --------------------------------------------------------------------
# ``detach()`` shares the version counter, so an in-place change through it counts as a change
# of ``x``: if ``x`` was saved for backward, backward refuses it
# (:doc:`/errors/inplace/inplace-modified`). ``.data`` has its own counter, and the change goes
# unseen, with wrong gradients as the result: see :doc:`/errors/pitfalls/data-hides-inplace`.

x = torch.tensor([1.0, 2.0], requires_grad=True)
x.detach().add_(1)
print("version after detach().add_(1):", x._version)
x.data.add_(1)
print("version after data.add_(1):    ", x._version)
assert x._version == 1
torch.testing.assert_close(x.detach(), torch.tensor([3.0, 4.0]))

# %%
# When sharing is what you want
# -----------------------------
# Most uses of ``detach()`` only *read* the result, and then sharing is free and harmless:
# logging ``loss.detach()``, or cutting an RNN's hidden state off the previous step's graph (the
# notes' ``self.hx = out.detach()``, which stops backward from reaching into a graph that was
# already freed, :doc:`/errors/graph/backward-twice`). Nothing writes into those tensors, so
# nobody can tell that no copy was made.
#
# To change a parameter on purpose, say so with ``torch.no_grad()``, which also bumps the
# version counter:

w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
with torch.no_grad():
    w.mul_(0.5)
torch.testing.assert_close(w.detach(), torch.tensor([0.5, 1.0]))

# %%
# .. autograd-entry-footer:: detach-shares-storage
