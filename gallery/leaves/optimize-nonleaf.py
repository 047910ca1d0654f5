"""
optimize-nonleaf
================

.. autograd-entry:: optimize-nonleaf

What an optimizer needs
-----------------------

``optimizer.step()`` changes its tensors in place, by their ``.grad``. ``backward()`` fills
``.grad`` only for leaves: tensors you created, such as ``nn.Parameter`` s. A tensor computed
from a leaf (scaled, moved to another device or dtype, sliced) is an interior node of the graph:
``backward()`` passes through it without storing its gradient, so the optimizer would never
move it; writing into a copy would not change the leaf it came from either (a slice is a view,
whose updates do land in the leaf). The optimizer checks ``is_leaf`` when it is built, and
refuses.
"""

import torch
import torch.nn.functional as F
from torch import nn

w = torch.randn(3, requires_grad=True) * 0.01
print(f"is_leaf={w.is_leaf}, grad_fn={w.grad_fn}")

# %%
# The repro
# ---------
# The most reported form: ``requires_grad=True`` at creation, then a scaling.

w = torch.randn(3, requires_grad=True) * 0.01  # broken
try:
    torch.optim.SGD([w], lr=0.1)  # broken
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# The same with a device or dtype move: ``.cuda()`` and ``.to(device)`` on a tensor that
# requires grad record a copy in the graph, exactly as ``.double()`` does here.

try:
    scale = torch.ones(2, requires_grad=True).to(torch.float64)  # cause: op-after-requires-grad
    torch.optim.Adam([scale], lr=0.1)  # cause: op-after-requires-grad
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 1: switch gradients on last
# -------------------------------
# Build the tensor in its final form, then make it require grad: it is a leaf, and the
# optimizer's step is ``w - lr * grad``. For ``loss = sum(w**2)`` the gradient is ``2w``.

w = (torch.randn(3) * 0.01).requires_grad_()  # fixed
scale = torch.ones(2, dtype=torch.float64, requires_grad=True)  # fix: op-after-requires-grad
optimizer = torch.optim.SGD([w, scale], lr=0.1)  # fixed
before = w.detach().clone()
(w**2).sum().backward()
(scale**2).sum().backward()
torch.testing.assert_close(w.grad, 2 * before)
optimizer.step()
torch.testing.assert_close(w.detach(), before - 0.1 * 2 * before)
torch.testing.assert_close(scale.detach(), torch.full((2,), 0.8, dtype=torch.float64))
print("w after one step:", w)

# %%
# A slice of a parameter
# ----------------------
# Fine-tuning only a few rows of an embedding table by handing the optimizer ``table[:2]``:
# the slice is a view, computed from the table, not a leaf.

table = nn.Parameter(torch.randn(5, 3))
try:
    torch.optim.SGD([table[:2]], lr=0.1)  # cause: slice-of-parameter
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Unlike a copy, the slice shares the table's storage: an update written into it lands in the
# table. What it lacks is a gradient: it is not a leaf, and backward fills ``table.grad`` only.

before = table.detach().clone()
rows = table[:2]
with torch.no_grad():
    rows.sub_(1.0)
torch.testing.assert_close(table.detach()[:2], before[:2] - 1.0)
table.sum().backward()
print("rows.is_leaf:", rows.is_leaf, " table.grad[0]:", table.grad[0])
assert not rows.is_leaf
torch.testing.assert_close(table.grad, torch.ones(5, 3))
table.grad = None

# %%
# Fix 2: make the trained part a leaf of its own
# ----------------------------------------------
# Keep the frozen rows as a constant, train a leaf holding the two rows, and assemble the table
# in the forward pass. Only the trained rows get a gradient; here the gradient of
# ``sum(full * c)`` with respect to them is ``c`` restricted to those rows.

frozen = table.detach()[2:]
trained = table.detach()[:2].clone().requires_grad_()  # fix: slice-of-parameter
optimizer = torch.optim.SGD([trained], lr=0.1)  # fix: slice-of-parameter
c = torch.arange(15.0).view(5, 3)
full = torch.cat([trained, frozen])
(full * c).sum().backward()
torch.testing.assert_close(trained.grad, c[:2])
optimizer.step()
print("trained rows:", trained)

# %%
# A computed weight where a module keeps its parameters
# -----------------------------------------------------
# Weight-dropout implementations once wrote ``F.dropout(raw)`` into ``module._parameters``. The
# stored tensor has a ``grad_fn``, and ``module.parameters()`` hands it to the optimizer:

layer = nn.Linear(3, 2)
raw = nn.Parameter(layer.weight.detach().clone())
try:
    dropped = nn.functional.dropout(raw, p=0.5, training=False) * 1.0
    layer._parameters["weight"] = dropped  # cause: computed-weight-in-parameters
    torch.optim.SGD(layer.parameters(), lr=0.1)  # cause: computed-weight-in-parameters
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 3: register the raw weight, compute the derived one in ``forward``
# ----------------------------------------------------------------------
# The parameter is the raw weight; the dropped-out weight is computed at each call, so it is
# part of each step's graph and the gradient reaches the raw weight.


class WeightDropLinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, p: float) -> None:
        super().__init__()
        self.raw_weight = nn.Parameter(torch.randn(out_features, in_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = F.dropout(
            self.raw_weight, self.p, self.training
        )  # fix: computed-weight-in-parameters
        return nn.functional.linear(x, weight, self.bias)


model = WeightDropLinear(3, 2, p=0.5).eval()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # fix: computed-weight-in-parameters
x = torch.randn(4, 3)
model(x).sum().backward()
torch.testing.assert_close(model.raw_weight.grad, x.sum(0).expand(2, 3))
optimizer.step()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: optimize-nonleaf
