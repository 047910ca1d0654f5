"""
grad-accumulates
================

.. autograd-entry:: grad-accumulates

Where ``.grad`` is written
--------------------------

Each leaf that requires grad (a parameter, or a tensor you created with
``requires_grad=True``) is represented in the graph by an ``AccumulateGrad`` node. When
``backward()`` reaches that node it does what the name says: if ``.grad`` is None it stores the
incoming gradient there, otherwise it *adds* it to ``.grad``. Nothing in ``backward()`` ever
resets ``.grad``; that is the job of whoever calls it.
"""

import torch

x = torch.tensor([1.0, 1.0], requires_grad=True)
y = (x * 3).sum()
mul_node = y.grad_fn.next_functions[0][0]
leaf_node = mul_node.next_functions[0][0]
print(" -> ".join(type(node).__name__ for node in (y.grad_fn, mul_node, leaf_node)))
assert leaf_node.variable is x  # the node that writes x.grad

# %%
# The pitfall
# -----------
# The notes' example: ``y = 0.5 * x . x`` has gradient ``x``, which is ``[1, 1]`` here;
# ``g = 2 * x`` has gradient ``[2, 2]`` for ``g.sum()``. Two backward calls in a row leave
# ``[3, 3]`` in ``x.grad``: the gradient of ``y + g.sum()``, not of either one:

x = torch.tensor([1.0, 1.0], requires_grad=True)
y = torch.dot(x, x) * 0.5
g = 2 * x
y.backward()  # broken  # cause: second-backward
print("after y.backward():      x.grad =", x.grad)
g.sum().backward()  # broken  # cause: second-backward
assert x.grad is not None
print("after g.sum().backward(): x.grad =", x.grad)  # broken
torch.testing.assert_close(x.grad, torch.tensor([3.0, 3.0]))

# %%
# In a training loop the same thing happens when ``zero_grad()`` is forgotten: the second step
# uses the sum of the first two batches' gradients. For ``loss = sum(w * batch)`` the gradient
# is the batch itself, so it is easy to check:

w = torch.nn.Parameter(torch.zeros(3))
optimizer = torch.optim.SGD([w], lr=0.1)
batches = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([10.0, 20.0, 30.0])]
for batch in batches:
    loss = (w * batch).sum()  # cause: missing-zero-grad
    loss.backward()  # cause: missing-zero-grad
    optimizer.step()
print("gradient used by the second step:", w.grad)
torch.testing.assert_close(w.grad, batches[0] + batches[1])
# Each step moved w by -lr * (sum of all gradients so far): -0.1 * (b0) - 0.1 * (b0 + b1).
torch.testing.assert_close(w.detach(), -0.1 * batches[0] - 0.1 * (batches[0] + batches[1]))

# %%
# Fix 1: clear the gradient before each backward pass
# ---------------------------------------------------
# For a plain tensor, set ``x.grad = None`` (or ``x.grad.zero_()``, which keeps the buffer):

x = torch.tensor([1.0, 1.0], requires_grad=True)
y = torch.dot(x, x) * 0.5
g = 2 * x
y.backward()  # fixed
torch.testing.assert_close(x.grad, x.detach())
print("gradient of y:      ", x.grad)
x.grad = None  # fixed
g.sum().backward()  # fixed
torch.testing.assert_close(x.grad, torch.tensor([2.0, 2.0]))
print("gradient of g.sum():", x.grad)  # fixed

# %%
# In a training loop, call ``optimizer.zero_grad()`` once per step, before ``backward()``. Each
# step then uses its own batch's gradient:

w = torch.nn.Parameter(torch.zeros(3))
optimizer = torch.optim.SGD([w], lr=0.1)
for batch in batches:
    optimizer.zero_grad()  # fix: missing-zero-grad
    loss = (w * batch).sum()
    loss.backward()
    torch.testing.assert_close(w.grad, batch)
    optimizer.step()
torch.testing.assert_close(w.detach(), -0.1 * (batches[0] + batches[1]))
print("w after two clean steps:", w.detach())

# %%
# Since torch 2.0, ``zero_grad()`` sets ``.grad`` to None rather than filling it with zeros
# (``set_to_none=True``): it frees the memory, and the next ``backward()`` stores rather than
# adds. The consequence is that ``.grad`` really is None between ``zero_grad()`` and
# ``backward()``: code that reads it there (logging a gradient norm, say) must expect it. See
# :doc:`/errors/pitfalls/grad-is-none`.

