"""
functorch-setup-context
=======================

.. autograd-entry:: functorch-setup-context

Why ``torch.func`` needs ``setup_context``
------------------------------------------

``torch.func.grad``, ``vmap``, ``jacrev`` and friends do not record the ordinary autograd graph
of your code from the outside: they run each operation under their own interpreter, one per
transform (a ``grad`` inside a ``vmap`` is two levels). A custom Function is opaque to them, so
they call its pieces themselves: the ``forward`` to compute, a rule for ``vmap``, the
``backward`` for ``grad``.

For that, the ``forward`` must be a plain function of its inputs. The classic style,
``forward(ctx, x)``, computes and sets up the context for backward in one go; the transforms
cannot run it without also doing autograd's bookkeeping at the wrong level. Since torch 2.0 a
Function can split the two: ``forward(x)`` computes, and ``setup_context(ctx, inputs, output)``
saves. The transforms accept only that form, and check only that ``setup_context`` is there: a
classic Function is refused even when its ``forward`` saves nothing. Ordinary ``.backward()``
accepts both.
"""

import torch
from torch.func import grad, jacrev, vmap
from torch.utils.checkpoint import checkpoint

# %%
# The repro
# ---------
# A sine with a hand-written backward, in the classic style. It works with ``.backward()``:


class Sin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # broken
        ctx.save_for_backward(x)  # broken
        return x.sin()  # broken

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.cos()


x = torch.randn(3, requires_grad=True)
Sin.apply(x).sum().backward()
torch.testing.assert_close(x.grad, x.detach().cos())

# %%
# but not under a ``torch.func`` transform:

try:
    grad(lambda t: Sin.apply(t).sum())(torch.randn(3))  # cause: classic-function-under-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``vmap`` refuses it the same way, for batched evaluation or per-sample gradients:

try:
    vmap(Sin.apply)(torch.randn(4, 3))  # cause: classic-function-under-vmap
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# and so do the other transforms: ``jacrev``, ``grad_and_value``, ``jvp``.

try:
    jacrev(Sin.apply)(torch.randn(3))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    torch.func.grad_and_value(lambda t: Sin.apply(t).sum())(torch.randn(3))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    torch.func.jvp(Sin.apply, (torch.randn(3),), (torch.ones(3),))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The check is for ``setup_context`` alone. A classic Function whose ``forward`` touches no
# ``ctx`` at all (a gradient reversal, say) is refused as well:


class ReverseGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output


try:
    grad(lambda t: ReverseGradient.apply(t).sum())(torch.randn(3))
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# torch's own classic Functions
# -----------------------------
# A model meets the check without defining a Function: reentrant activation checkpointing
# runs the checkpointed part inside ``CheckpointFunction``, and a full backward hook wraps the
# module's inputs and outputs in ``BackwardHookFunction``. Both are classic, so a transform over
# such a model stops here (per-sample gradients with ``vmap(grad(...))`` too):

layer = torch.nn.Linear(3, 3)
x = torch.randn(3)


def checkpointed_sum(t: torch.Tensor) -> torch.Tensor:
    return checkpoint(layer, t, use_reentrant=True).sum()  # cause: checkpoint-or-backward-hook


try:
    grad(checkpointed_sum)(x)  # cause: checkpoint-or-backward-hook
except RuntimeError as error:
    print(f"RuntimeError: {error}")

hooked = torch.nn.Linear(3, 3)
hook = hooked.register_full_backward_hook(lambda module, grad_input, grad_output: None)
try:
    grad(lambda t: hooked(t).sum())(x)  # cause: checkpoint-or-backward-hook
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# For the transformed call, go without them: checkpointing only saves memory in an ordinary
# backward pass, and the hook can be removed, then registered again for ordinary training. The
# gradient of ``sum(W x + b)`` with respect to ``x`` is the column sums of ``W``:

input_grad = grad(lambda t: layer(t).sum())(x)  # fix: checkpoint-or-backward-hook
torch.testing.assert_close(input_grad, layer.weight.detach().sum(0))
hook.remove()  # fix: checkpoint-or-backward-hook
torch.testing.assert_close(grad(lambda t: hooked(t).sum())(x), hooked.weight.detach().sum(0))

# %%
# Non-reentrant checkpointing gets past this message, not past ``grad``: it works through saved
# tensor hooks, which ``grad`` refuses with a message of its own:


