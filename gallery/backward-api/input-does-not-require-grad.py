"""
input-does-not-require-grad
===========================

.. autograd-entry:: input-does-not-require-grad

Constants are not in the graph
------------------------------

Autograd records an operation only if one of its inputs requires grad, and even then it
records edges only towards those inputs. A tensor that does not require grad is a constant to
autograd: its value may be saved for the backward pass, but no edge leads back to it, so there
is no node where a gradient for it could arrive.

``torch.autograd.grad(outputs, inputs)`` checks every tensor of ``inputs`` before running
anything, and refuses one that does not require grad. ``allow_unused=True`` does not change
that: it is about tensors that could have a gradient and got none.
"""

import torch

weight = torch.randn(3, requires_grad=True)
constant = torch.randn(3)
product = weight * constant
edges = [node.name() if node is not None else None for node, _ in product.grad_fn.next_functions]
print("MulBackward0 leads back to:", edges)

# %%
# The repro
# ---------
# A saliency map: the gradient of a model's score with respect to its input. The input was
# created like any batch of data, without ``requires_grad``:

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
images = torch.randn(2, 4)
score = model(images).sum()
try:
    torch.autograd.grad(score, images)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# An adversarial attack (FGSM) asks for the same gradient, for a perturbed copy of the data:

perturbed = images + 0.01 * torch.randn(2, 4)
try:
    torch.autograd.grad(model(perturbed).sum(), perturbed)  # cause: input-without-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Frozen parameters are constants too. Differentiating with respect to all of a partly frozen
# model's parameters fails, ``allow_unused=True`` or not:

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
model[0].requires_grad_(False)
loss = model(torch.randn(2, 4)).pow(2).mean()
parameters = list(model.parameters())
try:
    torch.autograd.grad(loss, parameters, allow_unused=True)  # cause: frozen-parameters
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The gradient penalty of WGAN-GP differentiates the critic at points between real and generated
# samples. Mixed from data and a detached generator output, those points require nothing:

critic = torch.nn.Linear(2, 1)
real, generated = torch.randn(5, 2), torch.randn(5, 2)
alpha = torch.rand(5, 1)
interpolates = alpha * real + (1 - alpha) * generated
scores = critic(interpolates)
seed = torch.ones_like(scores)
try:
    torch.autograd.grad(scores, interpolates, seed)  # cause: wgan-gp-interpolates
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: make the input require grad before the forward pass
# ----------------------------------------------------------
# ``images.requires_grad_()`` turns the batch into a leaf autograd tracks; the forward pass then
# records edges back to it. For ``w2 relu(w1 x + b1) + b2`` the gradient with respect to ``x``
# is ``w1.T (w2 * (h > 0))``, row by row:

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
images = torch.randn(2, 4).requires_grad_()  # fixed
score = model(images).sum()
(saliency,) = torch.autograd.grad(score, images)  # fixed

w1, b1, w2 = model[0].weight.detach(), model[0].bias.detach(), model[2].weight.detach()
active = (images.detach() @ w1.T + b1) > 0
torch.testing.assert_close(saliency, (w2 * active) @ w1)
print("saliency:\n", saliency)

# %%
# The same for an adversarial example: mark the perturbed copy before the forward pass. For a
# linear model the gradient of the summed output with respect to each row is the weight:

linear = torch.nn.Linear(4, 1)
perturbed = (images + 0.01 * torch.randn(2, 4)).requires_grad_()  # fix: input-without-grad
(input_grad,) = torch.autograd.grad(linear(perturbed).sum(), perturbed)
torch.testing.assert_close(input_grad, linear.weight.detach().expand(2, 4))

# %%
# Fix 2: differentiate only what you train
# ----------------------------------------
# With frozen parameters, pass the ones that require grad; they are what an optimizer would
# update anyway. Their gradients are the ones ``backward()`` accumulates:

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
model[0].requires_grad_(False)
batch = torch.randn(2, 4)
trainable = [p for p in model.parameters() if p.requires_grad]  # fix: frozen-parameters
grads = torch.autograd.grad(model(batch).pow(2).mean(), trainable)

model(batch).pow(2).mean().backward()
for g, parameter in zip(grads, trainable, strict=True):
    torch.testing.assert_close(g, parameter.grad)
print(len(grads), "gradients, for", [tuple(p.shape) for p in trainable])

# %%
# Fix 3: mark the interpolated points
# -----------------------------------
# The WGAN-GP recipe sets ``requires_grad`` on the interpolates right after mixing them. For a
# linear critic each row of the gradient is the critic's weight:

critic = torch.nn.Linear(2, 1)
real, generated = torch.randn(5, 2), torch.randn(5, 2)
alpha = torch.rand(5, 1)
mixed = alpha * real + (1 - alpha) * generated
interpolates = mixed.requires_grad_(True)  # fix: wgan-gp-interpolates
scores = critic(interpolates)
(gradients,) = torch.autograd.grad(scores, interpolates, grad_outputs=torch.ones_like(scores))
torch.testing.assert_close(gradients, critic.weight.detach().expand(5, 2))
print("gradients:\n", gradients)

# %%
# Pitfall: ``requires_grad_()`` after the forward pass
# ----------------------------------------------------
# Setting the flag once the output exists is too late. The forward pass recorded the input as a
# constant, and flipping the flag does not rewrite the graph: now the input requires grad but
# is not in the graph, which is another error,
# :doc:`/errors/backward-api/unused-input`.


def flag_set_too_late() -> str:
    model = torch.nn.Linear(4, 1)
    images = torch.randn(2, 4)
    score = model(images).sum()
    images.requires_grad_()
    try:
        torch.autograd.grad(score, images)
    except RuntimeError as error:
        return f"RuntimeError: {error}"
    return "no error"


print(flag_set_too_late())

# %%
# Unfreezing parameters to silence the error is no better: ``requires_grad_(True)`` on a
# frozen layer makes ``backward()`` fill its ``.grad`` from then on, and an optimizer that holds
# it starts updating the layer you meant to keep fixed.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: input-does-not-require-grad
