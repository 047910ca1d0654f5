"""
optimizer-state-dict-groups
===========================

.. autograd-entry:: optimizer-state-dict-groups

What an optimizer's state dict holds
------------------------------------

``optimizer.state_dict()`` does not name the tensors it is about. It lists the parameter groups
(their options, and their parameters as the numbers 0, 1, 2, ... in the order they were given)
and the state of each number (SGD's momentum buffer, Adam's averages). ``load_state_dict`` maps
those numbers back onto the parameters of the optimizer it is called on, by position. So it
first checks the layout: the same number of groups, and the same number of parameters in each.
A checkpoint saved by an optimizer built over other parameters (a model with other layers,
another set of frozen layers, another way of splitting the groups) fails these checks.

The check is on counts only: the same counts in another order load silently, each state landing
on another tensor (shown below).
"""

import io

import torch
from torch import nn


def make_model() -> nn.Sequential:
    return nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(8, 2))


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
    tokens = torch.tensor([[1, 2], [3, 4]])
    optimizer.zero_grad()
    model(tokens).pow(2).mean().backward()
    optimizer.step()


def saved(optimizer: torch.optim.Optimizer) -> dict:
    """The optimizer's state dict after a round trip through ``torch.save``, as a checkpoint."""
    buffer = io.BytesIO()
    torch.save(optimizer.state_dict(), buffer)
    buffer.seek(0)
    return torch.load(buffer)


# %%
# The repro
# ---------
# Fine-tuning in two stages: the embedding frozen at first, and the optimizer built from the
# parameters that require grad. Resumed in the second stage, with the embedding unfrozen, the
# new optimizer has three parameters where the checkpoint has two.

model = make_model()
model[0].weight.requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9)
train_step(model, optimizer)
checkpoint = saved(optimizer)  # saved in stage 1

model[0].weight.requires_grad_(True)  # stage 2: everything trains
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9)
try:
    optimizer.load_state_dict(checkpoint)  # broken  # cause: trainable-set-changed
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 1: rebuild the optimizer the checkpoint came from, then add the new parameters
# ----------------------------------------------------------------------------------
# Build the optimizer over the stage-1 parameters, load, then give it the unfrozen embedding as
# a group of its own (with its own learning rate if wanted). The momentum buffers of the linear
# layer come back as they were saved, and the embedding starts with none:

stage_one = [model[2].weight, model[2].bias]
optimizer = torch.optim.SGD(stage_one, lr=0.1, momentum=0.9)
optimizer.load_state_dict(checkpoint)  # fixed  # fix: trainable-set-changed
optimizer.add_param_group({"params": [model[0].weight], "lr": 0.01})  # fixed
momentum = [optimizer.state[p]["momentum_buffer"] for p in stage_one]
for restored, state in zip(momentum, checkpoint["state"].values(), strict=True):
    torch.testing.assert_close(restored, state["momentum_buffer"])
assert model[0].weight not in optimizer.state
train_step(model, optimizer)
print("groups:", [len(g["params"]) for g in optimizer.param_groups])

# %%
# Fix 2: give the optimizer every parameter, freeze with ``requires_grad`` alone
# ------------------------------------------------------------------------------
# An optimizer skips the parameters whose ``.grad`` is None, and frozen ones get none. Built over
# all the parameters in both stages, it has the same layout whatever is frozen, and its
# checkpoints load in any stage. The frozen embedding is left untouched by the steps:

model = make_model()
model[0].weight.requires_grad_(False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)  # fix: trainable-set-changed
frozen = model[0].weight.detach().clone()
train_step(model, optimizer)
torch.testing.assert_close(model[0].weight.detach(), frozen)
checkpoint = saved(optimizer)

model[0].weight.requires_grad_(True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
optimizer.load_state_dict(checkpoint)  # fix: trainable-set-changed
train_step(model, optimizer)
assert not torch.equal(model[0].weight.detach(), frozen)

# %%
# A checkpoint of another model
# -----------------------------
# The model changed since the checkpoint was written (a layer added or removed by a newer
# version of the code, or another configuration), or the checkpoint is a pretrained model's
# whose optimizer was saved with it:

old_model = make_model()
old_optimizer = torch.optim.Adam(old_model.parameters(), lr=1e-3)
train_step(old_model, old_optimizer)
checkpoint = {"model": old_model.state_dict(), "optimizer": saved(old_optimizer)}

new_model = nn.Sequential(
    nn.Embedding(10, 4), nn.Flatten(), nn.Linear(8, 2), nn.LayerNorm(2)
)  # a layer more
new_optimizer = torch.optim.Adam(new_model.parameters(), lr=1e-3)
try:
    new_optimizer.load_state_dict(checkpoint["optimizer"])  # cause: model-changed
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 3: load the weights that fit, start a new optimizer
# -------------------------------------------------------
# Adam's averages describe the gradients of the old model's tensors; there is nothing to map
# them onto. Load the model weights (``strict=False`` reports what did not fit) and train with
# the fresh optimizer (for a pretrained model: fine-tune, do not resume).

report = new_model.load_state_dict(checkpoint["model"], strict=False)
print("missing:", report.missing_keys)
for name, value in checkpoint["model"].items():
    torch.testing.assert_close(new_model.state_dict()[name], value)
train_step(new_model, new_optimizer)  # fix: model-changed
assert len(new_optimizer.state) == len(list(new_model.parameters()))

# %%
# Groups split another way
# ------------------------
# The training script split the parameters into two groups (weight decay for the weights,
# none for biases and norms); the script that resumes or evaluates builds one:

model = make_model()


def decay_groups(model: nn.Module) -> list[dict]:
    weights = [p for name, p in model.named_parameters() if not name.endswith("bias")]
    biases = [p for name, p in model.named_parameters() if name.endswith("bias")]
    return [{"params": weights, "weight_decay": 0.05}, {"params": biases, "weight_decay": 0.0}]


optimizer = torch.optim.AdamW(decay_groups(model), lr=1e-3)
train_step(model, optimizer)
checkpoint = saved(optimizer)
single_group = torch.optim.AdamW(model.parameters(), lr=1e-3)
try:
    single_group.load_state_dict(checkpoint)  # cause: groups-split-differently
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 4: build the groups as the saving script did
# ------------------------------------------------
# Same function, same order: the state of each tensor comes back onto that tensor.

optimizer = torch.optim.AdamW(decay_groups(model), lr=1e-3)
optimizer.load_state_dict(checkpoint)  # fix: groups-split-differently
params = [p for group in optimizer.param_groups for p in group["params"]]
for param, state in zip(params, checkpoint["state"].values(), strict=True):
    torch.testing.assert_close(optimizer.state[param]["exp_avg"], state["exp_avg"])
assert [g["weight_decay"] for g in optimizer.param_groups] == [0.05, 0.0]

# %%
# The same counts in another order load without a word
# ----------------------------------------------------
# The check compares counts, not tensors. Two parameters of one shape given in the other order
# swap their states silently: here the averages of ``first`` land on ``second`` and back. Keep
# the code that builds the optimizer identical between saving and loading.

first, second = nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(3))
optimizer = torch.optim.Adam([first, second], lr=1e-3)
first.grad, second.grad = torch.ones(3), -torch.ones(3)
optimizer.step()
checkpoint = saved(optimizer)
swapped = torch.optim.Adam([second, first], lr=1e-3)
swapped.load_state_dict(checkpoint)
torch.testing.assert_close(swapped.state[second]["exp_avg"], optimizer.state[first]["exp_avg"])
print("second's exp_avg after loading:", swapped.state[second]["exp_avg"])

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: optimizer-state-dict-groups
