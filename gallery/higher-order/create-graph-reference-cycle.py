"""
create-graph-reference-cycle
============================

.. autograd-entry:: create-graph-reference-cycle

A gradient that remembers how it was made
-----------------------------------------

``create_graph=True`` asks backward to record its own computation, so that the gradient can be
differentiated again (a gradient penalty, a Hessian-vector product). The gradient is then a
result of the graph, with a ``grad_fn``, and that graph keeps what it needs: the backward of
``p * p`` is ``2 * p * grad``, so it keeps ``p``.

``backward()`` stores the gradient in ``p.grad``. Now ``p`` holds its gradient, the gradient
holds its graph, and the graph holds ``p``: a cycle. The references live in C++, where Python's
garbage collector cannot see them, so the cycle is never collected.
"""

import gc
import warnings
import weakref

import torch

# %%
# The repro
# ---------
# torch warns as soon as ``backward()`` runs with ``create_graph=True``, once per process; here it
# is made visible whatever the filters say:

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (p * p).sum().backward(create_graph=True)  # broken
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("p.grad:", p.grad.detach(), " p.grad.grad_fn:", type(p.grad.grad_fn).__name__)

# %%
# Two ways in
# -----------
# The warning is shown once per process; ``torch.set_warn_always(True)`` makes torch repeat it,
# so that each way in shows it here. The first: your own Hessian-vector product or gradient
# penalty, written with ``backward(create_graph=True)`` and then reading ``.grad``:

torch.set_warn_always(True)
v = torch.tensor([1.0, 0.5, 0.25])
p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    p.pow(3).sum().backward(create_graph=True)  # cause: backward-for-second-order
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
(hvp,) = torch.autograd.grad(p.grad, p, grad_outputs=v)

# %%
# The second: a library that computes curvature for you (Hessian eigenvalues, second-order
# optimisers) calls ``backward(create_graph=True)`` on your model, and leaves the gradients with
# their graph in ``.grad``. A stand-in for such a library:


def hessian_vector_product(model: torch.nn.Module, loss: torch.Tensor, vector: torch.Tensor):
    loss.backward(create_graph=True)
    (weight_grad,) = [param.grad for param in model.parameters()]
    return torch.autograd.grad(weight_grad, model.weight, grad_outputs=vector)[0]


model = torch.nn.Linear(3, 1, bias=False)
inputs = torch.randn(8, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss = model(inputs).pow(2).mean()
    curvature = hessian_vector_product(model, loss, torch.ones(1, 3))  # cause: curvature-library
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("model.weight.grad.grad_fn:", type(model.weight.grad.grad_fn).__name__)

# %%
# The leak is real
# ----------------
# A weak reference tells whether a parameter survives once nothing in Python refers to it. After
# ``backward(create_graph=True)``, it does: the cycle keeps it, its gradient and its graph alive.


def survives(create_graph: bool, reset_grad: bool) -> bool:
    parameter = torch.nn.Parameter(torch.randn(1000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # shown once above
        (parameter * parameter).sum().backward(create_graph=create_graph)
    if reset_grad:
        parameter.grad = None
    alive = weakref.ref(parameter)
    del parameter
    gc.collect()
    return alive() is not None


print("survives after backward(create_graph=True):", survives(True, False))
print("survives after a plain backward():", survives(False, False))
assert survives(True, False)
assert not survives(False, False)

# %%
# In a training loop that is one leaked copy of the model, its gradients and a graph per step,
# until memory runs out. The warning is shown once, so the next steps leak in silence.
#
# Fix 1: ``torch.autograd.grad``
# ------------------------------
# ``torch.autograd.grad`` returns the gradients instead of storing them in ``.grad``: no cycle.
# Here for a Hessian-vector product of :math:`f(p) = \sum p^3`, whose gradient is :math:`3p^2`
# and whose Hessian is :math:`\operatorname{diag}(6p)`:

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
v = torch.tensor([1.0, 0.5, 0.25])
(grad,) = torch.autograd.grad(p.pow(3).sum(), p, create_graph=True)  # fixed
(hvp,) = torch.autograd.grad(grad, p, grad_outputs=v)  # fixed
torch.testing.assert_close(grad.detach(), 3 * p.detach() ** 2)
torch.testing.assert_close(hvp, 6 * p.detach() * v)
print("p.grad:", p.grad, " Hv:", hvp)

# %%
# A gradient penalty written this way also leaves ``.grad`` to the final ``backward()``, which
# does not need ``create_graph``. For a linear model :math:`s = w \cdot x`, the penalty
# :math:`\|\partial s / \partial x\|^2 = \|w\|^2` has gradient :math:`2w`:

w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
x = torch.randn(3, requires_grad=True)
score = (w * x).sum()
(grad_x,) = torch.autograd.grad(score, x, create_graph=True)  # fix: backward-for-second-order
penalty = grad_x.pow(2).sum()
penalty.backward()
torch.testing.assert_close(w.grad, 2 * w.detach())
print("w.grad:", w.grad)

# %%
# Fix 2: reset ``.grad`` to ``None`` after use
# --------------------------------------------
# Some code needs the gradients in ``.grad`` with their graph: an optimizer that differentiates
# through them, a library that calls ``backward(create_graph=True)`` for you. Setting ``.grad`` to
# ``None`` once it has been used breaks the cycle; ``optimizer.zero_grad()`` does exactly that by
# default since torch 2.0. torch still warns: it cannot know that you will.

print("survives when .grad is reset:", survives(True, True))
assert not survives(True, True)

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
optimizer = torch.optim.SGD([p], lr=0.1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    p.pow(3).sum().backward(create_graph=True)
(hvp,) = torch.autograd.grad(p.grad, p, grad_outputs=v)
torch.testing.assert_close(hvp, 6 * p.detach() * v)
optimizer.step()
optimizer.zero_grad(set_to_none=True)  # fixed: the default since torch 2.0
assert p.grad is None

# %%
# After a curvature library's call, the same reset breaks the cycle. The Hessian of the mean
# squared output :math:`\frac{1}{n}\sum (w \cdot x_i)^2` is :math:`\frac{2}{n} X^\top X`:

model.zero_grad(set_to_none=True)  # fix: curvature-library
assert model.weight.grad is None
torch.testing.assert_close(curvature, torch.ones(1, 3) @ (2 * inputs.T @ inputs / len(inputs)))

# %%
# The pitfall: zeroing instead of resetting
# -----------------------------------------
# ``warnings.filterwarnings("ignore")`` hides the message, not the leak. Nor does zeroing the
# gradient by hand, as older training loops do (``p.grad.zero_()``, ``p.grad.data.zero_()``):
# the gradient keeps its ``grad_fn``, and the cycle stays. Only dropping the gradient
# (``p.grad = None``) or its graph (``p.grad.detach_()``, which ``zero_grad(set_to_none=False)``
# does) breaks it.


def survives_zeroed_by_hand() -> bool:
    parameter = torch.nn.Parameter(torch.randn(1000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (parameter * parameter).sum().backward(create_graph=True)
    parameter.grad.zero_()
    alive = weakref.ref(parameter)
    del parameter
    gc.collect()
    return alive() is not None


print("survives after p.grad.zero_():", survives_zeroed_by_hand())
assert survives_zeroed_by_hand()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: create-graph-reference-cycle
