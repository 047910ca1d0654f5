"""
grad-is-none
============

.. autograd-entry:: grad-is-none

Which tensors get a ``.grad``
-----------------------------

``backward()`` walks the graph from the loss back to its leaves. It writes ``.grad`` in one
place only: the ``AccumulateGrad`` node of a leaf that requires grad. A tensor gets a gradient
if, and only if, it is such a leaf *and* the walk reaches its node. Everything else keeps
``.grad = None``, and in most cases nothing tells you so: an optimizer skips parameters whose
``.grad`` is None, and the model quietly stops learning them.

Below, each reason in turn, then its fix.
"""

import warnings

import torch

# %%
# 1. The tensor does not require grad
# -----------------------------------
# Only tensors created with ``requires_grad=True`` (and parameters) are tracked. A saliency map
# needs the gradient with respect to the *input*; without ``requires_grad`` on it, the backward
# pass stops at the weights and the input's ``.grad`` stays None, silently:

weight = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
image = torch.tensor([0.5, 0.5, 0.5])  # cause: input-without-requires-grad
(weight * image).sum().backward()
print("image.grad =", image.grad, " weight.grad =", weight.grad)
assert image.grad is None

# %%
# The same goes for a parameter frozen with ``requires_grad_(False)`` (fine-tuning only part of
# a model): its ``.grad`` stays None, which is the point of freezing it.
#
# **Fix**: ask for the gradient before the forward pass:

weight = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
image = torch.tensor([0.5, 0.5, 0.5]).requires_grad_()  # fix: input-without-requires-grad
(weight * image).sum().backward()
torch.testing.assert_close(image.grad, weight.detach())
print("image.grad =", image.grad)

# %%
# 2. The tensor is not a leaf
# ---------------------------
# ``requires_grad=True`` makes a leaf; any operation on it makes a new tensor, a non-leaf.
# A classic from-scratch initialisation scales the random weights *after* asking for gradients,
# so ``w`` is the output of a multiplication, and its ``.grad`` is never filled. Reading it is the
# one case that warns (:doc:`/errors/leaves/nonleaf-grad`):

w = torch.randn(2, 3, requires_grad=True) * 0.01  # broken
x = torch.ones(3)
(w @ x).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    grad = w.grad
print("w.is_leaf =", w.is_leaf, " w.grad =", grad)
assert grad is None
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message)[:80]}...")

# %%
# **Fix**: make the tensor you keep the leaf: scale first, then ``requires_grad_()``. The
# gradient of ``sum(w @ x)`` with respect to ``w`` is ``x`` on every row:

w = (torch.randn(2, 3) * 0.01).requires_grad_()  # fixed
(w @ x).sum().backward()
assert w.is_leaf
torch.testing.assert_close(w.grad, x.expand(2, 3))
print("w.grad =", w.grad)

# %%
# A bias made the same way, with ``* 1`` standing for any scaling or offset, is a non-leaf too;
# created as it will be used, then marked with ``requires_grad_()``, it gets its gradient, ones:

bias = torch.zeros(2, requires_grad=True) * 1  # cause: scaled-after-requires-grad
(w @ x + bias).sum().backward()
assert not bias.is_leaf
bias = torch.zeros(2).requires_grad_()  # fix: scaled-after-requires-grad
(w.detach() @ x + bias).sum().backward()
torch.testing.assert_close(bias.grad, torch.ones(2))

# %%
# If you did want an intermediate's gradient, call ``retain_grad()`` on it before
# ``backward()``, or get it with ``torch.autograd.grad``:

leaf = torch.randn(2, 3, requires_grad=True)
hidden = leaf * 0.01
hidden.retain_grad()
(hidden @ x).sum().backward()
torch.testing.assert_close(hidden.grad, x.expand(2, 3))
torch.testing.assert_close(leaf.grad, 0.01 * x.expand(2, 3))

# %%
# 3. The tensor was moved after ``requires_grad=True``
# ----------------------------------------------------
# ``torch.randn(3, requires_grad=True).cuda()`` (or ``.to(device)``, or ``.double()``) is an
# operation like any other: it returns a *copy*, produced by ``ToCopyBackward0``, so a non-leaf.
# The leaf is the original CPU tensor, which you no longer hold. ``.to(torch.float64)`` copies
# the same way, so it stands in for ``.cuda()`` here:

w = torch.randn(3, requires_grad=True).to(torch.float64)  # broken
(w * 2).sum().backward()
with warnings.catch_warnings(record=True):  # it warns as above
    warnings.simplefilter("always")
    grad = w.grad
print("w.is_leaf =", w.is_leaf, " w.grad_fn =", type(w.grad_fn).__name__, " w.grad =", grad)
assert grad is None

