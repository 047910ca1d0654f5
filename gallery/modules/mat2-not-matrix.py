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

layer = nn.Linear(in_features=4, out_features=2, bias=True)
print("weight shape:", tuple(layer.weight.shape))

# %%
# The repro
# ---------
# Replacing the weight's values through ``.data`` with a vector is accepted without a word; the
# next forward pass fails:

net = nn.Sequential(nn.Linear(in_features=4, out_features=2, bias=True))
net[0].weight.data = torch.randn(4)  # broken
x = torch.randn(10, 4)
try:
    net(x)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same happens to weights loaded by hand from a flat array, whatever the layer's size:

layer = nn.Linear(in_features=3, out_features=5, bias=True)
try:
    layer.weight.data = torch.randn(15)  # cause: weight-data-vector
    layer(torch.randn(2, 3))  # cause: weight-data-vector
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Sharded weights, called outside their wrapper
# ---------------------------------------------
# FSDP and DeepSpeed ZeRO-3 store each weight as a flat 1-D shard, often an empty one on a given
# rank, and give it back its shape only while the wrapped model runs. A layer taken out of the
# wrapper (a validation pipeline built from the inner model, say) meets the flat tensor. The
# shard is imitated here with an empty 1-D tensor, which is what such a layer holds between
# forward passes:

sharded = nn.Linear(in_features=4, out_features=2, bias=True)
full_weight = sharded.weight.detach().clone()
sharded.weight.data = torch.empty(0)  # the sharded placeholder
try:
    sharded(x)  # cause: sharded-parameter
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``torch.mm`` and ``torch.addmm`` given a vector raise it too (``mm`` in a shorter wording):

try:
    torch.mm(torch.randn(10, 4), torch.randn(4))  # cause: mm-vector
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    torch.addmm(torch.zeros(10), torch.randn(10, 4), torch.randn(4))  # cause: mm-vector
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: give the weight its shape
# --------------------------------
# ``[out_features, in_features]`` is ``[2, 4]`` here, not ``[4]`` and not ``[4, 2]``. The
# gradient of ``sum(x @ W.T + b)`` with respect to ``W`` is the column sums of ``x`` in every
# row:

net = nn.Sequential(nn.Linear(in_features=4, out_features=2, bias=True))
net[0].weight.data = torch.randn(2, 4)  # fixed
net(x).sum().backward()  # fixed
torch.testing.assert_close(net[0].weight.grad, x.sum(0).expand(2, 4))
print("output shape:", tuple(net(x).shape))

# %%
# Flat values take that shape with ``view``:

layer = nn.Linear(in_features=3, out_features=5, bias=True)
layer.weight.data = torch.randn(15).view(5, 3)  # fix: weight-data-vector
inputs = torch.randn(2, 3)
layer(inputs).sum().backward()  # fix: weight-data-vector
torch.testing.assert_close(layer.weight.grad, inputs.sum(0).expand(5, 3))

# %%
# For sharded training the shape comes back when the wrapper gathers the weight: call the
# wrapped model, or gather explicitly (FSDP: ``with FSDP.summon_full_params(model):``). Here
# the gathered weight is put back by hand, which is what the gather does:

sharded.weight.data = full_weight  # fix: sharded-parameter
inputs = torch.randn(10, 4, requires_grad=True)
sharded(inputs).sum().backward()  # fix: sharded-parameter
torch.testing.assert_close(inputs.grad, full_weight.sum(0).expand(10, 4))

# %%
# For a matrix-vector product, ``torch.mv`` or ``@`` take the vector as it is. The gradient of
# ``sum(A v)`` with respect to ``v`` is the column sums of ``A``:

matrix = torch.randn(10, 4)
vector = torch.randn(4, requires_grad=True)
torch.mv(matrix, vector).sum().backward()  # fix: mm-vector
torch.testing.assert_close(vector.grad, matrix.sum(0))
print("matrix @ vector:", tuple((matrix @ vector).shape))

# %%
# Pitfall: without a bias, no error at all
# ----------------------------------------
# ``F.linear`` without a bias accepts a 1-D weight and computes a vector product, ``x @ w``: an
# ``nn.Linear(4, 2, bias=False)`` whose weight became a vector returns one number per sample
# instead of two, and the error, if any, comes much later:

layer = nn.Linear(in_features=4, out_features=2, bias=False)
layer.weight.data = torch.randn(4)
output = layer(x)
print("output shape with a 1-D weight and no bias:", tuple(output.shape))
assert output.shape == (10,)

# %%
# Pitfall: ``copy_`` only checks broadcasting
# -------------------------------------------
# ``copy_`` under ``torch.no_grad()`` keeps the parameter's shape, and refuses values that do
# not broadcast to it, at the line that is wrong. But a ``[4]`` vector *does* broadcast to a
# ``[2, 4]`` weight: it is accepted, and every row gets the same values.


def copy_into(parameter: torch.Tensor, values: torch.Tensor) -> str:
    try:
        with torch.no_grad():
            parameter.copy_(values)
    except RuntimeError as error:
        return f"refused: {error}"
    return f"accepted, weight shape {tuple(parameter.shape)}"


layer = nn.Linear(in_features=4, out_features=2, bias=True)
print("copy_ of a [4, 2] tensor:", copy_into(layer.weight, torch.randn(4, 2)))
print("copy_ of a [4] tensor:   ", copy_into(layer.weight, torch.arange(4.0)))
torch.testing.assert_close(layer.weight.detach(), torch.arange(4.0).expand(2, 4))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: mat2-not-matrix
