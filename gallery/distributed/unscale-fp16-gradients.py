"""
unscale-fp16-gradients
======================

.. autograd-entry:: unscale-fp16-gradients

What the gradient scaler expects
--------------------------------

In float16, gradients smaller than about ``6e-8`` become zero. ``GradScaler`` multiplies the
loss by a large factor before ``backward()``, so the gradients are large enough to survive, then
divides them back in ``unscale_`` (which ``scaler.step`` calls, and which you call yourself before
clipping). The scheme assumes the parameters, and so their ``.grad``, are float32: ``autocast``
runs the operations in float16, the weights stay float32. A float16 gradient would lose, in
the division, the precision the scaling protected, so ``unscale_`` refuses it.

On this page the scaler runs on the CPU (``torch.amp.GradScaler("cpu")``, with
``torch.autocast("cpu", dtype=torch.float16)``); on a GPU the code is the same with ``"cuda"``.
"""

import torch
from torch import nn

x, target = torch.randn(8, 4), torch.randn(8, 1)

# %%
# The repro
# ---------
# The model cast to half precision, as ``torch_dtype=torch.float16`` does when loading:

try:
    model = nn.Linear(4, 1).half()  # broken  # cause: half-model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss = (model(x.half()).float() - target).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # broken  # cause: half-model
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# The gradient to expect
# ----------------------
# For the mean squared error of a linear layer, the weight's gradient is
# ``2/n * (W x + b - t)^T x``, computed here in float32 without any scaler.


def expected_weight_grad(weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    residual = x @ weight.detach().float().T + bias.detach().float() - target
    return 2 / len(x) * residual.T @ x


# %%
# Fix 1: float32 parameters, float16 operations
# ---------------------------------------------
# Keep the model in float32 and run the forward pass under ``autocast``: the matrix product runs
# in float16, the gradients arrive in float32, and the scaler unscales them. After
# ``unscale_`` they are the true gradients, up to float16's precision in the forward pass. (The
# initial scale is lowered from the default 65536: with it, this example's first scaled
# gradients overflow, and the scaler would skip the step and lower the scale, as designed.)

model = nn.Linear(4, 1)  # fixed  # fix: half-model
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
with torch.autocast("cpu", dtype=torch.float16):  # fixed
    loss = (model(x).float() - target).pow(2).mean()
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.testing.assert_close(
    model.weight.grad, expected_weight_grad(model.weight, model.bias), atol=1e-2, rtol=1e-2
)
scaler.step(optimizer)
scaler.update()
assert model.weight.dtype == torch.float32

# %%
# A frozen half-precision base with trainable parts
# -------------------------------------------------
# Fine-tuning a large model, the frozen base is kept in float16 to save memory; only an adapter
# trains. If the adapter is created in the base's dtype, the scaler meets float16 gradients:


class Adapted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.base = nn.Linear(4, 4).half().requires_grad_(False)
        self.adapter = nn.Linear(4, 1).half()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.adapter(self.base(x.half()).to(self.adapter.weight.dtype)).float()


model = Adapted()
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale((model(x) - target).pow(2).mean()).backward()
try:
    scaler.unscale_(optimizer)  # cause: half-trainable-part
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 2: float32 for what trains, float16 for what is frozen
# ----------------------------------------------------------
# Cast only the parameters that require grad; the base stays in float16. The adapter's gradient
# is checked against the formula above, with the base's output as input.

model = Adapted()
for parameter in model.parameters():
    if parameter.requires_grad:
        parameter.data = parameter.data.float()  # fixed  # fix: half-trainable-part
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale((model(x) - target).pow(2).mean()).backward()
scaler.unscale_(optimizer)
features = model.base(x.half()).float()
residual = features @ model.adapter.weight.detach().T + model.adapter.bias.detach() - target
torch.testing.assert_close(model.adapter.weight.grad, 2 / len(x) * residual.T @ features)
assert model.base.weight.dtype == torch.float16
scaler.step(optimizer)
scaler.update()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: unscale-fp16-gradients
