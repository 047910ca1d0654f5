"""
unused-input
============

.. autograd-entry:: unused-input

How ``torch.autograd.grad`` finds its inputs
--------------------------------------------

``torch.autograd.grad(outputs, inputs)`` runs the backward pass from ``outputs`` and collects
the gradient arriving at each of ``inputs``. It finds an input through the graph: a leaf by its
``AccumulateGrad`` node, any other tensor by its ``grad_fn`` and output number. Before running,
torch marks the part of the graph that leads from the outputs to those nodes; an input whose
node the outputs never reach gets no gradient at all, not even a zero one.

Torch treats that as a likely mistake: asking for the derivative of a loss with respect to
something the loss was not computed from usually means the loss was computed from something
else, such as a copy.
"""

import torch


def show_graph(node, depth=0):
    """Print the backward graph from ``node``, one node per line."""
    print("    " * depth + node.name())
    for next_node, _ in node.next_functions:
        if next_node is not None:
            show_graph(next_node, depth + 1)


x = torch.randn(3, requires_grad=True)
other = torch.randn(3, requires_grad=True)
out = (x * 2).sum()
show_graph(out.grad_fn)
accumulate = out.grad_fn.next_functions[0][0].next_functions[0][0]
print("the AccumulateGrad node is x's:", accumulate.variable is x)

# %%
# The repro
# ---------
# ``other`` requires grad, but ``out`` was not computed from it:

x = torch.randn(3, requires_grad=True)
other = torch.randn(3, requires_grad=True)
out = (x * 2).sum()
try:
    torch.autograd.grad(out, [x, other])
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Meta-learning (MAML and its relatives) meets it when the second loss is computed with the
# original parameters instead of the adapted "fast weights": the fast weights are new tensors,
# and the graph of the second loss, ``model(data)``, never goes through them.

model = torch.nn.Linear(3, 1)
data = torch.randn(4, 3)
inner_loss = model(data).pow(2).mean()
grads = torch.autograd.grad(inner_loss, list(model.parameters()), create_graph=True)
fast_weight, fast_bias = (p - 0.1 * g for p, g in zip(model.parameters(), grads, strict=True))
outer_loss = model(data).pow(2).mean()  # broken
try:
    torch.autograd.grad(outer_loss, [fast_weight, fast_bias])  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# In a real MAML step the outer loss is computed on the task's query set, with the same mistake:

query = torch.randn(4, 3)
try:
    query_loss = model(query).pow(2).mean()  # cause: maml-fast-weights
    torch.autograd.grad(query_loss, [fast_weight, fast_bias])  # cause: maml-fast-weights
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Or a model with a layer this loss does not use, an auxiliary head say, differentiated with
# respect to all of its parameters:


class WithAuxiliaryHead(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Linear(3, 3)
        self.head = torch.nn.Linear(3, 1)
        self.auxiliary = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.body(x)))


net = WithAuxiliaryHead()
loss = net(torch.randn(4, 3)).sum()
try:
    torch.autograd.grad(loss, list(net.parameters()))  # cause: unused-submodule
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Or the path from the input to the output was cut by a ``.detach()``. The input is still a leaf
# that requires grad, but the output no longer leads back to it:

x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
cut = (x.detach() * w).sum()
try:
    torch.autograd.grad(cut, [w, x])  # cause: cut-path
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Finding the culprit
# -------------------
# Since torch 2.13 the message gives the position of the unused tensor in ``inputs`` (older
# releases say "One of the differentiated Tensors"). With parameters, look the position up in
# the same order:

names = [name for name, _ in net.named_parameters()]
print("input 4 is", names[4])

# %%
# On older releases, ask which parameters the loss reaches: with ``allow_unused=True`` the
# unreached ones get ``None``. Compute the loss again first: torch raises this error only after
# running the backward pass, which has freed the graph (asking again would raise
# :doc:`/errors/graph/backward-twice`).

loss = net(torch.randn(4, 3)).sum()
grads = torch.autograd.grad(loss, list(net.parameters()), allow_unused=True)
print("not in the graph:", [name for name, g in zip(names, grads, strict=True) if g is None])

# %%
# Fix 1: compute the loss from the tensors you differentiate
# ----------------------------------------------------------
# If the tensor should have been used, use it. For fast weights, run the model with them:
# ``torch.func.functional_call`` swaps them in for the module's parameters. The gradient of
# ``mean((data @ w.T + b)^2)`` with respect to ``w`` is ``2/4 * out.T @ data``:

