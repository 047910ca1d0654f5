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
