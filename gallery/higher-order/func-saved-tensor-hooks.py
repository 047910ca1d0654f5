"""
func-saved-tensor-hooks
=======================

.. autograd-entry:: func-saved-tensor-hooks

Saved tensor hooks, and why ``torch.func`` turns them off
---------------------------------------------------------

Autograd saves tensors during the forward pass for the backward pass to use. Saved tensor
hooks (``torch.autograd.graph.saved_tensors_hooks``) let code intercept that: pack each saved
tensor into something else, unpack it when backward needs it. Two features of PyTorch are
built on them: activation offloading (``torch.autograd.graph.save_on_cpu``) and non-reentrant
activation checkpointing (``torch.utils.checkpoint.checkpoint(..., use_reentrant=False)``,
which saves nothing and recomputes on unpack).

``torch.func.grad``, ``vjp``, ``jacrev`` and ``hessian`` run their own layer of autograd over
tensors wrapped for the transform, and saved tensor hooks do not know how to pack and unpack
those wrapped tensors. So while such a transform runs, torch disables the hooks, and if any
are active (a checkpoint or an offloading context around or inside the transformed function)
it raises instead. Until torch 2.5 every ``torch.func`` transform, ``vmap`` and ``jvp``
included, did the same.
"""

import torch
from torch.func import grad, jacrev
from torch.utils.checkpoint import checkpoint


def block(x: torch.Tensor) -> torch.Tensor:
    """A piece of a model worth checkpointing: its derivative is cos(x)."""
    return torch.sin(x)


x = torch.tensor([0.1, 0.7, -1.3])

# %%
# The repro
# ---------
# A Jacobian, with ``jacrev``, of a function that checkpoints part of itself (a flow or
# diffusion model evaluated many times, whose activations do not fit in memory otherwise):


def checkpointed(x: torch.Tensor) -> torch.Tensor:
    return checkpoint(block, x, use_reentrant=False)


try:
    jacobian = jacrev(checkpointed)(x)  # broken  # cause: checkpoint-inside-transform
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: compute the derivative with ``torch.autograd``
# -----------------------------------------------------
# ``torch.autograd.grad`` and ``torch.autograd.functional.jacobian`` differentiate through
# saved tensor hooks, so they accept the checkpoint (``jacobian`` runs one backward pass per
# output, or vmaps them with ``vectorize=True``). The Jacobian of an elementwise ``sin`` is
# ``diag(cos(x))``:

jacobian = torch.autograd.functional.jacobian(  # fixed  # fix: checkpoint-inside-transform
    checkpointed, x
)
torch.testing.assert_close(jacobian, torch.diag(torch.cos(x)))
leaf = x.clone().requires_grad_()
total = checkpointed(leaf).sum()
(gradient,) = torch.autograd.grad(total, leaf)  # fix: checkpoint-inside-transform
torch.testing.assert_close(gradient, torch.cos(x))

# %%
# A transform inside a checkpointed function
# ------------------------------------------
# The other way round: the checkpointed region computes a gradient with ``torch.func.grad`` (an
# energy model whose forces are the gradient of its energy, a gradient penalty). The
# checkpoint's hooks are active while ``grad`` runs:


def energy(x: torch.Tensor) -> torch.Tensor:
    return (torch.sin(x) * x).sum()


def forces(x: torch.Tensor) -> torch.Tensor:
    return grad(energy)(x)


positions = x.clone().requires_grad_()
try:
    out = checkpoint(forces, positions, use_reentrant=False)  # cause: transform-inside-checkpoint
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: the inner derivative with ``torch.autograd.grad(create_graph=True)``
# ---------------------------------------------------------------------------
# Inside the checkpoint, take the gradient with autograd itself and keep its graph, so that the
# outer backward pass can differentiate it again. The derivative of
# :math:`\sin x + x \cos x` is :math:`2 \cos x - x \sin x`:


def forces_by_autograd(x: torch.Tensor) -> torch.Tensor:
    (g,) = torch.autograd.grad(energy(x), x, create_graph=True)  # fixed
    return g


positions = x.clone().requires_grad_()
out = checkpoint(  # fix: transform-inside-checkpoint
    forces_by_autograd, positions, use_reentrant=False
)
torch.testing.assert_close(out, torch.sin(x) + x * torch.cos(x))
out.sum().backward()
torch.testing.assert_close(positions.grad, 2 * torch.cos(x) - x * torch.sin(x))

# %%
# Activation offloading around a transform
# ----------------------------------------
# ``save_on_cpu`` moves every saved tensor to the CPU (on a GPU machine; here they are on the
# CPU already, and the hooks are active all the same). A ``torch.func.grad`` inside it meets
# the hooks:

try:
    with torch.autograd.graph.save_on_cpu():
        g = grad(energy)(x)  # cause: offloading-around-transform
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 3: keep the transform out of the offloading region
# ------------------------------------------------------
# Offload the part of the model that holds the large activations, and run the transform
# outside the context (or compute that gradient with ``torch.autograd.grad``, which offloading
# supports):

with torch.autograd.graph.save_on_cpu():
    hidden = torch.nn.functional.linear(x, torch.eye(3))  # offloaded work
g = grad(energy)(hidden)  # fix: offloading-around-transform
torch.testing.assert_close(g, torch.sin(x) + x * torch.cos(x))
leaf = x.clone().requires_grad_()
with torch.autograd.graph.save_on_cpu():
    (g,) = torch.autograd.grad(energy(leaf), leaf)  # fix: offloading-around-transform
torch.testing.assert_close(g, torch.sin(x) + x * torch.cos(x))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: func-saved-tensor-hooks
