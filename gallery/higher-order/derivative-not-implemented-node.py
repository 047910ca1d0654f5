"""
derivative-not-implemented-node
===============================

.. autograd-entry:: derivative-not-implemented-node

Backward kernels are operations too
-----------------------------------

``backward()`` computes gradients by calling backward kernels: the gradient of ``ctc_loss`` comes
from ``aten::_ctc_loss_backward``, that of ``multi_margin_loss`` from
``aten::multi_margin_loss_backward``. Normally these calls are not recorded. With
``create_graph=True`` they are: the gradient you get back is an ordinary result of the graph, so
that you can differentiate it again (a gradient penalty, a Hessian-vector product, the outer step
of meta-learning).

Recording a call needs a backward node for it, built from the operation's derivative formulas.
Many backward kernels have no formulas at all, so autograd records a ``NotImplemented`` node in
their place, which raises as soon as a second backward reaches it:
"""

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

log_probs = torch.randn(6, 2, 5, requires_grad=True)
targets = torch.tensor([[1, 2, 3], [2, 2, 4]])
lengths, target_lengths = torch.tensor([6, 6]), torch.tensor([3, 3])
loss = F.ctc_loss(log_probs.log_softmax(2), targets, lengths, target_lengths)
(grad,) = torch.autograd.grad(loss, log_probs, create_graph=True)
print("the gradient's grad_fn:", type(grad.grad_fn).__name__)
print("what it leads to:", [type(node).__name__ for node, _ in grad.grad_fn.next_functions])

# %%
# The repro
# ---------
# Differentiating that gradient:

log_probs = torch.randn(6, 2, 5, requires_grad=True)
loss = F.ctc_loss(log_probs.log_softmax(2), targets, lengths, target_lengths)
(grad,) = torch.autograd.grad(loss, log_probs, create_graph=True)  # broken
try:
    grad.pow(2).sum().backward()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The usual way in: a gradient penalty. The penalty is the squared norm of the loss's gradient
# with respect to the inputs; training on it needs its gradient with respect to the weights,
# which goes through the backward of the loss a second time. With a multi-class margin loss:

model = torch.nn.Linear(4, 3)
inputs = torch.randn(8, 4, requires_grad=True)
labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
loss = F.multi_margin_loss(model(inputs), labels)
(grad_inputs,) = torch.autograd.grad(loss, inputs, create_graph=True)
penalty = grad_inputs.pow(2).sum(1).mean()
try:
    (loss + penalty).backward()  # cause: loss-backward-kernel
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Today the most reported case is attention. ``F.scaled_dot_product_attention`` dispatches to a
# fused kernel (flash or memory-efficient attention, on the CPU as on a GPU) whose backward
# kernel has no derivative formula, so a gradient penalty, a Hessian-vector product or a
# second-order MAML step through a transformer stops there:

query = torch.randn(2, 4, 8, 16, requires_grad=True)
attended = F.scaled_dot_product_attention(query, query, query)
(grad_query,) = torch.autograd.grad(attended.sum(), query, create_graph=True)
try:
    grad_query.pow(2).sum().backward()  # cause: fused-attention
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A few forward operations have no formula at all, and fail at the first backward:
# ``torch.heaviside``, the step function of spiking networks, is one.

