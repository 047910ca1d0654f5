"""
requires-grad-nonleaf
=====================

.. autograd-entry:: requires-grad-nonleaf

Who owns ``requires_grad``
--------------------------

On a *leaf*, a tensor you created yourself, ``requires_grad`` is a switch: it tells
``backward()`` whether to fill that tensor's ``.grad``. On a tensor computed from others it is
not a switch but a consequence. ``y = x * 2`` requires grad because ``x`` does and autograd
recorded the multiplication: ``y.grad_fn`` is ``MulBackward0``, the first step of the way back
to ``x``. Switching ``y``'s flag off would leave that record in place (and ``backward()`` would
still walk through it), so torch refuses; switching it on is redundant, since every non-leaf
already requires grad.
"""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
print(f"x: is_leaf={x.is_leaf}, requires_grad={x.requires_grad}, grad_fn={x.grad_fn}")
print(f"y: is_leaf={y.is_leaf}, requires_grad={y.requires_grad}, grad_fn={y.grad_fn}")

# %%
# The repro
# ---------
# Trying to stop gradients at ``y`` by switching its flag off (``y.requires_grad_(False)``
# raises the same):

x = torch.randn(3, requires_grad=True)
y = x * 2
try:
    y.requires_grad = False  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Switching it *on* raises a shorter message, without the hint. That assignment is always
# redundant: a tensor that does not require grad has no ``grad_fn`` and counts as a leaf, so
# every non-leaf already requires grad. ``y.requires_grad_(True)`` is accepted silently for that
# reason, and changes nothing.

try:
    y.requires_grad = True
except RuntimeError as error:
    print(f"RuntimeError: {error}")
y.requires_grad_(True)
print("after requires_grad_(True): is_leaf =", y.is_leaf)

# %%
# The common causes
# -----------------
# An input updated in a loop and asked for its gradient again, as adversarial attacks and
# saliency methods do. After one step ``image`` is the result of ``image + ...``, a non-leaf:

model = torch.nn.Linear(4, 2)
image = torch.rand(1, 4, requires_grad=True)
(grad,) = torch.autograd.grad(model(image).sum(), image)
image = image + 0.1 * grad.sign()
try:
    image.requires_grad = True  # cause: input-loop
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Switching an intermediate's flag on to get its gradient:

x = torch.randn(3, requires_grad=True)
s = torch.sigmoid(x)
try:
    s.requires_grad = True  # cause: intermediate-gradient
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Freezing a weight that is computed. Under ``weight_norm`` (and any parametrization),
# ``module.weight`` is recomputed from the real parameters, ``original0`` and ``original1``;
# and anything done to a tensor after ``requires_grad=True``, scaling or ``.to()``, is
# recorded, so the name holds the result, not the leaf:

layer = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
print("parameters:", [name for name, _ in layer.named_parameters()])
try:
    layer.weight.requires_grad = False  # cause: computed-weight
except RuntimeError as error:
    print(f"RuntimeError: {error}")

w = torch.randn(3, 2, requires_grad=True) * 0.01
v = torch.randn(3, requires_grad=True).to(torch.float64)
print(f"w: is_leaf={w.is_leaf}, grad_fn={w.grad_fn}")
print(f"v: is_leaf={v.is_leaf}, grad_fn={v.grad_fn}")
try:
    w.requires_grad = False  # cause: computed-weight
except RuntimeError as error:
    print(f"RuntimeError: {error}")

try:
    v.requires_grad_(False)  # cause: computed-weight
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# And switching an intermediate off to stop gradients, as in the repro:

try:
    y = x * 2  # cause: stop-gradient
    y.requires_grad_(False)  # cause: stop-gradient
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: ``detach()`` the tensor you want to treat as a constant
# ---------------------------------------------------------------
# ``y.detach()`` is a new leaf that shares ``y``'s values and does not require grad. Gradients
# stop there and still flow through the other uses of ``x``. With ``y = 2x`` held constant,
# the gradient of ``sum(x * y)`` is ``y`` itself, ``2x`` (not ``4x``, which is what it would be
# if ``y`` were differentiated too):

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
constant = y.detach()  # fixed  # fix: stop-gradient
(x * constant).sum().backward()  # fix: stop-gradient
torch.testing.assert_close(x.grad, 2 * x.detach())
print("x.grad =", x.grad)

