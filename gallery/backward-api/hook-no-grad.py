"""
hook-no-grad
============

.. autograd-entry:: hook-no-grad

What a tensor hook is attached to
---------------------------------

``t.register_hook(fn)`` asks autograd to call ``fn`` with the gradient with respect to ``t``,
at the moment the backward pass computes it. The hook is kept in the graph: on the node that
produced ``t`` (its ``grad_fn``) or, for a leaf, on the node that accumulates into ``t.grad``.

A tensor that does not require grad has no such place: nothing will ever compute a gradient
with respect to it. Rather than accept a hook that could never run, torch refuses it. Tensors
that require grad are leaves created with ``requires_grad=True`` (parameters, say) and results
computed from them while grad mode is on; ``torch.no_grad()`` and frozen weights produce
results that do not.
"""

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.register_hook(lambda grad: print("gradient with respect to y:", grad))
(y * y).sum().backward()

# %%
# The repro
# ---------
# A hook on an input batch, which like any data does not require grad:

try:
    images = torch.randn(2, 4)  # cause: input-without-grad
    images.register_hook(print)  # cause: input-without-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Grad-CAM and its relatives keep the gradient of a layer's activations: a forward hook registers
# a tensor hook on the layer's output. Run the model under ``torch.no_grad()``, as evaluation
# code does, and the output does not require grad (``model.eval()`` alone would be fine: it
# changes dropout and batch norm, not grad mode):

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
activation_grads = []


def keep_gradient(module, inputs, output):
    output.register_hook(activation_grads.append)


handle = model[1].register_forward_hook(keep_gradient)
try:
    with torch.no_grad():  # broken
        model(torch.randn(2, 4))  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")
handle.remove()

# %%
# Evaluation loops are often decorated with ``@torch.no_grad()``, which hides the switch from
# the code that calls them:


@torch.no_grad()  # cause: activations-under-no-grad
def evaluate(model: torch.nn.Module, batch: torch.Tensor) -> torch.Tensor:
    return model(batch)


handle = model[1].register_forward_hook(keep_gradient)
try:
    evaluate(model, torch.randn(2, 4))  # cause: activations-under-no-grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")
handle.remove()

# %%
# Hooks on every parameter (gradient clipping or masking, pruning, logging) fail on frozen ones.
# ``register_post_accumulate_grad_hook`` (torch 2.1 and later) refuses them with the same
# message.

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
model[0].requires_grad_(False)
try:
    for parameter in model.parameters():  # cause: frozen-parameters
        parameter.register_hook(lambda grad: grad.clamp(-0.1, 0.1))  # cause: frozen-parameters
except RuntimeError as error:
    print(f"RuntimeError: {error}")

if hasattr(torch.Tensor, "register_post_accumulate_grad_hook"):  # torch 2.1 and later
    try:
        model[0].weight.register_post_accumulate_grad_hook(lambda parameter: None)
    except RuntimeError as error:
        print(f"RuntimeError: {error}")

# %%
# Fix 1: run the forward pass with grad enabled
# ---------------------------------------------
# Gradients of activations need a graph, so the pass that produces them cannot be under
# ``torch.no_grad()``. Drop the block; inside code that disables grad for you (an evaluation
# loop decorated with ``@torch.no_grad()``), turn it back on with ``torch.enable_grad()``. For
# ``sum(w2 h + b2)`` the gradient with respect to ``h`` is ``w2``, in every row:


@torch.no_grad()
def explain(model: torch.nn.Module, batch: torch.Tensor) -> None:
    with torch.enable_grad():  # fixed  # fix: activations-under-no-grad
        score = model(batch).sum()  # fixed  # fix: activations-under-no-grad
    score.backward()


model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
activation_grads = []
handle = model[1].register_forward_hook(keep_gradient)
explain(model, torch.randn(2, 4))  # fix: activations-under-no-grad
handle.remove()
torch.testing.assert_close(activation_grads[0], model[2].weight.detach().expand(2, 8))
print("activation gradient:\n", activation_grads[0])

# %%
# With every parameter frozen, the activations still require grad if the input does:
# ``images.requires_grad_()`` before the pass is enough.
#
# Fix 2: hook only what requires grad
# -----------------------------------
# A frozen parameter gets no gradient, so it needs no hook. Skip it; the trainable ones get their
# clipped gradient:

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
model[0].requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]  # fix: frozen-parameters
for parameter in trainable:  # fix: frozen-parameters
    parameter.register_hook(lambda grad: grad.clamp(-0.1, 0.1))  # fix: frozen-parameters
batch = torch.randn(2, 4)
(10 * model(batch)).sum().backward()

hidden = torch.relu(model[0](batch)).detach()
torch.testing.assert_close(
    model[2].weight.grad, (10 * hidden.sum(dim=0, keepdim=True)).clamp(-0.1, 0.1)
)
torch.testing.assert_close(model[2].bias.grad, torch.tensor([0.1]))
assert model[0].weight.grad is None
print("clipped gradient:", model[2].weight.grad)

# %%
# Fix 3: make the input require grad
# ----------------------------------
# To watch the gradient with respect to an input, mark it before using it. For a linear model
# the gradient of the summed output with respect to each row is the weight:

linear = torch.nn.Linear(4, 1)
images = torch.randn(2, 4).requires_grad_()  # fix: input-without-grad
seen = []
images.register_hook(seen.append)
linear(images).sum().backward()
torch.testing.assert_close(seen[0], linear.weight.detach().expand(2, 4))
print("gradient seen by the hook:\n", seen[0])

# %%
# Pitfall: ``requires_grad_()`` under ``torch.no_grad()``
# -------------------------------------------------------
# Under ``torch.no_grad()`` a layer's output is a leaf, so ``output.requires_grad_()`` is allowed
# and the hook registers. But the rest of the forward pass is still not recorded: the score has
# no graph, ``backward()`` fails (see :doc:`/errors/graph/no-grad-fn`), and the hook never runs.


def flag_under_no_grad() -> tuple[str, int]:
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    calls = []

    def force_and_keep(module, inputs, output):
        output.requires_grad_()
        output.register_hook(calls.append)

    model[1].register_forward_hook(force_and_keep)
    with torch.no_grad():
        score = model(torch.randn(2, 4)).sum()
    try:
        score.backward()
    except RuntimeError as error:
        return f"RuntimeError: {error}", len(calls)
    return "no error", len(calls)


message, calls = flag_under_no_grad()
print(message)
assert calls == 0
print("hook calls:", calls)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: hook-no-grad
