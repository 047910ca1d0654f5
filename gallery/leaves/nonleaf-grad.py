"""
nonleaf-grad
============

.. autograd-entry:: nonleaf-grad

Which tensors get a ``.grad``
-----------------------------

``backward()`` computes the gradient with respect to every tensor on the way, but *stores* it
only in leaves: tensors you created with ``requires_grad=True``, such as parameters. The
gradients of intermediate results are passed along and dropped, which saves memory. Their
``.grad`` stays ``None``, and reading it warns.
"""

import warnings

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
print(f"x: is_leaf={x.is_leaf}   y: is_leaf={y.is_leaf}")

# %%
# The repro
# ---------
# This is a warning, not an exception; here it is made visible whatever the filters say:

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.sum().backward()  # broken
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("y.grad =", y.grad)  # broken
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# The common causes
# -----------------
# A tensor that looks like a leaf. Moving a fresh tensor to the GPU with ``.cuda()`` or
# ``.to(device)``, casting it, or scaling it returns a *new* tensor computed from the leaf; the
# name keeps the new one, and the leaf, the one that gets the gradient, is lost. On this CPU
# build ``.to(torch.float64)`` and ``* 0.01`` show it:

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    weights = torch.randn(3, requires_grad=True).to(torch.float64)  # cause: moved-after-creation
    scaled = torch.randn(3, requires_grad=True) * 0.01  # cause: moved-after-creation
    cast = torch.randn(3, requires_grad=True).type(torch.float64)  # cause: moved-after-creation
    (weights.sum() + scaled.sum() + cast.sum()).backward()
    print(f"weights: is_leaf={weights.is_leaf}, grad_fn={type(weights.grad_fn).__name__}")
    print("weights.grad =", weights.grad)  # cause: moved-after-creation
    print("scaled.grad =", scaled.grad)  # cause: moved-after-creation
    print("cast.grad =", cast.grad)  # cause: moved-after-creation
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message)[:80]}...")

# %%
# Reading the gradient of an intermediate result, such as a layer's output:

model = torch.nn.Linear(2, 1)
output = model(torch.randn(4, 2))
output.sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("output.grad =", output.grad)  # cause: intermediate-result
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message)[:80]}...")

# %%
# Fix 1: read the leaf's gradient
# -------------------------------
# Usually the intermediate was read by mistake: the gradient you want is the parameter's. To see
# every gradient a step computed, loop over the parameters (the notes' way):

model = torch.nn.Linear(2, 1)
model(torch.randn(4, 2)).sum().backward()
for name, parameter in model.named_parameters():
    if parameter.grad is not None:
        print(f"{name}: {parameter.grad}")

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.sum().backward()
torch.testing.assert_close(x.grad, torch.tensor([3.0, 3.0]))
print("x.grad =", x.grad)

# %%
# For a tensor that should live elsewhere, create it there (``device=``, ``dtype=``), or move and
# scale it first and ask for gradients after, on the tensor the name holds. The gradient of a
# sum is 1 everywhere:

weights = torch.randn(3, dtype=torch.float64, requires_grad=True)  # fix: moved-after-creation
scaled = (torch.randn(3) * 0.01).requires_grad_()  # fix: moved-after-creation
(weights.sum() + scaled.sum()).backward()
torch.testing.assert_close(weights.grad, torch.ones(3, dtype=torch.float64))
torch.testing.assert_close(scaled.grad, torch.ones(3))

# %%
# Fix 2: ask for the intermediate gradient
# ----------------------------------------
# ``retain_grad()`` before ``backward()`` keeps an intermediate's gradient; no warning then.
# The gradient of ``sum(y)`` with respect to ``y`` is 1 everywhere:

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()  # fixed
y.sum().backward()  # fixed
torch.testing.assert_close(y.grad, torch.ones(2))
print("y.grad =", y.grad)  # fixed

model = torch.nn.Linear(2, 1)
output = model(torch.randn(4, 2))
output.retain_grad()  # fix: intermediate-result
(output**2).sum().backward()
torch.testing.assert_close(output.grad, 2 * output.detach())

# %%
# Or get it directly, without touching ``.grad`` at all:

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
(grad_y,) = torch.autograd.grad((y**2).sum(), y)
torch.testing.assert_close(grad_y, 2 * y.detach())
print("d loss / d y =", grad_y)

# %%
# Pitfall: ``retain_grad()`` on many large activations keeps them all in memory; prefer
# ``torch.autograd.grad`` or a hook (``y.register_hook(print)``) to inspect them.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: nonleaf-grad