# %%
# ``.double()`` is such a copy too:

scale = torch.ones(3, requires_grad=True).double()  # cause: moved-after-requires-grad
(scale * 2).sum().backward()  # cause: moved-after-requires-grad
assert not scale.is_leaf

# %%
# The gradient was computed: it went through ``ToCopyBackward0`` into the original leaf, which
# only the graph still references:

original = w.grad_fn.next_functions[0][0].variable
print("the original leaf:", original.dtype, " its grad:", original.grad)
torch.testing.assert_close(original.grad, torch.full((3,), 2.0))

# %%
# This bug hides on a CPU-only machine: when the tensor is already where ``.to()`` sends it,
# ``.to()`` returns the tensor itself, still a leaf. The same code breaks only on the GPU:

leaf = torch.randn(3, requires_grad=True)
assert leaf.to("cpu") is leaf
assert leaf.to(torch.float32).is_leaf

# %%
# **Fix**: create the tensor where it will live, with ``requires_grad`` in the same call, or
# call ``requires_grad_()`` after the move:

device, dtype = "cpu", torch.float64
w = torch.randn(3, device=device, dtype=dtype, requires_grad=True)  # fixed
v = torch.randn(3).to(device=device, dtype=dtype).requires_grad_()  # fixed
(w * 2 + v * 3).sum().backward()
torch.testing.assert_close(w.grad, torch.full((3,), 2.0, dtype=dtype))
torch.testing.assert_close(v.grad, torch.full((3,), 3.0, dtype=dtype))
print("w.grad =", w.grad, " v.grad =", v.grad)

scale = torch.ones(3).double().requires_grad_()  # fix: moved-after-requires-grad
(scale * 2).sum().backward()
torch.testing.assert_close(scale.grad, torch.full((3,), 2.0, dtype=torch.float64))

# %%
# Modules do not have this problem: ``model.to(...)`` gives each parameter new data but keeps
# the parameter object, so the parameters stay the same leaves (and an optimizer built before
# the move still holds them):

model = torch.nn.Linear(3, 1)
weight_before = model.weight
model.to(torch.float64)
assert model.weight is weight_before
assert model.weight.is_leaf
inputs = torch.randn(4, 3, dtype=torch.float64)
model(inputs).sum().backward()
torch.testing.assert_close(model.weight.grad, inputs.sum(0, keepdim=True))

# %%
# 4. The loss does not depend on the tensor
# -----------------------------------------
# A parameter the forward pass never used, or used only through ``detach()`` or under
# ``torch.no_grad()``, is not in the graph: the walk never reaches it. Here a model has two
# heads, and the loss uses only one of them; a third tensor enters the loss through ``detach()``:

trunk = torch.nn.Linear(3, 4)
head_a, head_b = torch.nn.Linear(4, 1), torch.nn.Linear(4, 1)
scale = torch.tensor(2.0, requires_grad=True)
features = trunk(torch.randn(5, 3))
loss = head_a(features).sum() * scale.detach()  # cause: not-in-graph
loss.backward()
print("head_b.weight.grad =", head_b.weight.grad, " scale.grad =", scale.grad)
assert head_b.weight.grad is None
assert scale.grad is None
assert head_a.weight.grad is not None
assert trunk.weight.grad is not None

# %%
# **Fix**: find such parameters after the first backward, then decide: connect them, freeze
# them, or leave them out of the optimizer. (``DistributedDataParallel`` needs
# ``find_unused_parameters=True`` for the same reason.)

modules = {"trunk": trunk, "head_a": head_a, "head_b": head_b}
unused = [  # fix: not-in-graph
    f"{module_name}.{name}"
    for module_name, module in modules.items()
    for name, parameter in module.named_parameters()
    if parameter.requires_grad and parameter.grad is None
]
print("parameters without a gradient:", unused)
assert unused == ["head_b.weight", "head_b.bias"]

# %%
# To get zeros instead of None for an input that may be unused, ask ``torch.autograd.grad``
# with ``allow_unused=True`` and ``materialize_grads=True``:

features = trunk(torch.randn(5, 3))
loss = head_a(features).sum()
grad_a, grad_b = torch.autograd.grad(
    loss, [head_a.weight, head_b.weight], allow_unused=True, materialize_grads=True
)
torch.testing.assert_close(grad_b, torch.zeros_like(head_b.weight))
torch.testing.assert_close(grad_a, features.detach().sum(0, keepdim=True))

# %%
# 5. ``zero_grad()`` ran after ``backward()``
# -------------------------------------------
# Since torch 2.0, ``optimizer.zero_grad()`` and ``model.zero_grad()`` set ``.grad`` to None
# (``set_to_none=True`` became the default, `PR #92731
# <https://github.com/pytorch/pytorch/pull/92731>`__). Code that reads gradients after the
# step's ``zero_grad()`` (to log their norms, clip them) finds None, and code that adds into
# them (``p.grad += extra``) raises a ``TypeError``; written for 1.x, it found zeros:

