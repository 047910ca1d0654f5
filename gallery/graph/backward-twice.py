"""
backward-twice
==============

.. autograd-entry:: backward-twice

What backward frees
-------------------

A forward pass builds a graph of ``grad_fn`` nodes, and each node keeps the tensors its
derivative needs (``dot`` keeps both inputs). ``backward()`` walks the graph once, and frees
each node's saved tensors right after using them: for a large model, that memory is most of
what training costs. The nodes stay, empty.
"""

import torch

x = torch.randn(2, requires_grad=True)
y = torch.dot(x, x)
print("y.grad_fn:", y.grad_fn)
y.backward()
print("x.grad after one backward:", x.grad)

# %%
# The repro
# ---------
# Calling ``backward()`` a second time on the same result needs the saved tensors again:

x = torch.randn(2, requires_grad=True)
y = torch.dot(x, x)  # broken
y.backward()  # broken
try:
    y.backward()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Zeroing the gradients does not help: the missing piece is the saved tensors, not ``.grad``.
# Only nodes that saved tensors fail: a graph of operations that save nothing (an addition, a
# sum) can be walked twice, without an error, and its gradients silently add up. A toy graph
# that "works" twice proves nothing about a real one:

x = torch.ones(3, requires_grad=True)
y = (x + 1).sum()
y.backward()
y.backward()  # no error: neither + 1 nor sum saved a tensor
print("x.grad after two backward calls:", x.grad)
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))

# %%
# The common causes
# -----------------
# State carried across steps. A recurrent cell whose hidden state is passed from one step to
# the next: the first step's backward works, and the second step's graph reaches back, through
# the carried ``hx``, into the first step's graph, whose saved tensors are already freed.


class Cell(torch.nn.Module):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.W_ih = torch.nn.Parameter(torch.randn(size, size) * 0.1)
        self.W_hh = torch.nn.Parameter(torch.randn(size, size) * 0.1)

    def forward(self, x_t: torch.Tensor, hx: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x_t @ self.W_ih + hx @ self.W_hh)


cell = Cell(4)
hx = torch.zeros(1, 4)
try:
    for step in range(2):  # cause: carried-state
        hx = cell(torch.randn(1, 4), hx)  # cause: carried-state
        hx.sum().backward()  # cause: carried-state
        print(f"step {step}: backward ran")
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same with ``nn.LSTM`` (or ``nn.GRU``) fed chunk after chunk of a long sequence (a
# language model trained with truncated backpropagation): ``state`` is the LSTM's ``(h, c)``
# tuple from the previous chunk.

torch.manual_seed(0)
lstm = torch.nn.LSTM(input_size=3, hidden_size=4, batch_first=True)
chunks = torch.randn(2, 1, 5, 3)  # two chunks of five steps, batch of one
state = None
try:
    for chunk in chunks:  # cause: carried-state
        output, state = lstm(chunk, state)  # cause: carried-state
        output.pow(2).mean().backward()  # cause: carried-state
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Or kept as an attribute of the module, as in the notes this reference grew from:
# ``self.hx = out`` carries each step's graph into the next call.


class StatefulCell(torch.nn.Module):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.W_ih = torch.nn.Parameter(torch.randn(size, size) * 0.1)
        self.W_hh = torch.nn.Parameter(torch.randn(size, size) * 0.1)
        self.hx = torch.zeros(1, size)

    def forward(self, x_t: torch.Tensor) -> torch.Tensor:
        out = torch.tanh(x_t @ self.W_ih + self.hx @ self.W_hh)
        self.hx = out  # cause: carried-state
        return out


stateful = StatefulCell(4)
try:
    for _ in range(2):
        stateful(torch.randn(1, 4)).sum().backward()  # cause: carried-state
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A running average works the same way, whether it lives in a variable or in a module's buffer
# (see :doc:`/errors/modules/buffer-assign`):

layer = torch.nn.Linear(3, 1)
running_mean = torch.zeros(())
try:
    for _ in range(2):  # cause: carried-state
        out = layer(torch.randn(4, 3))  # cause: carried-state
        running_mean = 0.9 * running_mean + 0.1 * out.mean()  # cause: carried-state
        (out.pow(2).mean() + running_mean).backward()  # cause: carried-state
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A GAN whose discriminator step sees the generator's output without ``detach()``: the
# discriminator's backward also runs through the generator, and frees its graph; the generator
# step then needs that graph again.

generator = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh())
discriminator = torch.nn.Linear(3, 1)
real = torch.randn(4, 3)
criterion = torch.nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
try:
    fake = generator(torch.randn(4, 2))
    fake_score = discriminator(fake)  # cause: gan-not-detached
    d_loss = criterion(discriminator(real), ones) + criterion(fake_score, zeros)
    d_loss.backward()
    g_loss = criterion(discriminator(fake), ones)
    g_loss.backward()  # cause: gan-not-detached
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A tensor computed from parameters once, before the loop, and used in every iteration: the
# first iteration's backward frees the graph behind it.

