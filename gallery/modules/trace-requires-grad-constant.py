"""
trace-requires-grad-constant
============================

.. autograd-entry:: trace-requires-grad-constant

What a trace may hold
---------------------

``torch.jit.trace`` runs the module once on example inputs and records the operations. Each
tensor an operation uses must be one of the inputs, or a parameter or buffer of the traced
module: those stay variables of the traced graph. Any other tensor is copied into the graph as a
constant. Constants have no gradient, so a tensor that requires grad would lose it, silently;
the tracer raises instead. TensorBoard's ``add_graph`` and ONNX's TorchScript exporter trace the
model the same way (``torch.onnx.export`` uses that exporter up to torch 2.8, and with
``dynamo=False`` since 2.9, whose default exporter goes through ``torch.export`` instead).
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# The layers are kept in a plain Python list: ``nn.Module`` does not see them, so their weights
# are not parameters of the model, only tensors that require grad.


class Stack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = [nn.Linear(3, 3), nn.Linear(3, 1)]  # broken

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


print("registered parameters:", list(Stack().parameters()))
try:
    torch.jit.trace(Stack(), torch.randn(2, 3))  # broken  # cause: unregistered-submodule
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: register the submodules
# ------------------------------
# ``nn.ModuleList`` registers them; the trace then keeps their weights as parameters, and
# gradients flow through the traced module as through the original.


class RegisteredStack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 1)])  # fixed

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


model = RegisteredStack()
traced = torch.jit.trace(model, torch.randn(2, 3))  # fixed  # fix: unregistered-submodule
x = torch.randn(4, 3)
traced(x).sum().backward()
from_trace = model.layers[0].weight.grad.clone()
model.zero_grad()
model(x).sum().backward()
torch.testing.assert_close(from_trace, model.layers[0].weight.grad)

# %%
# A tensor computed outside ``forward``
# -------------------------------------
# A derived tensor computed once from a parameter and stored on the module is not a parameter:
# it has a ``grad_fn``, and the trace can only take it as a constant.


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
        self.doubled = self.weight * 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.doubled


try:
    torch.jit.trace(Scaled(), torch.randn(2, 3))  # cause: tensor-computed-outside-forward
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: compute it in ``forward``
# --------------------------------
# Computed from the parameter at each call, it is part of the trace. The gradient of
# ``sum(x * 2w)`` with respect to ``w`` is ``2 * x.sum(0)``.


class ScaledInForward(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * (self.weight * 2)  # fixed


model = ScaledInForward()
traced = torch.jit.trace(model, torch.randn(2, 3))  # fix: tensor-computed-outside-forward
x = torch.randn(4, 3)
traced(x).sum().backward()
torch.testing.assert_close(model.weight.grad, 2 * x.sum(0))

# %%
# For export only, detached constants are what you want: detach the stored tensor, and the
# tracer accepts it (its value is baked in; nothing trains through it).

frozen = Scaled()
frozen.doubled = frozen.doubled.detach()  # fix: tensor-computed-outside-forward
traced = torch.jit.trace(frozen, torch.ones(1, 3))
torch.testing.assert_close(traced(torch.ones(1, 3)), torch.tensor([[2.0, 4.0, 6.0]]))

# %%
# Freezing the model is not enough, for either cause: ``requires_grad_(False)`` on the model
# reaches only what it registers (not the layers in the list), and leaves the stored tensor's
# ``grad_fn`` in place. Tracing under ``torch.no_grad()`` does not help either. What works for
# the list is freezing its layers themselves:

for model in (Stack().requires_grad_(False), Scaled().requires_grad_(False)):
    try:
        torch.jit.trace(model, torch.randn(2, 3))
    except RuntimeError as error:
        print(f"{type(model).__name__}, model.requires_grad_(False): RuntimeError: {error}")

stack = Stack()
for layer in stack.layers:
    layer.requires_grad_(False)  # fix: unregistered-submodule
traced = torch.jit.trace(stack, torch.randn(2, 3))
x = torch.randn(4, 3)
torch.testing.assert_close(traced(x), stack(x))

# %%
# Under mixed precision
# ---------------------
# A registered model fails too when it is traced under ``torch.autocast``: autocast casts each
# weight to the lower precision once and caches the copy, and that copy, computed from the
# parameter, is neither a parameter nor an input of the trace (pytorch/pytorch#50231; apex AMP
# does the same).

model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
x = torch.randn(2, 3)
try:
    with torch.autocast("cpu", dtype=torch.bfloat16):  # cause: traced-under-autocast
        torch.jit.trace(model, x)  # cause: traced-under-autocast
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: trace outside autocast, or without its cache
# ---------------------------------------------------
# With ``cache_enabled=False`` each cast is recorded in the trace, from the parameter. The traced
# module then runs in bfloat16 as the original does under autocast, and gradients reach the
# float32 weights.

with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):  # fix: traced-under-autocast
    traced = torch.jit.trace(model, x)
    expected = model(x)
torch.testing.assert_close(traced(x), expected)
traced(x).float().sum().backward()
assert model[0].weight.grad is not None
assert model[0].weight.grad.dtype == torch.float32

# %%
# A function that calls the module
# --------------------------------
# Tracing a function or lambda around the module makes its parameters tensors the function
# captures: they are not the trace's parameters.

layer = nn.Linear(3, 1)


def around_layer(t: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(layer(t))  # cause: function-calling-module


try:
    torch.jit.trace(around_layer, torch.randn(2, 3))  # cause: function-calling-module
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 4: trace a module that holds it
# -----------------------------------
# Put the code around the call in a small module that registers the layer. The gradient of
# ``sum(sigmoid(w x + b))`` with respect to ``b`` is ``sum(s (1 - s))``:


class WithSigmoid(nn.Module):
    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.layer(x))


traced = torch.jit.trace(WithSigmoid(layer), torch.randn(2, 3))  # fix: function-calling-module
x = torch.randn(4, 3)
traced(x).sum().backward()
with torch.no_grad():
    s = torch.sigmoid(layer(x))
torch.testing.assert_close(layer.bias.grad, (s * (1 - s)).sum(0))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: trace-requires-grad-constant
