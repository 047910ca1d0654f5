"""
vmap-no-batching-rule
=====================

.. autograd-entry:: vmap-no-batching-rule

Batching rules, and the fallback that loops
-------------------------------------------

vmap runs a function once on *batched* tensors, and each operation reaches a batching rule that
knows where the hidden batch dimension is. An operation without a rule goes to a fallback: it
slices the batch, runs the operation once per sample and stacks the results. Stacking makes new
memory, so the fallback cannot stand in for an operation whose result shares memory with its
input (a view: ``alias``, ``detach``, ``flatten``, ``narrow``) or writes into a tensor it was
given (an ``out=`` variant): for those it raises.

Two vmaps print this message. ``torch.autograd.functional.jacobian`` and ``hessian`` with
``vectorize=True``, and ``torch.autograd.grad(..., is_grads_batched=True)``, run the backward
pass under the legacy vmap of ``torch._vmap_internals``, which has rules for torch's own
derivative formulas and the common views, but not for ``alias``, ``detach``, ``flatten`` and a
few others. ``torch.func.vmap`` (and ``jacrev``, ``jacfwd``, ``hessian``) has rules for
nearly every view, but none for ``out=`` and for a ``narrow`` whose start is a tensor.
"""

import warnings

import torch
from torch.autograd.functional import hessian, jacobian
from torch.func import jacrev, vjp, vmap

# %%
# The repro
# ---------
# A custom Function whose backward takes an alias of the incoming gradient. Plain
# ``.backward()`` runs it; ``jacobian(..., vectorize=True)`` runs it under the legacy vmap, once,
# with a batch of gradients (one per row of the Jacobian):


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return torch.ops.aten.alias(grad) * 2  # broken


x = torch.randn(5)
try:
    jacobian(Double.apply, x, vectorize=True)  # broken  # cause: custom-backward-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Nobody writes ``torch.ops.aten.alias`` by hand, but ``grad[...]`` and ``.as_subclass()`` (what
# a tensor subclass's ``__torch_function__`` may call, as pypose's LieTensor does) are aliases
# too, and ``.detach()``, ``.flatten()``, ``.swapaxes()`` have no legacy rule either. The same
# backward fails under ``hessian(..., vectorize=True)`` and ``autograd.grad(...,
# is_grads_batched=True)``, which use the same vmap:


def function_with_backward(view):
    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return view(grad) * 2

    return Scaled


Indexed = function_with_backward(lambda grad: grad[...])
Detached = function_with_backward(lambda grad: grad.detach())
Flattened = function_with_backward(lambda grad: grad.flatten().view(grad.shape))
matrix = torch.randn(2, 3)

try:
    jacobian(Indexed.apply, x, vectorize=True)  # cause: custom-backward-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    jacobian(Detached.apply, x, vectorize=True)  # cause: custom-backward-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    jacobian(Flattened.apply, matrix, vectorize=True)  # cause: custom-backward-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")


def energy(t):
    return Indexed.apply(t).pow(2).sum()


try:
    hessian(energy, x, vectorize=True)  # cause: custom-backward-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

leaf = x.clone().requires_grad_()
out, eye = Indexed.apply(leaf), torch.eye(5)
try:
    torch.autograd.grad(out, leaf, eye, is_grads_batched=True)  # cause: custom-backward-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: write the backward with operations the legacy vmap batches
# -----------------------------------------------------------------
# The gradient needs no alias and no detach (backward already runs without building a graph,
# unless ``create_graph=True`` asks for one); ``reshape`` does what ``flatten`` did, and has a
# rule. The Jacobian of :math:`2x` is :math:`2I`:

Plain = function_with_backward(lambda grad: grad)  # fixed
Reshaped = function_with_backward(lambda grad: grad.reshape(-1).view(grad.shape))  # fixed

jac = jacobian(Plain.apply, x, vectorize=True)  # fix: custom-backward-view
torch.testing.assert_close(jac, 2 * torch.eye(5))
torch.testing.assert_close(
    jacobian(Reshaped.apply, matrix, vectorize=True),  # fix: custom-backward-view
    2 * torch.eye(6).view(2, 3, 2, 3),
)
torch.testing.assert_close(
    hessian(lambda t: Plain.apply(t).pow(2).sum(), x, vectorize=True), 8 * torch.eye(5)
)
leaf = x.clone().requires_grad_()
(rows,) = torch.autograd.grad(Plain.apply(leaf), leaf, torch.eye(5), is_grads_batched=True)
torch.testing.assert_close(rows, 2 * torch.eye(5))

