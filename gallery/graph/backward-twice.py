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
#
# The hidden version: state carried across steps
# ----------------------------------------------
# The notes met this error in a recurrent cell that kept its hidden state between steps as
# ``self.hx = out``. The first step's backward works. The second step's graph reaches back,
# through ``self.hx``, into the first step's graph, whose saved tensors are already freed.


class Cell(torch.nn.Module):
    def __init__(self, size: int, carry_graph: bool) -> None:
        super().__init__()
        self.W_ih = torch.nn.Parameter(torch.randn(size, size) * 0.1)
        self.W_hh = torch.nn.Parameter(torch.randn(size, size) * 0.1)
        self.hx = torch.zeros(1, size)
        self.carry_graph = carry_graph

    def forward(self, x_t: torch.Tensor) -> torch.Tensor:
        out = torch.tanh(x_t @ self.W_ih + self.hx @ self.W_hh)
        self.hx = out if self.carry_graph else out.detach()
        return out


cell = Cell(4, carry_graph=True)
try:
    for step in range(2):
        loss = cell(torch.randn(1, 4)).sum()
        loss.backward()
        print(f"step {step}: backward ran")
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
# For the recurrent cell, carry ``out.detach()``: each step's graph starts at the carried value
# (truncated backpropagation through time, one step long). Check one step's gradient against
# ``torch.autograd.grad`` on a graph built from the same values:

cell = Cell(4, carry_graph=False)
for _ in range(3):
    cell.zero_grad()
    x_t = torch.randn(1, 4)
    hx = cell.hx.clone()
    loss = cell(x_t).sum()
    loss.backward()
    reference = torch.tanh(x_t @ cell.W_ih + hx @ cell.W_hh).sum()
    expected = torch.autograd.grad(reference, cell.W_hh)[0]
    torch.testing.assert_close(cell.W_hh.grad, expected)
print("three steps, each with its own graph")

# %%
# Fix 3: ``retain_graph=True``, when you do need two passes
# ---------------------------------------------------------
# Two losses that share part of a graph can keep it alive for the second backward. Pass
# ``retain_graph=True`` to every backward but the last: it keeps the saved tensors in memory,
# so it is not the fix for a loop that grows one step at a time.

x = torch.randn(3, requires_grad=True)
shared = torch.sin(x)
loss_a, loss_b = shared.sum(), (shared**2).sum()
loss_a.backward(retain_graph=True)
loss_b.backward()
cos = torch.cos(x.detach())
torch.testing.assert_close(x.grad, cos + 2 * torch.sin(x.detach()) * cos)
print("x.grad =", x.grad)

# %%
# Pitfall: ``retain_graph=True`` in the recurrent loop silences the error, but every step's
# graph then reaches back to the first step: memory and backward time grow with every step,
# and each step's gradient counts all earlier steps again.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: backward-twice
