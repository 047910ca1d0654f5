"""
running-loss-keeps-graph
========================

.. autograd-entry:: running-loss-keeps-graph

What a loss holds on to
-----------------------

A loss computed from a model is the end of a graph: its ``grad_fn`` leads, node by node, back to
the parameters. ``backward()`` frees the tensors those nodes saved for it, but not the nodes
themselves: they live as long as something holds the loss. A running total that adds the loss
holds it, and the next step's addition holds the next loss, so the total ends up holding the
graph of every step. ``python -m autograd_errors lint`` flags it as AE302.
"""

import copy

import torch


def graph_nodes(tensor):
    """The backward nodes reachable from a tensor (none for a number or a detached tensor)."""
    if not torch.is_tensor(tensor) or tensor.grad_fn is None:
        return []
    found, stack = {}, [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in found:
            continue
        found[id(node)] = node
        stack.extend(next_node for next_node, _ in node.next_functions)
    return list(found.values())


def saved_input_alive(node):
    """Whether a matrix product's node still holds the input it saved for backward."""
    try:
        node._saved_mat1
    except RuntimeError:  # "... saved tensors after they have already been freed"
        return False
    return True


model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
initial = copy.deepcopy(model.state_dict())
batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(6)]

# %%
# The pitfall
# -----------
# The training loop of PyTorch's FAQ: each loss is differentiated and stepped, then added to a
# total for the epoch's mean. The total is a tensor with a graph, and that graph grows by the
# same number of nodes at every step:

optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
total_loss = 0
sizes = []
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    total_loss += loss  # broken  # cause: running-total
    sizes.append(len(graph_nodes(total_loss)))
print("nodes held by total_loss after each step:", sizes)  # broken
growth = [sizes[step + 1] - sizes[step] for step in range(1, len(sizes) - 1)]
assert growth[0] > 0
assert growth == [growth[0]] * len(growth)  # the same number of nodes more at every step
broken_total = total_loss.item()

# %%
# ``backward()`` freed what those nodes saved: the inputs of the matrix products are gone, only
# the nodes stay. A few hundred bytes each, but a real model records thousands of them per step,
# and a run has many steps:

products = [node for node in graph_nodes(total_loss) if type(node).__name__ == "AddmmBackward0"]
assert len(products) == 2 * len(batches)  # two linear layers per step, every step kept
assert not any(saved_input_alive(node) for node in products)
print("matrix-product nodes kept:", len(products), "- inputs still saved:", 0)

# %%
# A list of losses does the same: each element holds its step's graph.

model.load_state_dict(initial)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    losses.append(loss)  # cause: loss-list
assert all(loss.grad_fn is not None for loss in losses)
assert len(graph_nodes(torch.stack(losses))) > len(batches) * len(graph_nodes(losses[0])) // 2
print("losses with a graph:", sum(loss.grad_fn is not None for loss in losses))

# %%
# Evaluation with grad mode on
# ----------------------------
# In a validation loop nothing calls ``backward()``, so nothing frees the saved tensors either:
# run with grad mode on, the total holds every batch's activations along with the graph:

val_loss = 0
for inputs, targets in batches:
    val_loss += torch.nn.functional.mse_loss(model(inputs), targets)  # cause: evaluation-with-grad
kept = [node for node in graph_nodes(val_loss) if type(node).__name__ == "AddmmBackward0"]
assert len(kept) == 2 * len(batches)
assert all(saved_input_alive(node) for node in kept)  # every batch's inputs, still in memory
print("validation: matrix-product nodes with their saved inputs:", len(kept))

# %%
# Fix: keep numbers
# -----------------
# ``loss.item()`` is a Python number with no graph. The total is the same value, and holds
# nothing:

model.load_state_dict(initial)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
total_loss = 0.0
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    total_loss += loss.item()  # fixed  # fix: running-total
print("total_loss:", total_loss)  # fixed
assert isinstance(total_loss, float)
torch.testing.assert_close(total_loss, broken_total)

# %%
# On a GPU, ``.item()`` waits for the device at every step. ``loss.detach()`` keeps the value
# on the device without its graph; call ``.item()`` once, at the end:

model.load_state_dict(initial)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
total_loss = torch.zeros(())
losses = []
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    total_loss += loss.detach()
    losses.append(loss.item())  # fix: loss-list
assert total_loss.grad_fn is None
assert graph_nodes(total_loss) == []
assert all(isinstance(value, float) for value in losses)
torch.testing.assert_close(total_loss.item(), broken_total)

# %%
# Evaluate under ``torch.no_grad()``: no graph is recorded, so there is nothing to hold:

with torch.no_grad():  # fix: evaluation-with-grad
    val_loss = 0.0
    for inputs, targets in batches:
        val_loss += torch.nn.functional.mse_loss(model(inputs), targets).item()
assert isinstance(val_loss, float)
print("validation loss:", val_loss)

# %%
# .. autograd-entry-footer:: running-loss-keeps-graph
