"""
requires-grad-dtype
===================

.. autograd-entry:: requires-grad-dtype

Gradients need values that can move a little
--------------------------------------------

A gradient says how much a result changes when an input changes by a tiny amount. A float can
move by a tiny amount; an integer or a boolean cannot: between 2 and 3 there is nothing. So
autograd has no gradient to give an integer tensor, and refuses to mark one as requiring grad,
however it is asked. The check sits in three places, worded three ways:

- creating the tensor with ``requires_grad=True``, or wrapping it in ``nn.Parameter``:
  "Only Tensors of floating point and complex dtype...";
- the attribute, ``t.requires_grad = True``: the same text in lower case;
- the method, ``t.requires_grad_()``: "only Tensors of floating point dtype...", a text that
  was not updated when complex tensors became differentiable.
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# Python ints make an int64 tensor, so this innocent line fails:

try:
    x = torch.tensor([1, 2, 3], requires_grad=True)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The common causes
# -----------------
# Quantized checkpoints: ``nn.Parameter`` requires grad by default, so wrapping int8 weights
# (or int32 words packing int4 values) fails:

quantized = torch.randint(-128, 127, (2, 3), dtype=torch.int8)
try:
    weight = nn.Parameter(quantized)  # cause: quantized-weights
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Python ints make int64 tensors, in ``torch.tensor`` as in ``torch.arange``:

try:
    steps = torch.arange(5, requires_grad=True)  # cause: int-literal
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Indices and labels are integers, masks are booleans; the attribute and the method word the
# refusal in their own ways. ``torch.max`` returns the indices alongside the values:

scores = torch.randn(4, 3)
try:
    indices = scores.max(dim=1).indices  # cause: indices-or-masks
    print("indices:", indices, indices.dtype)
    indices.requires_grad = True  # cause: indices-or-masks
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    scores.argmax(dim=1).requires_grad_()  # cause: indices-or-masks
except RuntimeError as error:
    print(f"RuntimeError: {error}")

labels = torch.tensor([0, 2, 1, 1])
try:
    labels.requires_grad_()  # cause: indices-or-masks
except RuntimeError as error:
    print(f"RuntimeError: {error}")

mask = scores > 0
try:
    mask.requires_grad_()  # cause: indices-or-masks
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``nn.Parameter(t, requires_grad=False)`` accepts an integer tensor, but the parameter stays in
# ``parameters()``, and the first loop that unfreezes the model (fine-tuning scripts do, after
# a warm-up with frozen layers) meets it:


class PackedLinear(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qweight = nn.Parameter(
            torch.randint(-128, 127, (2, 3), dtype=torch.int8), requires_grad=False
        )
        self.scale = nn.Parameter(torch.tensor(0.05))


model = PackedLinear()
try:
    for parameter in model.parameters():
        parameter.requires_grad = True  # cause: unfreeze-loop
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    model.requires_grad_(True)  # cause: unfreeze-loop
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: use a floating-point tensor
# ----------------------------------
# When the numbers are real quantities that happen to be written as integers, make them floats:
# a ``.`` in the literal, ``dtype=torch.float32``, or ``.float()`` on an existing tensor. The
# gradient of ``sum(x ** 2)`` is ``2 x``:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # fixed
(x**2).sum().backward()
torch.testing.assert_close(x.grad, 2 * x.detach())
print("x.grad =", x.grad)

steps = torch.arange(5, dtype=torch.float32, requires_grad=True)  # fix: int-literal
(steps**2).sum().backward()
torch.testing.assert_close(steps.grad, 2 * torch.arange(5.0))

counts = torch.tensor([1, 2, 3])
y = counts.float().requires_grad_()  # a new float tensor, and a leaf
(y**2).sum().backward()
torch.testing.assert_close(y.grad, torch.tensor([2.0, 4.0, 6.0]))
print("y.grad =", y.grad)

# %%
# Fix 2: differentiate the values, not the indices
# ------------------------------------------------
# An index only says *where*; the gradient lives in *what* was picked. ``max`` returns both,
# and the values carry the graph: their gradient lands on the chosen entries, a one-hot
# pattern:

scores = torch.randn(4, 3, requires_grad=True)  # fix: indices-or-masks
values, indices = scores.max(dim=1)  # fix: indices-or-masks
values.sum().backward()  # fix: indices-or-masks
expected = torch.nn.functional.one_hot(indices, num_classes=3).to(scores.dtype)
torch.testing.assert_close(scores.grad, expected)
print("scores.grad =\n", scores.grad)

# %%
# If the choice itself should be learned, replace the hard index with something smooth, such as
# softmax weights over the candidates.
#
# Fix 3: keep integer state out of autograd
# -----------------------------------------
# Integer tensors a model needs (quantized weights, token ids, counters) are state, not things
# to train. Register them as buffers: they follow ``.to(device)`` and ``state_dict()`` but are
# never asked for a gradient, and stay out of ``parameters()``, so no unfreeze loop reaches
# them. The float parts around them can still be trained. Here the gradient of
# ``sum(x @ (s q)^T)`` with respect to the scale ``s`` is ``sum(x @ q^T)``:


class QuantizedLinear(nn.Module):
    def __init__(self, qweight: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("qweight", qweight)  # int8: state, no gradient
        self.scale = nn.Parameter(torch.tensor(0.05))  # float: trained

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return inputs @ (self.qweight.float() * self.scale).T


layer = QuantizedLinear(quantized)  # fix: quantized-weights
for parameter in layer.parameters():
    parameter.requires_grad = True  # fix: unfreeze-loop
inputs = torch.randn(5, 3)
layer(inputs).sum().backward()
torch.testing.assert_close(layer.scale.grad, (inputs @ layer.qweight.float().T).sum())
print("trainable:", [name for name, _ in layer.named_parameters()])
print("state:    ", list(layer.state_dict()))

# %%
# A model whose integer parameters cannot be changed needs a loop that skips them:

model = PackedLinear()
for parameter in model.parameters():
    if parameter.is_floating_point():  # fix: unfreeze-loop
        parameter.requires_grad = True
(model.scale * model.qweight.float()).sum().backward()
torch.testing.assert_close(model.scale.grad, model.qweight.float().sum())

# %%
# The pitfall of casting
# ----------------------
# ``indices.float().requires_grad_()`` silences the error, but it cannot make indexing
# differentiable: to index, the floats must go back to integers, and that conversion has no
# gradient. The graph is cut there, and the "index" never gets a gradient:

table = torch.randn(3, 2, requires_grad=True)
float_indices = torch.tensor([2, 0]).float().requires_grad_()
picked = table[float_indices.long()]
picked.sum().backward()
print("float_indices.grad =", float_indices.grad)
assert float_indices.grad is None
assert table.grad is not None  # the table rows, the values, did get their gradient

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: requires-grad-dtype