potential = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
spikes = torch.heaviside(potential, torch.tensor(0.0))
try:
    spikes.sum().backward()  # cause: forward-op-without-formula
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``grid_sample`` was the best-known case (StyleGAN2-ADA's R1 penalty):
# ``aten::grid_sampler_2d_backward`` had no formula up to torch 2.11, and has one from 2.12.0.
# When the operation has an entry in the table whose formula is only a placeholder, the
# message is worded differently: see :doc:`/errors/higher-order/derivative-not-implemented`.
#
# Fix 1: write the operation with differentiable pieces
# -----------------------------------------------------
# The margin loss is :math:`\frac{1}{C}\sum_{j \ne y} \max(0, 1 - s_y + s_j)`, averaged over
# the batch: a ``gather``, a ``clamp`` and a ``mean``, all of which autograd can differentiate as
# often as needed.


def margin_loss(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    true_scores = scores.gather(1, labels[:, None])
    hinge = (1 - true_scores + scores).clamp(min=0)
    hinge = hinge.scatter(1, labels[:, None], 0.0)  # no term for j == y
    return hinge.sum(1).div(scores.size(1)).mean()


model = torch.nn.Linear(4, 3).double()
inputs = torch.randn(8, 4, dtype=torch.float64, requires_grad=True)
torch.testing.assert_close(
    margin_loss(model(inputs), labels), F.multi_margin_loss(model(inputs), labels)
)

loss = margin_loss(model(inputs), labels)  # fixed
(grad_inputs,) = torch.autograd.grad(loss, inputs, create_graph=True)  # fix: loss-backward-kernel
penalty = grad_inputs.pow(2).sum(1).mean()
(loss + penalty).backward()  # fixed
print("weight.grad =", model.weight.grad)

# %%
# The check does not use double backward at all: central finite differences of the objective,
# computed with torch's own ``multi_margin_loss`` and first-order gradients only.


def objective(weight: torch.Tensor) -> torch.Tensor:
    x = inputs.detach().requires_grad_()
    loss = F.multi_margin_loss(F.linear(x, weight, model.bias), labels)
    (grad_x,) = torch.autograd.grad(loss, x)
    return loss.detach() + grad_x.pow(2).sum(1).mean()


step = 1e-6
numeric = torch.zeros_like(model.weight)
for index in range(model.weight.numel()):
    shift = torch.zeros_like(model.weight).view(-1)
    shift[index] = step
    shift = shift.view_as(model.weight)
    weight = model.weight.detach()
    numeric.view(-1)[index] = (objective(weight + shift) - objective(weight - shift)) / (2 * step)
torch.testing.assert_close(model.weight.grad, numeric)

# %%
# Fix 2: finite differences of first-order gradients
# --------------------------------------------------
# ``ctc_loss`` has no simple rewrite. Its first-order gradient works, though, and a
# Hessian-vector product is a directional derivative of that gradient, which a central
# difference of two gradients estimates without any double backward:


def ctc(log_probs: torch.Tensor) -> torch.Tensor:
    return F.ctc_loss(log_probs.log_softmax(2), targets, lengths, target_lengths)


def gradient(log_probs: torch.Tensor) -> torch.Tensor:
    log_probs = log_probs.detach().requires_grad_()
    (grad,) = torch.autograd.grad(ctc(log_probs), log_probs)
    return grad


point = torch.randn(6, 2, 5, dtype=torch.float64)
direction = torch.randn(6, 2, 5, dtype=torch.float64)
eps = 1e-5
hvp = (gradient(point + eps * direction) - gradient(point - eps * direction)) / (2 * eps)  # fixed

# %%
# Checked against a second difference of the loss itself, which needs no gradient at all:
# :math:`v^\top H v \approx (L(w + hv) - 2L(w) + L(w - hv)) / h^2`.

h = 1e-4
with torch.no_grad():
    curvature = (ctc(point + h * direction) - 2 * ctc(point) + ctc(point - h * direction)) / h**2
torch.testing.assert_close((direction * hvp).sum(), curvature, rtol=1e-4, atol=1e-6)
print(f"v.Hv = {curvature.item():.6f}")

# %%
# Fix 3: the math implementation of attention
# -------------------------------------------
# ``scaled_dot_product_attention`` also has an implementation made of ordinary operations, which
# autograd differentiates as often as needed. Select it around the forward pass that will be
# differentiated twice:

query = torch.randn(2, 4, 8, 16, dtype=torch.float64, requires_grad=True)
with sdpa_kernel(SDPBackend.MATH):  # fix: fused-attention
    attended = F.scaled_dot_product_attention(query, query, query)
(grad_query,) = torch.autograd.grad(attended.sum(), query, create_graph=True)
grad_query.pow(2).sum().backward()

# %%
# The check writes attention out by hand, :math:`\operatorname{softmax}(QK^\top/\sqrt{d})\,V`:

manual_query = query.detach().requires_grad_()
weights = (manual_query @ manual_query.transpose(-2, -1) / 16**0.5).softmax(-1)
(manual_grad,) = torch.autograd.grad(
    (weights @ manual_query).sum(), manual_query, create_graph=True
)
manual_grad.pow(2).sum().backward()
torch.testing.assert_close(query.grad, manual_query.grad)

# %%
# Fix 4: a surrogate gradient for a step function
# -----------------------------------------------
# A step function has a zero derivative almost everywhere, which is useless for training.
# Spiking networks keep the step in the forward pass and borrow a smooth function's derivative
# for the backward pass (a straight-through estimator), here a steep sigmoid's:

potential = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
smooth = torch.sigmoid(5 * potential)
step = torch.heaviside(potential.detach(), torch.tensor(0.0))
spikes = step + smooth - smooth.detach()  # fix: forward-op-without-formula
spikes.sum().backward()
torch.testing.assert_close(spikes.detach(), torch.tensor([0.0, 1.0, 1.0]))
sigmoid = torch.sigmoid(5 * potential.detach())
torch.testing.assert_close(potential.grad, 5 * sigmoid * (1 - sigmoid))

# %%
# The pitfall: a penalty that does nothing
# ----------------------------------------
# Dropping ``create_graph=True`` (or detaching the gradient) makes the error go away, and the
# penalty with it: it becomes a constant, and the weights get the gradient of the loss alone.

model = torch.nn.Linear(4, 3).double()
inputs = torch.randn(8, 4, dtype=torch.float64, requires_grad=True)
loss = F.multi_margin_loss(model(inputs), labels)
(grad_inputs,) = torch.autograd.grad(loss, inputs, retain_graph=True)  # no create_graph
penalty = grad_inputs.pow(2).sum(1).mean()
print("penalty.requires_grad:", penalty.requires_grad)
(loss + penalty).backward()
(loss_only,) = torch.autograd.grad(F.multi_margin_loss(model(inputs), labels), model.weight)
torch.testing.assert_close(model.weight.grad, loss_only)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: derivative-not-implemented-node
