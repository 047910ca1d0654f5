"""
custom-function-view-inplace
============================

.. autograd-entry:: custom-function-view-inplace

What autograd attaches to a custom Function's output
----------------------------------------------------

A ``torch.autograd.Function`` exists to give part of the graph a backward you wrote. Its outputs
get your Function's backward node as ``grad_fn``. When an output is a view of an input, which
is the cheapest way to write an identity-like forward, it is a view *and* carries your backward.
A gradient reversal layer, as used for domain-adversarial training, is the classic case: the
identity forward, the negated gradient backward.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # broken
        return x.view_as(x)  # broken

    @staticmethod
    def backward(ctx, grad):
        return -grad


features = torch.randn(4, 3, requires_grad=True)
hidden = features * 1
reversed_features = GradReverse.apply(hidden)
print(f"a view of its input: {reversed_features._base is hidden}")
print(f"grad_fn: {reversed_features.grad_fn.name()}")

# %%
# An in-place change through a view is normally recorded by rewriting the view's history: the
# base gets a ``CopySlices`` node, and the view's ``grad_fn`` is rebuilt by replaying the view
# operation on the base. For this output that rebuilt history would be a plain ``view_as``,
# and ``-grad`` would silently disappear from the graph: the layer would stop reversing the
# gradient. Autograd refuses instead.
#
# The repro
# ---------
# The domain classifier behind the reversal layer starts with an in-place ReLU:

features = torch.randn(4, 3, requires_grad=True)
domain_head = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(3, 1))
try:
    domain_head(GradReverse.apply(features * 1))  # cause: identity-forward-returns-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The Function need not be yours. Reentrant activation checkpointing
# (``torch.utils.checkpoint.checkpoint(..., use_reentrant=True)``) runs the checkpointed segment
# inside a custom Function, ``CheckpointFunction``. A segment whose output is a view (a reshape
# at its end), followed by an in-place operation, gets this message with that name:


def flatten_segment(t: torch.Tensor) -> torch.Tensor:
    return (t * 2).view(4, 3)


images = torch.randn(4, 3, 1, requires_grad=True)
try:
    out = checkpoint(flatten_segment, images, use_reentrant=True)  # cause: reentrant-checkpoint
    nn.ReLU(inplace=True)(out)  # cause: reentrant-checkpoint
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Returning the input itself (``return x``) is no way out: an output must be a tensor of its
# own to carry your ``grad_fn``, so autograd makes it a view of the input, with the same
# restriction. That is what "or because an input was returned as-is" refers to. Any view does
# it, ``x.view(...)`` as much as ``x[...]``, and any in-place operation, ``+=`` as much as
# ``relu_()``:


class ReturnsInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return -grad


class ReturnsFlattened(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, grad):
        return -grad.view(4, 3)


try:
    shifted = ReturnsInput.apply(features * 1)  # cause: identity-forward-returns-view
    shifted += 1  # cause: identity-forward-returns-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    ReturnsFlattened.apply(features * 1).relu_()  # cause: identity-forward-returns-view
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Module backward hooks run such a Function on every input and output of the hooked module, hence
# :doc:`/errors/views/backward-hook-view-inplace`.
#
# If the Function runs under ``torch.no_grad()`` on a tensor that requires grad (in an
# evaluation helper, say), its output is still such a view, without a ``grad_fn``, and the
# message starts differently:

features = torch.randn(4, 3, requires_grad=True)
hidden = features * 1
with torch.no_grad():
    reversed_features = GradReverse.apply(hidden)
try:
    reversed_features.relu_()  # cause: output-changed-under-no-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: return a copy from ``forward``
# -------------------------------------
# A clone owns its storage: it is no view, and the following layers may change it in place.
# The copy costs one tensor of memory. The Function computes the identity forward and negates
# the gradient, so with the ReLU and a linear layer the gradient with respect to the features is
# ``-w * (features > 0)``:


class GradReverseCopy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # fixed
        return x.clone()  # fixed

    @staticmethod
    def backward(ctx, grad):
        return -grad


features = torch.randn(4, 3, requires_grad=True)
domain_head = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(3, 1))
reversed_copy = GradReverseCopy.apply(features * 1)  # fix: identity-forward-returns-view
domain_head(reversed_copy).sum().backward()
w = domain_head[1].weight.detach()
torch.testing.assert_close(features.grad, -w * (features.detach() > 0))
print("features.grad =", features.grad + 0.0)  # + 0.0: print -0.0 as 0.0

# %%
# Fix 2: make the next operation out of place
# -------------------------------------------
# Keep the cheap view and let the layer that follows allocate its own result: ``nn.ReLU()``
# instead of ``nn.ReLU(inplace=True)``. The gradient is the same:

features = torch.randn(4, 3, requires_grad=True)
domain_head = nn.Sequential(nn.ReLU(), nn.Linear(3, 1))
domain_head(GradReverse.apply(features * 1)).sum().backward()
w = domain_head[1].weight.detach()
torch.testing.assert_close(features.grad, -w * (features.detach() > 0))
print("features.grad =", features.grad + 0.0)  # + 0.0: print -0.0 as 0.0

# %%
# When the Function is not yours, clone its output where you call it:
# ``GradReverse.apply(x).clone()`` may then be changed in place, and the reversal still applies:

features = torch.randn(4, 3, requires_grad=True)
domain_head = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(3, 1))
reversed_features = GradReverse.apply(features * 1).clone()  # fix: output-changed-under-no-grad
reversed_features.relu_()  # fix: output-changed-under-no-grad
domain_head[1](reversed_features).sum().backward()
w = domain_head[1].weight.detach()
torch.testing.assert_close(features.grad, -w * (features.detach() > 0))

# %%
# For reentrant checkpointing, pass ``use_reentrant=False``: the non-reentrant implementation
# adds no custom Function to the graph (it works through saved-tensor hooks), so the segment's
# output is an ordinary view, and the in-place ReLU after it is recorded. The gradient of
# ``sum(relu(2 x))`` is 2 where ``x > 0``:

images = torch.randn(4, 3, 1, requires_grad=True)
out = checkpoint(flatten_segment, images, use_reentrant=False)  # fix: reentrant-checkpoint
nn.ReLU(inplace=True)(out).sum().backward()
torch.testing.assert_close(images.grad, 2.0 * (images.detach() > 0))
print("images.grad[:, :, 0] =", images.grad[:, :, 0])

# %%
# Pitfall: changing the output under ``no_grad``
# ----------------------------------------------
# Hiding the in-place change from autograd does not work either. The change bumps the version
# counter the output shares with its base, so the next time the output is used, autograd tries
# to rebuild its history and raises, this time saying the view "has been modified":

features = torch.randn(4, 3, requires_grad=True)
reversed_features = GradReverse.apply(features * 1)
with torch.no_grad():
    reversed_features.relu_()
try:
    reversed_features.sum()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: custom-function-view-inplace
