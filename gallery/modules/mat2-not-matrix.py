"""
mat2-not-matrix
===============

.. autograd-entry:: mat2-not-matrix

Where the second matrix comes from
----------------------------------

``nn.Linear`` computes ``input @ weight.T + bias`` with ``torch.addmm``. Its weight has shape
``[out_features, in_features]``; ``weight.T`` is the second operand, ``mat2``, and must be a
matrix.
"""

import torch
from torch import nn

layer = nn.Linear(in_features=4, out_features=1, bias=True)
print("weight shape:", tuple(layer.weight.shape))

# %%
# The repro
# ---------
# Replacing the weight's values through ``.data`` with a vector, as in the notes, is accepted
# without a word; the next forward pass fails:

net = nn.Sequential(nn.Linear(in_features=4, out_features=1, bias=True))
net[0].weight.data = torch.randn(4)  # broken
x = torch.randn(10, 4)
try:
    net(x)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same message comes from ``torch.mm`` given a vector:

try:
    torch.mm(torch.randn(10, 4), torch.randn(4))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: give the weight its shape
# --------------------------------
# ``[out_features, in_features]`` is ``[1, 4]`` here, not ``[4]`` and not ``[4, 1]``. The
# gradient of ``sum(x @ W.T + b)`` with respect to ``W`` is the column sums of ``x``:

net = nn.Sequential(nn.Linear(in_features=4, out_features=1, bias=True))
net[0].weight.data = torch.randn(1, 4)  # fixed
x = torch.randn(10, 4)
net(x).sum().backward()  # fixed
torch.testing.assert_close(net[0].weight.grad, x.sum(0, keepdim=True))
print("output shape:", tuple(net(x).shape))

# %%
# Fix 2: let torch check the shape
# --------------------------------
# ``copy_`` under ``torch.no_grad()`` keeps the parameter's shape: it refuses values that cannot
# fit, at the line that is wrong rather than at the next forward pass, and broadcasts those that
# can (a ``[4]`` vector fills the ``[1, 4]`` weight correctly).


def copy_into(parameter: torch.Tensor, values: torch.Tensor) -> str:
    try:
        with torch.no_grad():
            parameter.copy_(values)
    except RuntimeError as error:
        return f"refused: {error}"
    return f"accepted, weight shape {tuple(parameter.shape)}"


net = nn.Sequential(nn.Linear(in_features=4, out_features=1, bias=True))
print("copy_ of a [4, 1] tensor:", copy_into(net[0].weight, torch.randn(4, 1)))
values = torch.randn(4)
print("copy_ of a [4] tensor:   ", copy_into(net[0].weight, values))
torch.testing.assert_close(net[0].weight.detach(), values.unsqueeze(0))

# %%
# For a matrix-vector product, ``torch.mv`` or ``@`` take the vector as it is:

product = torch.randn(10, 4) @ torch.randn(4)
print("matrix @ vector:", tuple(product.shape))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: mat2-not-matrix
