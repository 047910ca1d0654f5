"""
vmap-control-flow
=================

.. autograd-entry:: vmap-control-flow

One run for the whole batch
---------------------------

``torch.func.vmap(f)(batch)`` does not call ``f`` once per sample: it calls it once, with
tensors that stand for all the samples at once, and every operation works on the whole batch.
Python's ``if`` needs a single ``bool``; a batched tensor holds one per sample, and they may
disagree. vmap cannot take both branches of a Python ``if``, so asking a batched tensor for its
truth value raises.
"""

import torch
from torch.func import grad, jacrev, vmap


def reflect_if_negative(x: torch.Tensor) -> torch.Tensor:
    if x.sum() < 0:  # one answer per sample under vmap
        return -x
    return x


# %%
# The repro
# ---------

batch = torch.tensor([[1.0, 2.0], [-3.0, 1.0], [0.5, -2.0]])
try:
    vmap(reflect_if_negative)(batch)  # broken  # cause: if-on-tensor
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: compute both branches, select with ``torch.where``
# ---------------------------------------------------------
# ``torch.where`` chooses per sample. The result matches a Python loop over the samples, and so
# does the gradient: ``+1`` for samples kept, ``-1`` for samples reflected.


def reflect_where(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x.sum() < 0, -x, x)  # fixed


x = batch.clone().requires_grad_()
out = vmap(reflect_where)(x)  # fixed  # fix: if-on-tensor
torch.testing.assert_close(out, torch.stack([reflect_if_negative(row) for row in batch]))
out.sum().backward()
signs = torch.where(batch.sum(1, keepdim=True) < 0, -1.0, 1.0).expand(3, 2)
torch.testing.assert_close(x.grad, signs)

# %%
# Not under ``grad`` or ``jacrev`` alone
# --------------------------------------
# ``grad``, ``jacrev``, ``jacfwd`` and ``hessian`` run the function on the unbatched input
# (``jacrev`` vmaps only the backward pass over the basis vectors), so the branch is taken as in
# plain Python. The Jacobian of ``-x`` is ``-I``:

torch.testing.assert_close(jacrev(reflect_if_negative)(batch[1]), -torch.eye(2))

# %%
# Per-sample gradients, ``vmap`` of ``grad``, batch the input again, and the same ``if`` raises
# the message of :doc:`/errors/higher-order/vmap-item` instead, which names ``.item()`` first:


def per_sample_gradients_with_if() -> None:
    try:
        vmap(grad(lambda x: reflect_if_negative(x).sum()))(batch)
    except RuntimeError as error:
        print(f"RuntimeError: {error}")


per_sample_gradients_with_if()

# %%
# FlexAttention masks
# -------------------
# ``create_block_mask`` and ``create_mask`` evaluate the ``mask_mod`` for every query and key
# position with vmap. Python's ``and`` asks each comparison for a single truth value:


from torch.nn.attention.flex_attention import create_mask  # torch 2.5 and later


def causal_and_in_window(
    b: torch.Tensor, h: torch.Tensor, q_idx: torch.Tensor, kv_idx: torch.Tensor
) -> torch.Tensor:
    return q_idx >= kv_idx and q_idx - kv_idx < 4


try:
    create_mask(causal_and_in_window, 1, 1, 8, 8, device="cpu")  # cause: flex-attention-mask-mod
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: elementwise ``&`` and ``|``
# ----------------------------------
# The operators work on the whole batch of positions. The mask is the band below the diagonal,
# four positions wide.


def causal_in_window(
    b: torch.Tensor, h: torch.Tensor, q_idx: torch.Tensor, kv_idx: torch.Tensor
) -> torch.Tensor:
    return (q_idx >= kv_idx) & (q_idx - kv_idx < 4)  # fixed


mask = create_mask(causal_in_window, 1, 1, 8, 8, device="cpu")  # fix: flex-attention-mask-mod
expected = torch.ones(8, 8, dtype=torch.bool).tril() & ~torch.ones(8, 8, dtype=torch.bool).tril(-4)
assert torch.equal(mask[0, 0], expected)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: vmap-control-flow
