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
the tracer raises instead. ONNX export (``torch.onnx.export`` with the TorchScript exporter) and
TensorBoard's ``add_graph`` trace the model the same way.
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
# For export only, detached constants are what you want: freeze the model first, and the
# tracer accepts the stored tensor (its value is baked in; nothing trains through it).

frozen = Scaled().requires_grad_(False)
frozen.doubled = frozen.doubled.detach()
traced = torch.jit.trace(frozen, torch.ones(1, 3))
torch.testing.assert_close(traced(torch.ones(1, 3)), torch.tensor([[2.0, 4.0, 6.0]]))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: trace-requires-grad-constant
