"""
optimizer-param-not-tensor
==========================

.. autograd-entry:: optimizer-param-not-tensor

What ``params`` must be
-----------------------

An optimizer takes an *iterable of tensors* (or of parameter-group dicts, each with an iterable
of tensors under ``"params"``). It makes a list of it at once, and checks every element: each
must be a tensor, the leaf it will update. Anything else is named by its type in the message:
a module (``torch.nn.modules.linear.Linear``) where its ``.parameters()`` were meant, a
generator (``Module.parameters``) inside the list instead of its contents, a string (the keys of
a dict), a ``tuple`` (a ``(name, tensor)`` pair, before torch 2.6 accepted them). One tensor
alone is refused before that, because it is iterable too (over its rows).
"""

import itertools

import torch
from torch import nn

encoder = nn.Linear(3, 4)
decoder = nn.Linear(4, 2)
inputs = torch.randn(5, 3)


def one_step(
    optimizer: torch.optim.Optimizer, modules: list[nn.Module]
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The parameters of ``modules`` after one step of ``optimizer``, and what one SGD step with
    lr 0.1 should give them: each moved by -0.1 times its gradient."""
    optimizer.zero_grad()
    decoder(encoder(inputs)).pow(2).sum().backward()
    params = [p for module in modules for p in module.parameters()]
    expected = [(p - 0.1 * p.grad).detach() for p in params]
    optimizer.step()
    return [p.detach() for p in params], expected


# %%
# The repro
# ---------
# The modules themselves, in a list, instead of their parameters:

try:
    torch.optim.SGD([encoder, decoder], lr=0.1)  # broken  # cause: module-given
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Fix 1: pass the parameters
# --------------------------
# ``module.parameters()`` yields the tensors. For several modules, concatenate their lists (or
# chain the generators), or put the modules in one container:

params = list(encoder.parameters()) + list(decoder.parameters())  # fixed
optimizer = torch.optim.SGD(params, lr=0.1)  # fixed  # fix: module-given
torch.testing.assert_close(*one_step(optimizer, [encoder, decoder]))
both = nn.ModuleList([encoder, decoder])
torch.testing.assert_close(
    *one_step(torch.optim.SGD(both.parameters(), lr=0.1), [encoder, decoder])
)

# %%
# Generators in a list
# --------------------
# The list holds two generators, not the tensors they yield (``torch.typename`` names a
# generator after the function that made it):

try:
    generators = [encoder.parameters(), decoder.parameters()]
    torch.optim.Adam(generators, lr=1e-3)  # cause: nested-iterables
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Chain them instead, or give each its own parameter group (and its own learning rate):

chained = itertools.chain(encoder.parameters(), decoder.parameters())
optimizer = torch.optim.SGD(chained, lr=0.1)  # fix: nested-iterables
torch.testing.assert_close(*one_step(optimizer, [encoder, decoder]))
optimizer = torch.optim.SGD(  # fix: nested-iterables
    [{"params": encoder.parameters()}, {"params": decoder.parameters()}], lr=0.1
)
torch.testing.assert_close(*one_step(optimizer, [encoder, decoder]))

# %%
# Names instead of tensors
# ------------------------
# Iterating a dict yields its keys. A parameter group written without its list, or the
# parameters kept in a dict by name, hands the optimizer strings. (On torch before 2.6,
# ``model.named_parameters()`` gave ``tuple`` here: its ``(name, tensor)`` pairs.)

try:
    torch.optim.SGD({"params": encoder.parameters(), "lr": 0.1})  # cause: names-not-tensors
except TypeError as error:
    print(f"TypeError: {error}")
by_name = dict(decoder.named_parameters())
try:
    torch.optim.SGD([{"params": by_name, "lr": 0.1}], lr=0.1)  # cause: names-not-tensors
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Wrap the group in a list, and pass the dict's values:

optimizer = torch.optim.SGD(  # fix: names-not-tensors
    [{"params": encoder.parameters(), "lr": 0.1}, {"params": by_name.values()}], lr=0.1
)
torch.testing.assert_close(*one_step(optimizer, [encoder, decoder]))
pairs = list(encoder.named_parameters()) + list(decoder.named_parameters())
optimizer = torch.optim.SGD([p for _, p in pairs], lr=0.1)  # fix: names-not-tensors
torch.testing.assert_close(*one_step(optimizer, [encoder, decoder]))

# %%
# One tensor alone
# ----------------
# A tensor is iterable, over its first dimension, so one given alone would be read as its
# rows; the optimizer refuses it with a message of its own:

scale = nn.Parameter(torch.ones(3))
try:
    torch.optim.SGD(scale, lr=0.1)  # cause: single-tensor
except TypeError as error:
    print(f"TypeError: {error}")

# %%
# Put it in a list:

optimizer = torch.optim.SGD([scale], lr=0.1)  # fix: single-tensor
(scale * inputs).sum().backward()
expected = (scale - 0.1 * inputs.sum(0)).detach()
optimizer.step()
torch.testing.assert_close(scale.detach(), expected)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: optimizer-param-not-tensor
