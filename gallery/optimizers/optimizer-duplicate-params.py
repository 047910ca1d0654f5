"""
optimizer-duplicate-params
==========================

.. autograd-entry:: optimizer-duplicate-params

One tensor, two places in the optimizer
---------------------------------------

An optimizer keeps, for every parameter, one state (momentum, Adam's averages) and the options
of the parameter group it belongs to (``lr``, ``weight_decay``). A tensor listed in two groups
would have two learning rates and one state: ``add_param_group`` refuses it with a
``ValueError``. A tensor listed twice in the *same* group is only a warning, kept for old code,
but it is a real bug: ``step()`` walks the list and updates that tensor twice.

Both come from building the list by hand: the parameters of two modules that share a layer (an
actor and a critic on one trunk, tied embeddings), or groups chosen by filters that overlap.
``module.parameters()`` itself never yields a tensor twice, even a shared one.
"""

import itertools
import warnings

import torch
from torch import nn

# %%
# The repro
# ---------
# A backbone with a lower learning rate, and "everything else" taken as ``model.parameters()``,
# which includes the backbone again:

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
backbone, head = model[0], model[2]
try:
    torch.optim.SGD(  # broken
        [
            {"params": backbone.parameters(), "lr": 1e-3},
            {"params": model.parameters()},  # broken  # cause: overlapping-groups
        ],
        lr=1e-2,
    )
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Fix 1: make the groups a partition
# ----------------------------------
# Take the second group as the parameters *not* in the first, compared by identity (tensors
# compare elementwise, so ``p in list`` does not work; ``id(p)`` does). Each tensor then gets
# exactly one learning rate, checked here on one step with known gradients.

backbone_ids = {id(p) for p in backbone.parameters()}
rest = [p for p in model.parameters() if id(p) not in backbone_ids]  # fixed
optimizer = torch.optim.SGD(  # fix: overlapping-groups
    [{"params": backbone.parameters(), "lr": 1e-3}, {"params": rest}], lr=1e-2
)
assert [len(group["params"]) for group in optimizer.param_groups] == [2, 2]
before = [p.detach().clone() for p in model.parameters()]
for p in model.parameters():
    p.grad = torch.ones_like(p)
optimizer.step()
for p, old, lr in zip(model.parameters(), before, [1e-3, 1e-3, 1e-2, 1e-2], strict=True):
    torch.testing.assert_close(p.detach(), old - lr)
print("learning rates:", [group["lr"] for group in optimizer.param_groups])

# %%
# A layer shared by two modules
# -----------------------------
# An actor and a critic on one feature extractor, as reinforcement-learning code often builds
# them: concatenating their parameter lists lists the trunk twice. In one group this only warns,
# and the trunk is then stepped twice per ``step()``: here one plain SGD step with a gradient of
# ones moves it by two learning rates instead of one.

trunk = nn.Linear(4, 8)
actor = nn.Sequential(trunk, nn.Tanh(), nn.Linear(8, 2))
critic = nn.Sequential(trunk, nn.Tanh(), nn.Linear(8, 1))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    params = list(actor.parameters()) + list(critic.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

before = trunk.weight.detach().clone()
for p in params:
    p.grad = torch.ones_like(p)
optimizer.step()
torch.testing.assert_close(trunk.weight.detach(), before - 2 * 0.1)  # stepped twice
print("trunk moved by", (before - trunk.weight.detach())[0, 0].item(), "instead of 0.1")

# %%
# Fix 2: list each tensor once
# ----------------------------
# Either put both modules in one container and let ``parameters()`` remove the duplicates, or
# deduplicate the list by identity, keeping its order (a ``set`` would lose it, and the
# optimizer's state dict relies on the order). Each tensor is then stepped once:

agent = nn.ModuleDict({"actor": actor, "critic": critic})
unique = list({id(p): p for p in itertools.chain(actor.parameters(), critic.parameters())}.values())
assert [id(p) for p in unique] == [id(p) for p in agent.parameters()]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    optimizer = torch.optim.SGD(agent.parameters(), lr=0.1)  # fix: shared-module
assert not caught, [str(w.message) for w in caught]
before = trunk.weight.detach().clone()
for p in agent.parameters():
    p.grad = torch.ones_like(p)
optimizer.step()
torch.testing.assert_close(trunk.weight.detach(), before - 0.1)
print("parameters listed:", len(params), "->", len(unique))

# %%
# The same shared trunk in two groups (the actor's learning rate and the critic's) is the
# error of the repro: one tensor cannot have two learning rates.

try:
    torch.optim.Adam(  # cause: shared-module
        [{"params": actor.parameters(), "lr": 1e-4}, {"params": critic.parameters()}],
        lr=1e-3,
    )
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# Give the shared layer to one group (its own, here) and each module's own layers to theirs:

shared_ids = {id(p) for p in trunk.parameters()}
actor_own = [p for p in actor.parameters() if id(p) not in shared_ids]
critic_own = [p for p in critic.parameters() if id(p) not in shared_ids]
optimizer = torch.optim.Adam(  # fix: shared-module
    [
        {"params": trunk.parameters(), "lr": 1e-4},
        {"params": actor_own, "lr": 1e-4},
        {"params": critic_own},
    ],
    lr=1e-3,
)
counted = sum(len(group["params"]) for group in optimizer.param_groups)
assert counted == len(list(agent.parameters())) == 6

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: optimizer-duplicate-params