# %%
# Fix 2: start a new leaf, ``detach().requires_grad_()``
# ------------------------------------------------------
# To differentiate with respect to a computed tensor as if it were a fresh input, cut it from
# its history and make the copy a leaf that requires grad. For the attack loop, every step
# starts from a new leaf. The gradient of ``sum(W image + b)`` with respect to ``image`` is the
# column sums of ``W``:

image = torch.rand(1, 4, requires_grad=True)
for _ in range(3):
    (grad,) = torch.autograd.grad(model(image).sum(), image)
    torch.testing.assert_close(grad, model.weight.detach().sum(0, keepdim=True))
    image = (image + 0.1 * grad.sign()).detach().requires_grad_()  # fix: input-loop
print(f"image: is_leaf={image.is_leaf}, requires_grad={image.requires_grad}")

# %%
# Fix 3: make the weight itself the leaf
# --------------------------------------
# Scale (or convert) first, then ask for gradients: ``requires_grad_()`` on a tensor that does
# not require grad yet turns that very tensor into a leaf that does. Freezing it later is then
# allowed. The gradient of ``sum(inputs @ w)`` with respect to ``w`` repeats the column sums of
# the inputs:

w = (torch.randn(3, 2) * 0.01).requires_grad_()  # fix: computed-weight
inputs = torch.randn(5, 3)
(inputs @ w).sum().backward()
torch.testing.assert_close(w.grad, inputs.sum(0).unsqueeze(1).expand(3, 2))
w.requires_grad = False  # allowed: w is a leaf
print("w.grad =", w.grad)

# %%
# Under ``weight_norm``, freeze the parameters the weight is computed from: the whole module with
# ``requires_grad_(False)``, or the parametrization's originals alone. The bias still trains;
# its gradient is the batch size for each output:

layer = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
layer.parametrizations.weight.requires_grad_(False)  # fix: computed-weight
layer(inputs).sum().backward()
assert layer.parametrizations.weight.original0.grad is None
torch.testing.assert_close(layer.bias.grad, torch.full((2,), 5.0))

# %%
# ``torch.randn(3, 2, device=..., dtype=..., requires_grad=True)`` creates the leaf directly
# where it should live; ``nn.Parameter(t)`` is always a leaf too, whatever ``t`` is.
#
# If you wanted the gradient *at* an intermediate rather than to stop it, switching the flag
# was never needed: the intermediate already requires grad. Keep its gradient with
# ``y.retain_grad()`` before ``backward()``, or ask for it with ``torch.autograd.grad`` (see
# :doc:`/errors/leaves/nonleaf-grad`):

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.retain_grad()  # fix: intermediate-gradient
(y**2).sum().backward()
torch.testing.assert_close(y.grad, 2 * y.detach())
print("y.grad =", y.grad)

# %%
# The pitfalls of ``detach()``
# ----------------------------
# The detached tensor shares memory with the original: writing into it changes ``y`` too.
# When the graph saved ``y``, autograd notices at backward time (the two share a version
# counter) and raises :doc:`/errors/inplace/inplace-modified`. Take ``detach().clone()`` if you
# mean to modify the copy:

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
shared = y.detach()
shared[0] = 100.0
print("y after writing into y.detach():", y)
assert y[0].item() == 100.0

y = x * 2
copy = y.detach().clone()
copy.zero_()
torch.testing.assert_close(y.detach(), 2 * x.detach())
print("y after zeroing a clone:        ", y)

# %%
# And a detached tensor is cut for good: nothing computed from it reaches ``x``. If a loss is
# built only from detached values, ``backward()`` has nothing to do
# (:doc:`/errors/graph/no-grad-fn`).

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: requires-grad-nonleaf