weight = torch.randn(3, 3, requires_grad=True)
try:
    normalized = weight / weight.norm()  # cause: computed-before-loop
    for _ in range(2):  # cause: computed-before-loop
        loss = (torch.randn(5, 3) @ normalized).pow(2).sum()  # cause: computed-before-loop
        loss.backward()  # cause: computed-before-loop
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A running total that keeps every iteration's graph, with a backward on each iteration:

weight = torch.randn(3, requires_grad=True)
total = torch.zeros(())
try:
    for _ in range(2):
        loss = (torch.randn(5, 3) @ weight).pow(2).mean()
        total = total + loss  # cause: accumulated-loss
        total.backward()  # cause: accumulated-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Two losses that share a trunk, each with its own backward:

x = torch.randn(3, requires_grad=True)
shared = torch.sin(x)
loss_a, loss_b = shared.sum(), (shared**2).sum()
try:
    loss_a.backward()  # cause: shared-trunk
    loss_b.backward()  # cause: shared-trunk
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: run the forward pass again
# ---------------------------------
# Each backward needs its own forward pass. Recompute, and ``backward()`` works again; the
# gradient of ``x · x`` is ``2x`` each time (zeroed in between, as gradients accumulate):

x = torch.randn(2, requires_grad=True)
for _ in range(2):  # fixed
    x.grad = None
    y = torch.dot(x, x)  # fixed
    y.backward()  # fixed
    torch.testing.assert_close(x.grad, 2 * x.detach())
print("x.grad =", x.grad)

# %%
# Fix 2: detach what carries over
# -------------------------------
# For the recurrent cell, carry ``hx.detach()``: each step's graph starts at the carried value
# (truncated backpropagation through time, one step long). Check each step's gradient against
# ``torch.autograd.grad`` on a graph built from the same values:

cell = Cell(4)
hx = torch.zeros(1, 4)
for _ in range(3):
    cell.zero_grad()
    x_t = torch.randn(1, 4)
    carried = hx.clone()
    hx = cell(x_t, hx)
    hx.sum().backward()
    hx = hx.detach()  # fix: carried-state
    reference = torch.tanh(x_t @ cell.W_ih + carried @ cell.W_hh).sum()
    expected = torch.autograd.grad(reference, cell.W_hh)[0]
    torch.testing.assert_close(cell.W_hh.grad, expected)
print("three steps, each with its own graph")

# %%
# An LSTM's state is a tuple, ``(h, c)``, and a tuple has no ``detach()``: detach each of its
# tensors. The gradient of each chunk is that of the chunk alone, started from the carried
# values as constants:

assert isinstance(state, tuple)
assert not hasattr(state, "detach")
state = None
for chunk in chunks:
    lstm.zero_grad()
    start = state
    output, state = lstm(chunk, state)
    output.pow(2).mean().backward()
    state = tuple(s.detach() for s in state)  # fix: carried-state
    reference, _ = lstm(chunk, start)
    expected = torch.autograd.grad(reference.pow(2).mean(), lstm.weight_hh_l0)[0]
    torch.testing.assert_close(lstm.weight_hh_l0.grad, expected)
print("two chunks, each with its own graph")

# %%
# Fix 3: one backward for losses that share a trunk
# -------------------------------------------------
# Sum the losses and call ``backward()`` once: a single pass through the shared part, and
# nothing kept in memory. The gradient of ``sum(sin x) + sum(sin² x)`` is
# ``cos x + 2 sin x cos x``:

x = torch.randn(3, requires_grad=True)
shared = torch.sin(x)
loss_a, loss_b = shared.sum(), (shared**2).sum()
(loss_a + loss_b).backward()  # fix: shared-trunk
cos = torch.cos(x.detach())
torch.testing.assert_close(x.grad, cos + 2 * torch.sin(x.detach()) * cos)
print("x.grad =", x.grad)

# %%
# ``retain_graph=True`` on every backward but the last does the same with two passes, at the
# price of keeping the saved tensors in memory; it is needed only when the second loss is
# computed after the first backward (after looking at the first gradient, say). It is not the
# fix for a loop that grows one step at a time.

x.grad = None
shared = torch.sin(x)
loss_a, loss_b = shared.sum(), (shared**2).sum()
loss_a.backward(retain_graph=True)
loss_b.backward()
torch.testing.assert_close(x.grad, cos + 2 * torch.sin(x.detach()) * cos)

# %%
# Fix 4: detach the generator's output for the discriminator
# ----------------------------------------------------------
# The discriminator step then stops at ``fake.detach()``; the generator step goes through the
# generator's graph for the first time. The generator's gradient is checked against the same
# loss built from a fresh forward pass:

noise = torch.randn(4, 2)
fake = generator(noise)
discriminator.zero_grad()
fake_score = discriminator(fake.detach())  # fix: gan-not-detached
d_loss = criterion(discriminator(real), ones) + criterion(fake_score, zeros)
d_loss.backward()
generator.zero_grad()
g_loss = criterion(discriminator(fake), ones)
g_loss.backward()  # fix: gan-not-detached
fresh_loss = criterion(discriminator(generator(noise)), ones)
expected = torch.autograd.grad(fresh_loss, generator[0].weight)[0]
torch.testing.assert_close(generator[0].weight.grad, expected)

# %%
# Fix 5: compute inside the loop, report totals as numbers
# --------------------------------------------------------
# Whatever depends on the parameters is recomputed in each iteration; a total kept for the log
# is a Python number. Here ``loss = mean((x w)²)``, with gradient ``2/N xᵀ(x w)``:

weight = torch.randn(3, 3, requires_grad=True)
for _ in range(2):  # fix: computed-before-loop
    weight.grad = None
    normalized = weight / weight.norm()  # fix: computed-before-loop
    batch = torch.randn(5, 3)
    (batch @ normalized).pow(2).sum().backward()
    reference = weight.detach().clone().requires_grad_()
    (batch @ (reference / reference.norm())).pow(2).sum().backward()
    torch.testing.assert_close(weight.grad, reference.grad)

weight = torch.randn(3, requires_grad=True)
total = 0.0
for _ in range(2):
    weight.grad = None
    batch = torch.randn(5, 3)
    loss = (batch @ weight).pow(2).mean()
    loss.backward()  # fix: accumulated-loss
    total += loss.item()  # fix: accumulated-loss
    torch.testing.assert_close(weight.grad, 2 / 5 * batch.T @ (batch @ weight.detach()))
print("total loss:", total)

# %%
# Pitfall: ``retain_graph=True`` in the recurrent loop silences the error, but every step's
# graph then reaches back to the first step: memory and backward time grow with every step,
# and each step's gradient counts all earlier steps again.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: backward-twice
