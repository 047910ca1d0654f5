"""
non-full-backward-hook
======================

.. autograd-entry:: non-full-backward-hook

What ``register_backward_hook`` really hooks
--------------------------------------------

A module backward hook is meant to receive ``grad_input`` (the gradient of the loss with
respect to the module's inputs) and ``grad_output`` (with respect to its outputs).
``nn.Module.register_backward_hook``, the original API, does not hook the module: after each
forward pass it registers the hook on the ``grad_fn`` of the module's output, the *last*
operation of ``forward``. Its ``grad_input`` is the gradient with respect to the inputs of that
one operation. That is the module's ``grad_input`` only when ``forward`` is a single operation
on the module's inputs, which is rare: even ``nn.Linear`` is one node whose inputs include its
weight and bias.

Since torch 1.8, ``register_full_backward_hook`` hooks the module itself (its inputs and
outputs), and the old hook warns, after each forward pass, when what it will receive is not
what the documentation promises. The hook still runs: the warning says its arguments are wrong.
"""

import warnings

import torch
from torch import nn


class Residual(nn.Module):
    """A residual block, as in a ResNet: ``relu(linear(x)) + x``."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x)) + x


block = Residual()
x = torch.randn(2, 3, requires_grad=True)
seen = {}


def keep(module: nn.Module, grad_input: tuple, grad_output: tuple) -> None:
    seen["grad_input"] = grad_input
    seen["grad_output"] = grad_output


# %%
# The repro
# ---------
# A saliency or Grad-CAM style hook on a whole block:

handle = block.register_backward_hook(keep)  # broken
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = block(x)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# "Missing some grad_input" means wrong, here. The hook sits on the final ``+``, so its
# ``grad_input`` is the gradient with respect to the two terms of the sum: the output's
# gradient, twice. The gradient with respect to the block's input ``x`` also flows through the
# linear layer and the ReLU:

y.sum().backward()
handle.remove()
true_grad_x = x.grad.clone()
print("hook's grad_input[0]:", seen["grad_input"][0][0])
print("dloss/dx:           ", true_grad_x[0])
torch.testing.assert_close(seen["grad_input"][0], torch.ones(2, 3))
assert not torch.allclose(seen["grad_input"][0], true_grad_x)

# %%
# Common causes
# -------------
# A hook on a block of several operations, as above: explanation tools (Grad-CAM on a ResNet
# ``BasicBlock``, saliency maps) written before torch 1.8.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    other = Residual()
    other.register_backward_hook(keep)
    other(x)  # cause: block-hook
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# A hook on each layer, to collect the gradients of its outputs (per-sample gradients, Fisher
# information, pruning scores), in libraries written before 1.8. Even a single ``nn.Linear``
# warns: its backward node also takes the weight and the bias.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer = nn.Linear(3, 2)
    layer.register_backward_hook(keep)
    layer(x)  # cause: layer-hook
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# A module with several outputs, computed by different operations: the hook sits on the first
# output's node and never sees the gradient of the others. That has a wording of its own.


class TwoHeads(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * 2, x.sin()


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    heads = TwoHeads()
    heads.register_backward_hook(keep)
    heads(x)  # cause: several-outputs
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# A module whose output is not a tensor or a flat tuple of tensors, such as ``nn.LSTM`` with its
# ``(output, (h, c))``, or one called with an argument that is not a tensor (a flag, ``None``):
# two more wordings, from the checks that come first.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lstm = nn.LSTM(3, 4, batch_first=True)
    lstm.register_backward_hook(keep)
    lstm(torch.randn(2, 5, 3, requires_grad=True))  # cause: structured-output
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")


class Scaled(nn.Module):
    def forward(self, x: torch.Tensor, scale: float) -> torch.Tensor:
        return x * scale


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scaled = Scaled()
    scaled.register_backward_hook(keep)
    scaled(x, 2.0)  # cause: non-tensor-input
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# Fix 1: ``register_full_backward_hook``
# --------------------------------------
# The full hook receives the gradients with respect to the module's own inputs and outputs,
# whatever ``forward`` does inside, and does not warn. For the residual block its
# ``grad_input[0]`` is ``dloss/dx``, checked against the gradient autograd computed above:

seen.clear()
block = Residual()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    block.register_full_backward_hook(keep)  # fixed
    x = torch.randn(2, 3, requires_grad=True)
    y = block(x)  # fix: block-hook
assert not caught
y.sum().backward()
torch.testing.assert_close(seen["grad_input"][0], x.grad)
torch.testing.assert_close(seen["grad_output"][0], torch.ones(2, 3))

# %%
# For a layer, the full hook's ``grad_output[0]`` is ``dloss/dy``; with the layer's input kept
# by a forward hook, the per-sample weight gradients are the outer products
# ``dloss/dy_i x_i^T``, whose sum is the weight's ``.grad``. (A full hook fires once the
# gradients with respect to the module's inputs are computed: with an input that does not
# require grad, torch warns that it fires at the outputs instead.)

inputs, seen = {}, {}
layer = nn.Linear(3, 2)
layer.register_forward_hook(lambda module, args, output: inputs.update(x=args[0].detach()))
layer.register_full_backward_hook(keep)  # fix: layer-hook
batch = torch.randn(4, 3, requires_grad=True)
layer(batch).pow(2).sum().backward()  # fix: layer-hook
per_sample = torch.einsum("bi,bj->bij", seen["grad_output"][0], inputs["x"])
torch.testing.assert_close(per_sample.sum(0), layer.weight.grad)

# %%
# For several outputs, the full hook's ``grad_output`` holds the gradient of each one:

seen = {}
heads = TwoHeads()
heads.register_full_backward_hook(keep)  # fix: several-outputs
x = torch.randn(3, requires_grad=True)
doubled, sine = heads(x)
(doubled.sum() + (3 * sine).sum()).backward()  # fix: several-outputs
torch.testing.assert_close(seen["grad_output"][0], torch.ones(3))
torch.testing.assert_close(seen["grad_output"][1], torch.full((3,), 3.0))
torch.testing.assert_close(seen["grad_input"][0], x.grad)

# %%
# ``nn.LSTM`` and modules called with non-tensor arguments work with full hooks too. For the
# LSTM the hook's ``grad_input`` is the gradient with respect to the input sequence:

seen = {}
lstm = nn.LSTM(3, 4, batch_first=True)
lstm.register_full_backward_hook(keep)  # fix: structured-output
sequence = torch.randn(2, 5, 3, requires_grad=True)
output, (h, c) = lstm(sequence)
output.sum().backward()  # fix: structured-output
torch.testing.assert_close(seen["grad_input"][0], sequence.grad)

seen = {}
scaled = Scaled()
scaled.register_full_backward_hook(keep)  # fix: non-tensor-input
x = torch.randn(3, requires_grad=True)
scaled(x, 2.0).sum().backward()  # fix: non-tensor-input
torch.testing.assert_close(seen["grad_input"][0], torch.full((3,), 2.0))

# %%
# A full hook cannot be combined with an in-place change of the module's input or output
# inside ``forward`` (:doc:`/errors/views/backward-hook-view-inplace`), and a module may not
# carry both kinds of hook.
#
# Fix 2: a tensor hook, for one gradient
# --------------------------------------
# To read a single gradient, a hook on the tensor itself is the simplest. Here it is the
# gradient with respect to the block's output, for Grad-CAM:

block = Residual()
x = torch.randn(2, 3, requires_grad=True)
y = block(x)
grads = []
y.register_hook(grads.append)
(y * 5).sum().backward()
torch.testing.assert_close(grads[0], torch.full((2, 3), 5.0))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: non-full-backward-hook