optimizer = torch.optim.SGD(head_a.parameters(), lr=0.1)
head_a(torch.randn(2, 4)).sum().backward()
optimizer.step()
optimizer.zero_grad()  # cause: zero-grad-sets-none
logged = [parameter.grad for parameter in head_a.parameters()]  # cause: zero-grad-sets-none
print("gradients logged after zero_grad():", logged)
assert all(grad is None for grad in logged)

# %%
# **Fix**: read the gradients between ``backward()`` and ``zero_grad()``; where zeros are
# needed (code that adds into ``.grad``), ask for them with ``set_to_none=False``. The gradient
# of ``sum(W h + b)`` with respect to ``W`` is the column sums of ``h`` on every row:

features = torch.randn(2, 4)
head_a(features).sum().backward()
weight_norm = torch.linalg.vector_norm(head_a.weight.grad)  # fix: zero-grad-sets-none
optimizer.step()
optimizer.zero_grad(set_to_none=False)  # fix: zero-grad-sets-none
expected = features.sum(0).expand_as(head_a.weight)
torch.testing.assert_close(weight_norm, torch.linalg.vector_norm(expected))
torch.testing.assert_close(head_a.weight.grad, torch.zeros_like(head_a.weight))

# %%
# 6. The loss was re-wrapped as a new tensor
# -------------------------------------------
# ``torch.tensor(loss.item(), requires_grad=True)`` makes a new leaf holding the loss's value,
# with no history. Written to silence an error about ``requires_grad`` (see
# :doc:`/errors/graph/no-grad-fn`), it lets ``backward()`` run, and reach nothing: every
# parameter keeps ``.grad = None``:

model = torch.nn.Linear(3, 1)
inputs = torch.randn(4, 3)
loss = model(inputs).pow(2).mean()
rewrapped = torch.tensor(loss.item(), requires_grad=True)  # cause: loss-rewrapped
rewrapped.backward()  # cause: loss-rewrapped
assert model.weight.grad is None
assert model.bias.grad is None
print("after backward() on the re-wrapped loss: model.weight.grad =", model.weight.grad)

# %%
# Setting ``requires_grad`` on a loss computed without a graph (here under ``no_grad``, as in an
# evaluation helper reused for training) does the same:

with torch.no_grad():
    detached_loss = model(inputs).pow(2).mean()
detached_loss.requires_grad = True  # cause: loss-rewrapped
detached_loss.backward()  # cause: loss-rewrapped
assert model.weight.grad is None

# %%
# **Fix**: call ``backward()`` on the loss the model computed. The gradient of
# ``mean((W x + b) ** 2)`` with respect to ``b`` is twice the mean output:

loss = model(inputs).pow(2).mean()
loss.backward()  # fix: loss-rewrapped
torch.testing.assert_close(model.bias.grad, 2 * model(inputs).detach().mean(0))

# %%
# 7. The parameter was replaced after the optimizer was built
# -----------------------------------------------------------
# Fine-tuning code often swaps a model's head after building the optimizer. The new layer gets
# gradients, but the optimizer holds the parameters of the old one, which the forward pass no
# longer uses: their ``.grad`` stays None, the optimizer skips them, and the new head never
# moves:

model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model[1] = torch.nn.Linear(4, 5)  # cause: replaced-after-optimizer
head_before = model[1].weight.detach().clone()
model(torch.randn(2, 3)).sum().backward()
optimizer.step()
held = optimizer.param_groups[0]["params"]
assert all(p.grad is None for p in held[2:])  # the old head's weight and bias
assert torch.equal(model[1].weight.detach(), head_before)  # the new head did not move
print("new head moved:", not torch.equal(model[1].weight.detach(), head_before))

# %%
# **Fix**: build the optimizer after the model's last change. The new head then moves by
# ``-lr`` times its gradient, which for ``sum(head(h))`` is the column sums of ``h``:

model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
model[1] = torch.nn.Linear(4, 5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # fix: replaced-after-optimizer
head_before = model[1].weight.detach().clone()
inputs = torch.randn(2, 3)
hidden = model[0](inputs).detach()
model(inputs).sum().backward()
optimizer.step()
expected_grad = hidden.sum(0).expand(5, 4)
torch.testing.assert_close(model[1].weight.grad, expected_grad)
torch.testing.assert_close(model[1].weight.detach(), head_before - 0.1 * expected_grad)

# %%
# .. autograd-entry-footer:: grad-is-none
