"""
hook-wrong-number-of-values
===========================

.. autograd-entry:: hook-wrong-number-of-values

What a backward hook's return value replaces
--------------------------------------------

Autograd calls a hook registered on a node of the graph (a ``grad_fn``) with the gradients that
node works with: ``node.register_hook(fn)`` calls ``fn(grad_inputs, grad_outputs)`` once the
node has computed the gradients with respect to its inputs, ``node.register_prehook(fn)`` calls
``fn(grad_outputs)`` before. A hook that returns something other than ``None`` replaces its
first argument, position by position, so it must return a tuple of the same length: one entry
per input of the node for a hook, one per output for a pre-hook. Any other length cannot be
paired up with the node's inputs, and the engine raises.

The deprecated ``nn.Module.register_backward_hook`` is a hook of this kind: after each forward
pass the module registers it on the ``grad_fn`` of its output, the node of the *last* operation
of ``forward``. Its ``grad_input`` holds one entry per input of that node, which is rarely one
per input of the module: a BatchNorm's node also takes the weight and the bias, a residual sum
takes two terms, and a module that returns its input unchanged hooks whatever node made it.
``register_full_backward_hook`` counts the module's own inputs.
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# A hook that normalizes the gradient flowing back through each BatchNorm
# (csdongxian/skip-connections-matter#3). It returns one gradient, for the module's one input;
# the node it sits on, ``NativeBatchNormBackward0``, has three inputs:


def backward_hook_norm(module, grad_in, grad_out):
    return (grad_in[0] / grad_in[0].std(),)  # broken


norm = nn.BatchNorm1d(3)
norm.register_backward_hook(backward_hook_norm)  # broken
x = torch.randn(4, 3, requires_grad=True)
weights = torch.arange(12.0).reshape(4, 3)
try:
    (norm(x) * weights).sum().backward()  # cause: module-input-only
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# TransformerLens 2.0 registered its backward hooks with ``register_backward_hook`` by mistake
# (TransformerLens#672). Its hook points are modules that return their input unchanged, so the
# hook lands on the node that made that input, here the sum of a residual connection, which has
# two inputs. A hook returning the gradient it was given, ``(grad,)``, which worked with full
# hooks, is one short:


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.hook_resid_post = nn.Identity()  # a hook point

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.hook_resid_post(x + self.linear(x))


def bwd_hook(module, grad_input, grad_output):
    return (grad_output[0],)


block = Block()
block.hook_resid_post.register_backward_hook(bwd_hook)
try:
    block(x).sum().backward()  # cause: module-input-only
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A hook that zeroes the gradients, with the zeros built from ``grad_output``, one entry per
# output of the node, where the hook replaces ``grad_input`` (pytorch/pytorch#5022). The node of
# ``nn.Linear``, ``AddmmBackward0``, takes the bias, the input and the weight:


def hookFunc(module, gradInput, gradOutput):
    return tuple(torch.zeros(g.size()) for g in gradOutput)


layer = nn.Linear(3, 2)
layer.register_backward_hook(hookFunc)
try:
    layer(x).sum().backward()  # cause: grad-output-returned
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A hook on a ``grad_fn`` itself follows the same rule. ``a + b`` makes one ``AddBackward0``
# node with two inputs and one output: its hook must return two values, whatever it does with
# ``grad_outputs``.


def node_hook(grad_inputs, grad_outputs):
    return (grad_inputs[0] * 2,)  # a and b both need a gradient


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a + b
c.grad_fn.register_hook(node_hook)
try:
    c.sum().backward()  # cause: node-hook
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Reading the message
# -------------------
# The name between quotes is the hook's ``__name__`` (a library that wraps your hook may name
# its wrapper after it: TransformerLens writes ``<function bwd_hook at 0x...>``). ``got`` counts
# what the hook returned, ``expected`` the inputs of the node it sits on (its outputs for a
# pre-hook): for a module hook, the inputs of the module's last operation, which
# ``module(x).grad_fn`` shows.

print(norm(x).grad_fn.name(), "takes", len(norm(x).grad_fn.next_functions), "inputs")

# %%
# Fix 1: ``register_full_backward_hook``
# --------------------------------------
# The full hook receives, and replaces, the gradients with respect to the module's own
# positional arguments: for a module of one input, ``grad_input`` holds one entry, and the same
# hook returns the right count. The gradient it replaces is the one ``x`` receives, so
# ``x.grad`` is the gradient autograd computes without the hook, normalized:

norm = nn.BatchNorm1d(3)
x = torch.randn(4, 3, requires_grad=True)
(norm(x) * weights).sum().backward()
expected = x.grad / x.grad.std()

x.grad = None
norm.register_full_backward_hook(backward_hook_norm)  # fixed
(norm(x) * weights).sum().backward()  # fix: module-input-only
torch.testing.assert_close(x.grad, expected)

# %%
# The hook point's hook, registered as a full hook (TransformerLens#673 put
# ``register_full_backward_hook`` back), returns its gradient unchanged, and the block's
# gradients are what they are without it:

block = Block()
x.grad = None
block(x).sum().backward()
expected = x.grad.clone()

x.grad = None
block.hook_resid_post.register_full_backward_hook(bwd_hook)  # fix: module-input-only
block(x).sum().backward()  # fix: module-input-only
torch.testing.assert_close(x.grad, expected)

# %%
# Fix 2: build the return value from what it replaces
# ---------------------------------------------------
# Zeros shaped like ``grad_input``, entry by entry, with ``None`` kept where there is no
# gradient, have the right count whatever the node. With a full hook on the layer, the
# gradient with respect to its input is zero, and its weight still gets its gradient (a full
# hook covers the module's inputs; a parameter's gradient needs a tensor hook on it):


def zero_grads(module, grad_input, grad_output):
    return tuple(None if g is None else torch.zeros_like(g) for g in grad_input)


layer = nn.Linear(3, 2)
layer.register_full_backward_hook(zero_grads)
x = torch.randn(4, 3, requires_grad=True)
layer(x).sum().backward()  # fix: grad-output-returned
torch.testing.assert_close(x.grad, torch.zeros(4, 3))
torch.testing.assert_close(layer.weight.grad, x.detach().sum(0).expand(2, 3))

# %%
# The same for the node's hook: one value per input of ``AddBackward0``. The gradient of
# ``sum(a + b)`` is one for each element of ``a`` and of ``b``, doubled by the hook:


def double_all(grad_inputs, grad_outputs):
    return tuple(None if g is None else g * 2 for g in grad_inputs)


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a + b
c.grad_fn.register_hook(double_all)
c.sum().backward()  # fix: node-hook
torch.testing.assert_close(a.grad, torch.full((2,), 2.0))
torch.testing.assert_close(b.grad, torch.full((2,), 2.0))

# %%
# Fix 3: a tensor hook, for one gradient
# --------------------------------------
# To change the gradient of one tensor, hook the tensor: ``register_hook`` on a tensor takes
# and returns one gradient, no tuple to count.

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
a.register_hook(lambda grad: grad * 2)
(a + b).sum().backward()
torch.testing.assert_close(a.grad, torch.full((2,), 2.0))
torch.testing.assert_close(b.grad, torch.ones(2))

# %%
# The pitfalls
# ------------
# **Full hooks check the count too, with a message of their own.** A full hook that returns a
# bare tensor instead of a tuple has it read as a sequence (its first dimension is the count);
# a ``grad_fn`` hook or a ``register_backward_hook`` hook that does so is refused with a
# ``TypeError``:


def full_hook_returns_a_tensor():
    layer = nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: grad_input[0])
    try:
        layer(torch.randn(4, 3, requires_grad=True)).sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")

    c = torch.randn(2, requires_grad=True) * 2
    c.grad_fn.register_hook(lambda grad_inputs, grad_outputs: grad_inputs[0])
    try:
        c.sum().backward()
    except TypeError as error:
        print(f"TypeError: {error}")


full_hook_returns_a_tensor()

# %%
# **The right count is not the right gradients.** ``register_backward_hook`` on a block still
# sees the gradients of its last operation, not of the block (see
# :doc:`/errors/modules/non-full-backward-hook`): returning a tuple of the node's length makes
# the error go away and leaves the block's input gradient wrong. Count the module's inputs
# with a full hook instead.
#
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: hook-wrong-number-of-values
