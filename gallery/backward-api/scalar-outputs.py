"""
scalar-outputs
==============

.. autograd-entry:: scalar-outputs

What ``backward()`` computes
----------------------------

The backward pass never builds a Jacobian. Going backwards from an output ``y``, every node
multiplies the gradient it receives by its local derivative, so what reaches a leaf ``x`` is a
*vector-Jacobian product*: ``x.grad = v @ dy/dx``, for a vector ``v`` with the shape of ``y``.
That ``v`` is the ``gradient`` argument of ``y.backward(gradient)`` (``grad_outputs`` in
``torch.autograd.grad``): it says how much each element of ``y`` matters.

When ``y`` is a single number, such as a loss, ``v = 1`` and ``v @ dy/dx`` is the ordinary
gradient, so torch creates that ``1`` for you. When ``y`` has several elements there is no
single gradient, one per element instead (the rows of the Jacobian), and torch will not guess
how to weigh them.
"""

import torch
import torch.nn.functional as F

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y.backward(torch.tensor([1.0, 0.0, 0.0]))  # v picks the first element of y
print("gradient of y[0] only:", x.grad)

# %%
# The repro
# ---------
# ``backward()`` with no argument, on a tensor of three elements:

x = torch.randn(3, requires_grad=True)
y = x * 2
try:
    y.backward()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The usual way to get there is a loss that was never reduced: ``reduction="none"`` keeps one
# loss per sample. Another is ``nn.DataParallel`` when the loss is computed inside the model: it
# gathers one loss per GPU into a vector.

predictions = torch.randn(4, requires_grad=True)
targets = torch.randn(4)
try:
    loss = F.mse_loss(predictions, targets, reduction="none")  # cause: unreduced-loss
    print("loss shape:", tuple(loss.shape))
    loss.backward()  # cause: unreduced-loss
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``nn.DataParallel`` runs the model on each GPU and gathers the outputs along dimension 0: a
# loss computed inside the model comes back as one value per GPU. This page runs without GPUs,
# so two replicas' losses are stacked by hand, as the gather does:

weights = torch.randn(3, requires_grad=True)
replica_losses = [(weights * torch.randn(3)).sum().pow(2) for _ in range(2)]
gathered = torch.stack(replica_losses)  # what nn.DataParallel(model)(batch) returns: shape [2]
try:
    gathered.backward()  # cause: dataparallel-gathered-losses
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``torch.autograd.grad`` creates its ``grad_outputs`` the same way. A gradient penalty (WGAN-GP)
# differentiates one critic score per sample with respect to the samples, and needs them:

critic = torch.nn.Linear(2, 1)
samples = torch.randn(5, 2, requires_grad=True)
scores = critic(samples)
try:
    torch.autograd.grad(scores, samples)  # cause: per-sample-outputs
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: reduce to the scalar you want to minimise
# ------------------------------------------------
# A training loss is a mean (or a sum) over samples. For the mean squared error over four
# samples the gradient is ``2 (p - t) / 4``:

predictions = torch.randn(4, requires_grad=True)
targets = torch.randn(4)
loss = torch.nn.functional.mse_loss(predictions, targets, reduction="none")
loss.mean().backward()  # fixed
torch.testing.assert_close(predictions.grad, 2 * (predictions.detach() - targets) / 4)
print("predictions.grad =", predictions.grad)

# %%
# Or leave the reduction to the loss function, whose default is the mean:

predictions = torch.randn(4, requires_grad=True)
loss = F.mse_loss(predictions, targets)  # fix: unreduced-loss
loss.backward()
torch.testing.assert_close(predictions.grad, 2 * (predictions.detach() - targets) / 4)

# %%
# Under ``nn.DataParallel``, reduce the gathered per-GPU losses the same way. The gradient of the
# mean of the two losses is the mean of their gradients:

replica_grads = [
    torch.autograd.grad(loss, weights, retain_graph=True)[0] for loss in replica_losses
]
gathered.mean().backward()  # fix: dataparallel-gathered-losses
torch.testing.assert_close(weights.grad, (replica_grads[0] + replica_grads[1]) / 2)
# %%
# Fix 2: pass the vector yourself
# -------------------------------
# When the per-element gradients are what you want and the samples are independent, pass
# ``torch.ones_like(output)``: it differentiates ``output.sum()``, and since sample ``i``'s score
# depends only on sample ``i``, row ``i`` of the result is that sample's gradient. For a linear
# critic every row is the critic's weight:

critic = torch.nn.Linear(2, 1)
samples = torch.randn(5, 2, requires_grad=True)
scores = critic(samples)
ones = torch.ones_like(scores)
(gradients,) = torch.autograd.grad(scores, samples, grad_outputs=ones)  # fix: per-sample-outputs
torch.testing.assert_close(gradients, critic.weight.detach().expand(5, 2))
print("per-sample gradients:\n", gradients)

# %%
# That works for the *inputs* only, each of which belongs to one sample. A parameter is shared
# by all samples: with ``torch.ones_like``, its gradient is the sum over samples, not one per
# sample. Per-sample gradients of parameters (differential privacy, influence estimates) come
# from ``torch.func``: ``vmap`` over the samples of ``grad`` of one sample's loss. For the
# critic's weight, sample ``i``'s gradient of its score is the sample itself:

params = {name: p.detach() for name, p in critic.named_parameters()}


def score_of_one(params, sample):
    return torch.func.functional_call(critic, params, (sample,)).squeeze()


per_sample = torch.func.vmap(torch.func.grad(score_of_one), in_dims=(None, 0))(params, samples)
torch.testing.assert_close(per_sample["weight"], samples.detach()[:, None, :])
critic.zero_grad()
scores = critic(samples)
scores.backward(torch.ones_like(scores))
torch.testing.assert_close(critic.weight.grad, samples.detach().sum(0, keepdim=True))
print("summed, not per sample:", critic.weight.grad)

# %%
# Fix 3: ask for the Jacobian
# ---------------------------
# To get the derivative of every output element with respect to every input element, ask for
# the Jacobian: ``torch.func.jacrev`` (or ``torch.autograd.functional.jacobian``) runs one
# vector-Jacobian product per row. The Jacobian of ``2 x`` is twice the identity:

x = torch.randn(3)
jacobian = torch.func.jacrev(lambda t: t * 2)(x)
torch.testing.assert_close(jacobian, 2 * torch.eye(3))
print("Jacobian:\n", jacobian)

# %%
# Complex outputs
# ---------------
# A complex scalar is one element but two real numbers, and a gradient is only defined for a
# real-valued function: minimising a complex number means nothing. Current torch refuses to
# start ``backward()`` from one (torch 1.13 silently differentiated its real part instead):

z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
try:
    complex_loss = (z * z).sum()  # cause: complex-output
    complex_loss.backward()  # cause: complex-output
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 4: make a complex computation end in a real loss
# ----------------------------------------------------
# Decide which real number you minimise: a squared magnitude, a distance, the real part. For
# ``L = sum |z|^2`` torch's convention gives ``dL/dRe(z) + i dL/dIm(z) = 2 z``:

z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
real_loss = (z.abs() ** 2).sum()  # fix: complex-output
real_loss.backward()
torch.testing.assert_close(z.grad, 2 * z.detach())
print("z.grad =", z.grad)

# %%
# What torch 1.13 did silently is ``(z * z).sum().real.backward()``: the gradient of the real
# part, ``2 conj(z)``. If that is the quantity you want, write ``.real`` explicitly.

z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
(z * z).sum().real.backward()
torch.testing.assert_close(z.grad, 2 * z.detach().conj())
print("gradient of the real part =", z.grad)

# %%
# Pitfall: ``torch.ones_like`` is the gradient of the sum, not of the mean
# ------------------------------------------------------------------------
# ``loss.backward(torch.ones_like(loss))`` silences the error on a per-sample loss, and
# differentiates ``loss.sum()``: the gradient is as many times larger as there are samples, so
# the effective learning rate now depends on the batch size.

predictions = torch.randn(4, requires_grad=True)
targets = torch.randn(4)
loss = torch.nn.functional.mse_loss(predictions, targets, reduction="none")
loss.backward(torch.ones_like(loss))
mean_gradient = 2 * (predictions.detach() - targets) / 4
torch.testing.assert_close(predictions.grad, 4 * mean_gradient)
print("gradient of the sum: ", predictions.grad)
print("gradient of the mean:", mean_gradient)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: scalar-outputs
