"""
retain-grad-no-requires-grad
============================

.. autograd-entry:: retain-grad-no-requires-grad

What ``retain_grad()`` keeps
----------------------------

The backward pass computes the gradient with respect to every tensor between the output and
the leaves, but stores only the leaves' in ``.grad``; the others are passed on and dropped.
``t.retain_grad()`` asks autograd to store ``t``'s as well, with a hook on ``t``'s place in the
graph. That only means something if ``t`` is in the graph, that is, if it requires grad: a
tensor computed without anything that requires grad (frozen weights, data, ``torch.no_grad()``)
never receives a gradient, so torch refuses to promise one.
"""

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
(y * y).sum().backward()
print("y.grad =", y.grad, " x.grad =", x.grad)

# %%
# The repro
# ---------
# The activations of a frozen model, to inspect their gradient:

model = torch.nn.Linear(3, 2)
model.requires_grad_(False)
inputs = torch.randn(4, 3)
hidden = model(inputs)
print("hidden.requires_grad:", hidden.requires_grad)
try:
    hidden.retain_grad()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same happens to the input batch when its gradient is what you want (a saliency map, an
# adversarial attack), and to activations computed under ``torch.no_grad()`` in evaluation code:

try:
    images = torch.rand(2, 3)  # cause: input-without-grad
    images.retain_grad()  # cause: input-without-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

encoder = torch.nn.Linear(3, 2)
try:
    with torch.no_grad():  # cause: activations-without-grad
        features = encoder(images)  # cause: activations-without-grad
    features.retain_grad()  # cause: activations-without-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same message comes out of ``backward(inputs=...)``, which calls ``retain_grad()`` on each
# of its ``inputs`` to collect their gradients: one of them does not require grad, and the code
# never called ``retain_grad()`` itself.

weight = torch.randn(3, requires_grad=True)
constant = torch.randn(3)
loss = (weight * constant).sum()
try:
    loss.backward(inputs=[weight, constant])  # cause: backward-inputs
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: let the gradient flow through the tensor
# -----------------------------------------------
# The activations of a frozen model require grad as soon as its input does. Mark the input before
# the forward pass, and ``retain_grad()`` works. The gradient of ``sum(h^2)`` with respect to
# ``h`` is ``2 h``:

model = torch.nn.Linear(3, 2)
model.requires_grad_(False)
inputs = torch.randn(4, 3).requires_grad_()
hidden = model(inputs)
hidden.retain_grad()  # fixed
(hidden**2).sum().backward()
torch.testing.assert_close(hidden.grad, 2 * hidden.detach())
torch.testing.assert_close(inputs.grad, 2 * hidden.detach() @ model.weight)
print("hidden.grad:\n", hidden.grad)

# %%
# For activations computed under ``torch.no_grad()``, run that forward pass with grad enabled.
# The gradient of ``sum(f^2)`` with respect to ``f`` is ``2 f``:

features = encoder(images)  # fix: activations-without-grad
features.retain_grad()
features.pow(2).sum().backward()
torch.testing.assert_close(features.grad, 2 * features.detach())

# %%
# If you only need the gradient once, ``torch.autograd.grad(loss, hidden)`` returns it without
# storing anything.
#
# Fix 2: give ``backward(inputs=...)`` only tensors that require grad
# -------------------------------------------------------------------
# The gradient of ``sum(w * c)`` with respect to ``w`` is ``c``:

weight = torch.randn(3, requires_grad=True)
constant = torch.randn(3)
loss = (weight * constant).sum()
loss.backward(inputs=[t for t in (weight, constant) if t.requires_grad])  # fix: backward-inputs
torch.testing.assert_close(weight.grad, constant)
print("weight.grad =", weight.grad)

# %%
# Fix 3: an input is a leaf: ``requires_grad_()`` on it
# -----------------------------------------------------
# When the tensor is the input itself, nothing comes before it, and ``requires_grad_()`` is the
# whole fix: its gradient lands in ``.grad`` like a parameter's, no ``retain_grad()`` needed.
# For a saliency map of a linear score :math:`w \cdot x`, the gradient is :math:`w`:

scorer = torch.nn.Linear(3, 1)
images = torch.rand(2, 3)
images.requires_grad_()  # fix: input-without-grad
scorer(images).sum().backward()
torch.testing.assert_close(images.grad, scorer.weight.detach().expand(2, 3))

# %%
# A leaf that requires grad needs no ``retain_grad()``: its ``.grad`` is filled anyway, and the
# call does nothing.
#
# Pitfall: making an intermediate tensor require grad
# ---------------------------------------------------
# ``hidden.requires_grad_()`` also silences the error when ``hidden`` does not require grad:
# such a tensor is a leaf, and a leaf's flag may be set. But it becomes the start of a new
# graph. Here the model was trainable and the input required grad, but the forward pass ran
# under ``torch.no_grad()``: ``hidden.grad`` is filled, and nothing before it gets a gradient.

model = torch.nn.Linear(3, 2)
inputs = torch.randn(4, 3, requires_grad=True)
with torch.no_grad():
    hidden = model(inputs)
hidden.requires_grad_()
hidden.retain_grad()
(hidden**2).sum().backward()
torch.testing.assert_close(hidden.grad, 2 * hidden.detach())
assert inputs.grad is None
assert model.weight.grad is None
print("inputs.grad:", inputs.grad, " model.weight.grad:", model.weight.grad)

# %%
# To get gradients before ``hidden`` too, run the forward pass with grad enabled and keep the
# graph whole.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: retain-grad-no-requires-grad