def grad_through_non_reentrant_checkpoint() -> None:
    try:
        grad(lambda t: checkpoint(layer, t, use_reentrant=False).sum())(x)
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


grad_through_non_reentrant_checkpoint()

# %%
# Fix: ``forward`` without ``ctx``, plus ``setup_context``
# --------------------------------------------------------
# ``setup_context`` receives the inputs as a tuple and the output, and saves what ``backward``
# needs. ``generate_vmap_rule = True`` lets ``vmap`` run the Function over a batch. It does not
# loop over the samples: it runs ``forward`` (and ``backward``) once, under ``vmap`` itself, so
# every operation in them must be one that ``vmap`` supports (no ``.item()``, no NumPy). The
# backward is unchanged. ``grad`` and ``jacrev`` work as well:


class FixedSin(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):  # fixed
        return x.sin()  # fixed

    @staticmethod
    def setup_context(ctx, inputs, output):  # fixed
        (x,) = inputs  # fixed
        ctx.save_for_backward(x)  # fixed

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.cos()


x = torch.randn(3)
sin_grad = grad(lambda t: FixedSin.apply(t).sum())(x)  # fix: classic-function-under-grad
torch.testing.assert_close(sin_grad, x.cos())
batch = torch.randn(4, 3)
batched_sin = vmap(FixedSin.apply)(batch)  # fix: classic-function-under-vmap
torch.testing.assert_close(batched_sin, batch.sin())
torch.testing.assert_close(jacrev(FixedSin.apply)(x), torch.diag(x.cos()))
print("grad:", grad(lambda t: FixedSin.apply(t).sum())(x))

# %%
# The new style still works with ordinary autograd, so one definition serves both:

x = torch.randn(3, requires_grad=True)
FixedSin.apply(x).sum().backward()
torch.testing.assert_close(x.grad, x.detach().cos())

# %%
# The pitfalls
# ------------
# **``vmap`` needs a rule as well.** With ``setup_context`` but neither
# ``generate_vmap_rule = True`` nor a ``vmap`` staticmethod, ``grad`` works and ``vmap`` stops at
# the next message:


def vmap_without_a_rule():
    class NoRule(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x.sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x.cos()

    try:
        vmap(NoRule.apply)(torch.randn(4, 3))
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


vmap_without_a_rule()

# %%
# **``generate_vmap_rule`` runs ``forward`` once, on the whole batch.** A Function that records
# what its ``forward`` sees shows one call, with the shape of one sample:

seen_shapes = []


class RecordingSin(FixedSin):
    @staticmethod
    def forward(x):
        seen_shapes.append(tuple(x.shape))
        return x.sin()


vmap(RecordingSin.apply)(torch.randn(4, 3))
print("forward calls under vmap:", seen_shapes)
assert seen_shapes == [(3,)]

# %%
# **Forward-mode transforms need a ``jvp`` staticmethod.** ``jvp``, ``jacfwd`` and ``hessian``
# (which is ``jacfwd`` of ``jacrev``) push tangents forward through the Function, which
# ``backward`` cannot do; without a ``jvp`` they stop at another message:


def forward_mode_without_jvp():
    try:
        torch.func.jacfwd(FixedSin.apply)(torch.randn(3))
    except NotImplementedError as error:
        print(f"NotImplementedError: {error}")


forward_mode_without_jvp()


class ForwardSin(FixedSin):
    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.x = x  # jvp reads its inputs from ctx attributes

    @staticmethod
    def jvp(ctx, x_tangent):
        return x_tangent * ctx.x.cos()


x = torch.randn(3)
torch.testing.assert_close(torch.func.jacfwd(ForwardSin.apply)(x), torch.diag(x.cos()))
hessian = torch.func.hessian(lambda t: ForwardSin.apply(t).sum())(x)
torch.testing.assert_close(hessian, torch.diag(-x.sin()))

# %%
# **``setup_context`` only sees the inputs and the output.** An intermediate that the classic
# ``forward`` saved directly must now be recomputed in ``setup_context`` or ``backward``, or
# returned from ``forward`` as an extra output. Here ``tanh`` saves its output, which is all
# its backward needs:


class Tanh(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.tanh()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)


x = torch.randn(3)
torch.testing.assert_close(grad(lambda t: Tanh.apply(t).sum())(x), 1 - x.tanh() ** 2)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: functorch-setup-context