# %%
# Fix 2: ``vectorize=False``
# --------------------------
# Without vmap, ``jacobian`` runs one backward pass per output element: slower for large
# outputs, and it accepts any backward.

jac = jacobian(Double.apply, x, vectorize=False)  # fixed  # fix: custom-backward-view
torch.testing.assert_close(jac, 2 * torch.eye(5))

# %%
# Fix 3: ``torch.func``, whose vmap has the rules
# -----------------------------------------------
# ``torch.func.jacrev`` vmaps the backward with the batching rules of ``torch.func.vmap``, which
# cover ``alias``, ``detach``, ``flatten`` and the other views. It needs the Function written for
# ``torch.func``: ``forward`` without ``ctx``, a ``setup_context``, and ``generate_vmap_rule``
# (see :doc:`/errors/custom-functions/functorch-setup-context`). The alias can stay:


class FuncDouble(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return torch.ops.aten.alias(grad) * 2


jac = jacrev(FuncDouble.apply)(x)  # fix: custom-backward-view
torch.testing.assert_close(jac, 2 * torch.eye(5))
_, vjp_fn = vjp(FuncDouble.apply, x)
(batched_rows,) = vmap(vjp_fn)(torch.eye(5))  # instead of is_grads_batched=True
torch.testing.assert_close(batched_rows, 2 * torch.eye(5))

# %%
# ``narrow`` with a tensor start
# ------------------------------
# ``torch.func.vmap`` batches ``narrow`` when the start is a Python number. A start that differs
# per sample (a window at a per-sample offset, the slot of a Mixture-of-Experts router) is a
# tensor, and a batched view cannot start at a different offset in each sample:

rows_in, starts = torch.randn(3, 6), torch.tensor([0, 2, 4])
try:
    vmap(lambda row, start: row.narrow(0, start, 2))(rows_in, starts)  # cause: narrow-tensor-start
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 4: gather the window
# ------------------------
# ``gather`` copies the elements at ``start + [0, 1]`` for each sample; its gradient flows back to
# exactly those elements.


def window(row, start):
    return row.gather(0, start + torch.arange(2))  # fixed


source = rows_in.clone().requires_grad_()
windows = vmap(window)(source, starts)  # fix: narrow-tensor-start
expected = torch.stack([rows_in[i, s : s + 2] for i, s in enumerate(starts.tolist())])
torch.testing.assert_close(windows, expected)
windows.sum().backward()
mask = torch.zeros(3, 6)
for i, s in enumerate(starts.tolist()):
    mask[i, s : s + 2] = 1
torch.testing.assert_close(source.grad, mask)

# %%
# ``out=`` inside vmap
# --------------------
# An ``out=`` argument writes one tensor of the shape of one sample; under vmap the result has a
# value per sample, and neither vmap has a rule for any ``out=`` variant:

buffer = torch.empty(6)
try:
    vmap(lambda row: torch.mul(row, 2, out=buffer))(rows_in)  # cause: out-argument
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 5: return the result, copy it after vmap
# --------------------------------------------
# Inside the function, compute out of place and return; a preallocated buffer for the whole batch
# is filled once vmap has returned.

source = rows_in.clone().requires_grad_()
doubled = vmap(lambda row: torch.mul(row, 2))(source)  # fix: out-argument
batch_buffer = torch.empty(3, 6)
batch_buffer.copy_(doubled.detach())  # fixed: outside vmap
torch.testing.assert_close(batch_buffer, 2 * rows_in)
doubled.sum().backward()
torch.testing.assert_close(source.grad, torch.full((3, 6), 2.0))

# %%
# Nested tensors
# --------------
# vmap over a nested tensor (one sample per component, of different lengths) has a fallback of
# its own, which unbinds the components; it refuses views and ``out=`` the same way, with
# "Nested" in front of the message. Many operations work on the nested tensor itself, without
# vmap:

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the nested-tensor prototype warning
    nested = torch.nested.nested_tensor([torch.randn(2, 3), torch.randn(4, 3)])
try:
    vmap(lambda sample: sample.t())(nested)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

transposed = nested.transpose(1, 2)
for component, original in zip(transposed.unbind(), nested.unbind(), strict=True):
    torch.testing.assert_close(component, original.t())

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: vmap-no-batching-rule