optimizer.zero_grad()
if int(torch.__version__.split(".")[0]) >= 2:
    assert w.grad is None
else:  # torch 1.x filled the gradient with zeros
    assert not w.grad.any()
print("after zero_grad(): w.grad =", w.grad)

# %%
# Fix 2: ask for the gradient instead of reading ``.grad``
# --------------------------------------------------------
# ``torch.autograd.grad`` returns the gradients and leaves ``.grad`` alone, so nothing can
# accumulate. Useful for a gradient you need on the side (a penalty, a diagnostic):

x = torch.tensor([1.0, 1.0], requires_grad=True)
y = torch.dot(x, x) * 0.5
g = 2 * x
(grad_y,) = torch.autograd.grad(y, x)  # fix: second-backward
(grad_g,) = torch.autograd.grad(g.sum(), x)  # fix: second-backward
torch.testing.assert_close(grad_y, torch.tensor([1.0, 1.0]))
torch.testing.assert_close(grad_g, torch.tensor([2.0, 2.0]))
assert x.grad is None
print("grad of y:", grad_y, " grad of g.sum():", grad_g, " x.grad:", x.grad)

# %%
# When accumulation is what you want
# ----------------------------------
# Accumulation is a feature: it is how one step can use more samples than fit in memory at
# once. Run ``backward()`` on several micro-batches and step once. The gradient of a sum of
# losses is the sum of their gradients, so if the loss is a mean over the batch, divide each
# micro-batch's loss by the number of micro-batches: with micro-batches of equal size, the
# accumulated gradient is then exactly the full batch's.

model = torch.nn.Linear(3, 1, dtype=torch.float64)
inputs = torch.randn(8, 3, dtype=torch.float64)
targets = torch.randn(8, 1, dtype=torch.float64)

model.zero_grad()
torch.nn.functional.mse_loss(model(inputs), targets).backward()
full_batch = [p.grad.clone() for p in model.parameters()]

micro_batches = 4
parts = list(zip(inputs.chunk(micro_batches), targets.chunk(micro_batches), strict=True))
model.zero_grad()
for part_inputs, part_targets in parts:
    loss = torch.nn.functional.mse_loss(model(part_inputs), part_targets)
    (loss / micro_batches).backward()  # accumulates into .grad on purpose
for parameter, expected in zip(model.parameters(), full_batch, strict=True):
    torch.testing.assert_close(parameter.grad, expected)
print("accumulated over 4 micro-batches == full batch:", [tuple(g.shape) for g in full_batch])

# %%
# Dividing by the number of micro-batches is exact only because the four micro-batches are the
# same size. Split 8 samples into 3, 3 and 2 (what ``chunk(3)`` gives, and what a last, smaller
# batch looks like), and the two samples of the last micro-batch weigh as much as three: the
# accumulated gradient is no longer the full batch's:

uneven = list(zip(inputs.chunk(3), targets.chunk(3), strict=True))
assert [len(part) for part, _ in uneven] == [3, 3, 2]
model.zero_grad()
for part_inputs, part_targets in uneven:
    loss = torch.nn.functional.mse_loss(model(part_inputs), part_targets)
    (loss / len(uneven)).backward()  # cause: uneven-micro-batches
assert not torch.allclose(model.weight.grad, full_batch[0])
print("divided by 3, uneven sizes:", model.weight.grad, " full batch:", full_batch[0])

# %%
# Weighting each micro-batch's mean loss by its share of the samples gives the full batch's
# gradient exactly, whatever the sizes:

model.zero_grad()
for part_inputs, part_targets in uneven:
    loss = torch.nn.functional.mse_loss(model(part_inputs), part_targets)
    (loss * len(part_inputs) / len(inputs)).backward()  # fix: uneven-micro-batches
for parameter, expected in zip(model.parameters(), full_batch, strict=True):
    torch.testing.assert_close(parameter.grad, expected)

# %%
# Forgetting the division gives ``micro_batches`` times the gradient, as if the learning rate
# had been multiplied by 4:

model.zero_grad()
for part_inputs, part_targets in parts:
    torch.nn.functional.mse_loss(model(part_inputs), part_targets).backward()
torch.testing.assert_close(model.weight.grad, micro_batches * full_batch[0])
torch.testing.assert_close(model.bias.grad, micro_batches * full_batch[1])

# %%
# .. autograd-entry-footer:: grad-accumulates