model = torch.nn.Linear(3, 1)
data = torch.randn(4, 3)
inner_loss = model(data).pow(2).mean()
grads = torch.autograd.grad(inner_loss, list(model.parameters()), create_graph=True)
fast_weight, fast_bias = (p - 0.1 * g for p, g in zip(model.parameters(), grads, strict=True))
fast = {"weight": fast_weight, "bias": fast_bias}  # fix: maml-fast-weights
outer_out = torch.func.functional_call(model, fast, (data,))  # fixed  # fix: maml-fast-weights
outer_loss = outer_out.pow(2).mean()
grad_weight, grad_bias = torch.autograd.grad(outer_loss, [fast_weight, fast_bias])  # fixed

out = data @ fast_weight.detach().T + fast_bias.detach()
torch.testing.assert_close(grad_weight, 2 / 4 * out.T @ data)
torch.testing.assert_close(grad_bias, 2 / 4 * out.sum(dim=0))
print("gradient with respect to the fast weight:", grad_weight)

# %%
# For a cut path, keep the computation in torch and drop the ``.detach()``. The gradient of
# ``sum(x * w)`` is ``w`` for ``x`` and ``x`` for ``w``:

x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
w_grad, x_grad = torch.autograd.grad((x * w).sum(), [w, x])  # fix: cut-path
torch.testing.assert_close(x_grad, w.detach())
torch.testing.assert_close(w_grad, x.detach())

# %%
# Fix 2: say that unused inputs are expected
# ------------------------------------------
# When some inputs legitimately play no part in this loss (the auxiliary head), pass
# ``allow_unused=True`` and handle the ``None`` it returns for them, or add
# ``materialize_grads=True`` to get zeros instead. The gradients of the used parameters are
# the ones ``backward()`` computes:

net = WithAuxiliaryHead()
batch = torch.randn(4, 3)
loss = net(batch).sum()
grads = torch.autograd.grad(loss, list(net.parameters()), allow_unused=True)
print("None for:", [name for name, g in zip(names, grads, strict=True) if g is None])

net(batch).sum().backward()
for parameter, g in zip(net.parameters(), grads, strict=True):
    if g is None:
        assert parameter.grad is None
    else:
        torch.testing.assert_close(g, parameter.grad)

zero_filled = torch.autograd.grad(
    net(batch).sum(), list(net.parameters()), allow_unused=True, materialize_grads=True
)
torch.testing.assert_close(zero_filled[4], torch.zeros_like(net.auxiliary.weight))

# %%
# Or pass only the parameters this loss uses:

used_modules = [net.body, net.head]
used = [p for module in used_modules for p in module.parameters()]  # fix: unused-submodule
grads = torch.autograd.grad(net(batch).sum(), used)
torch.testing.assert_close(grads[0], net.body.weight.grad)
print(len(grads), "gradients")

# %%
# ``backward()`` and its ``inputs=``
# ----------------------------------
# ``loss.backward()`` never raises this: it fills ``.grad`` of the leaves it reaches, and an
# unreached parameter keeps ``.grad = None``. Neither does ``loss.backward(inputs=[...])`` with
# an unreached tensor. An input that does not require grad is another matter, and another
# error: :doc:`/errors/backward-api/input-does-not-require-grad`.

x = torch.randn(3, requires_grad=True)
other = torch.randn(3, requires_grad=True)
(x * 2).sum().backward(inputs=[x, other])
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))
print("other.grad:", other.grad)

# %%
# Pitfall: ``allow_unused=True`` can hide the bug
# -----------------------------------------------
# Put back the fast-weights mistake and silence it with ``allow_unused=True``: no error, and no
# gradient either. With ``materialize_grads=True`` the meta-gradient is a tensor of zeros, and
# training runs on, learning nothing from the outer loss.

model = torch.nn.Linear(3, 1)
data = torch.randn(4, 3)
inner_loss = model(data).pow(2).mean()
grads = torch.autograd.grad(inner_loss, list(model.parameters()), create_graph=True)
fast_weight, fast_bias = (p - 0.1 * g for p, g in zip(model.parameters(), grads, strict=True))
outer_loss = model(data).pow(2).mean()  # still the original parameters
meta_grads = torch.autograd.grad(
    outer_loss, [fast_weight, fast_bias], allow_unused=True, materialize_grads=True
)
assert all(torch.count_nonzero(g) == 0 for g in meta_grads)
print("meta-gradients:", meta_grads)

# %%
# Use ``allow_unused=True`` only for inputs you know are unused, and check which ones come back
# ``None``.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: unused-input
