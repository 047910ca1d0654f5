"""
grad-shape-mismatch
===================

.. autograd-entry:: grad-shape-mismatch

The gradient you pass is a gradient *of the output*
---------------------------------------------------

``y.backward(gradient)`` starts the chain rule at ``y`` with ``gradient`` standing for
``dL/dy``, the derivative of some scalar ``L`` with respect to every element of ``y``. Each
backward node then multiplies it, element by element, by its local derivatives. So the gradient
must have exactly ``y``'s shape: element ``i`` of it belongs to element ``i`` of ``y``.
``torch.autograd.grad(outputs, inputs, grad_outputs)`` has the same rule, one ``grad_outputs``
tensor per output. Torch checks the shapes before anything runs.
"""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y.backward(torch.tensor([1.0, 10.0, 100.0]))  # dL/dy, one value per element of y
print("x.grad = 2 x * dL/dy =", x.grad)

# %%
# The repro
# ---------
# Code written for torch 0.3 seeded the backward pass of a GAN critic with ``one =
# torch.FloatTensor([1])`` (and ``mone = one * -1``). Since torch 0.4 a mean is a 0-dimensional
# tensor, shape ``[]``, and a ``[1]`` gradient no longer fits it:

critic = torch.nn.Linear(2, 1)
fake = torch.randn(8, 2)
loss = critic(fake).mean()
one = torch.tensor([1.0])
try:
    loss.backward(one)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Its twin, ``mone``, seeded the maximised term:

mone = one * -1
try:
    critic(fake).mean().backward(mone)  # cause: legacy-one-seed
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The same check applies to ``grad_outputs``. The critic's scores have shape ``[5, 1]``, and
# ``torch.ones(5)`` is not that shape:

critic = torch.nn.Linear(2, 1)
samples = torch.randn(5, 2, requires_grad=True)
scores = critic(samples)
try:
    torch.autograd.grad(scores, samples, grad_outputs=torch.ones(5))  # cause: grad-outputs-shape
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# With ``is_grads_batched=True`` the first dimension of each ``grad_outputs`` tensor counts the
# vectors, and the rest must match the output. Here the output has shape ``[3]`` and each of the
# two vectors has shape ``[4]``. Note that torch 2.13 prints the shape of the vectors one
# dimension short (``torch.Size([])`` instead of ``torch.Size([4])``):

x = torch.randn(3, requires_grad=True)
y = x * 2
short_rows = torch.ones(2, 4)
try:
    torch.autograd.grad(y, x, short_rows, is_grads_batched=True)  # cause: batched-vectors
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: a scalar needs no gradient
# ---------------------------------
# For a loss, call ``backward()`` with no argument; torch seeds it with ``1``, of the right shape.
# ``loss.backward(mone)`` meant "maximise the loss": write ``(-loss).backward()``. The gradient
# of ``mean(fake @ w.T + b)`` with respect to ``w`` is the mean of the samples:

critic = torch.nn.Linear(2, 1)
fake = torch.randn(8, 2)
loss = critic(fake).mean()
loss.backward()  # fixed
torch.testing.assert_close(critic.weight.grad, fake.mean(dim=0, keepdim=True))
print("critic.weight.grad =", critic.weight.grad)

critic.zero_grad()
loss = critic(fake).mean()
(-loss).backward()  # fix: legacy-one-seed
torch.testing.assert_close(critic.weight.grad, -fake.mean(dim=0, keepdim=True))
print("after (-loss).backward():", critic.weight.grad)

# %%
# Fix 2: build the gradient from the output
# -----------------------------------------
# ``torch.ones_like(output)`` has the output's shape by construction. For a linear critic, the
# gradient of each score with respect to its sample is the critic's weight:

critic = torch.nn.Linear(2, 1)
samples = torch.randn(5, 2, requires_grad=True)
scores = critic(samples)
seed = torch.ones_like(scores)  # fix: grad-outputs-shape
(gradients,) = torch.autograd.grad(scores, samples, grad_outputs=seed)
torch.testing.assert_close(gradients, critic.weight.detach().expand(5, 2))
print("gradients:\n", gradients)

# %%
# Fix 3: batched vectors are ``[batch, *output.shape]``
# -----------------------------------------------------
# With ``is_grads_batched=True``, stack one full-shape vector per row. The rows of the identity
# give the rows of the Jacobian, here twice the identity:

x = torch.randn(3, requires_grad=True)
y = x * 2
rows = torch.eye(3)  # fix: batched-vectors
(jacobian,) = torch.autograd.grad(y, x, grad_outputs=rows, is_grads_batched=True)
torch.testing.assert_close(jacobian, 2 * torch.eye(3))
print("Jacobian:\n", jacobian)

# %%
# Several outputs at once
# -----------------------
# With several outputs, check each ``(gradient, output)`` pair. The message names the first
# mismatching pair by its position, which torch finds by comparing your tensors with ``==``; when
# the culprit is not the first pair, that comparison may fail first, with an error about tensor
# sizes or about the truth value of a tensor instead of this message:


def mismatch_in_second_output() -> str:
    x = torch.randn(3, requires_grad=True)
    first, second = x * 2, x * 3
    try:
        torch.autograd.backward([first, second], [torch.ones(3), torch.ones(2)])
    except RuntimeError as error:
        return f"RuntimeError: {error}"
    return "no error"


print(mismatch_in_second_output())

outputs = [torch.zeros(3), torch.zeros(3)]
gradients = [torch.ones(3), torch.ones(2)]
for position, (gradient, output) in enumerate(zip(gradients, outputs, strict=True)):
    if gradient.shape != output.shape:
        print(f"pair {position}: gradient {list(gradient.shape)}, output {list(output.shape)}")

# %%
# Pitfall: a matching shape is not a matching layout
# --------------------------------------------------
# When the gradient comes from elsewhere (a hand-written chain rule, another framework) and has
# the right number of elements in another arrangement, ``reshape`` makes the shapes agree and
# the gradient wrong. Here ``upstream`` is ``dL/dy`` for ``y.T``: only the transpose puts each
# element in front of its own element of ``y``.

x = torch.randn(2, 3, requires_grad=True)
upstream = torch.randn(3, 2)  # dL/d(y.T)

y = 3 * x
y.backward(upstream.reshape(2, 3))  # runs, but pairs the wrong elements
reshaped_grad = x.grad.clone()

x.grad = None
y = 3 * x
y.backward(upstream.T)  # the same elements, each at its own place
torch.testing.assert_close(x.grad, 3 * upstream.T)
assert not torch.allclose(reshaped_grad, x.grad)
print("with reshape:  ", reshaped_grad)
print("with transpose:", x.grad)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: grad-shape-mismatch
