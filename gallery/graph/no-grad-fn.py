"""
no-grad-fn
==========

.. autograd-entry:: no-grad-fn

Where gradients come from
-------------------------

``backward()`` starts at the tensor you call it on and follows its ``grad_fn`` back to the
leaves. A tensor computed only from tensors that do not require grad has no ``grad_fn``: there
is nothing to follow. ``detach()`` makes exactly such a tensor: same values, no history.
"""

import torch

x = torch.randn(3, requires_grad=True)
print("(x * 2).grad_fn:         ", (x * 2).grad_fn)
print("(x.detach() * 2).grad_fn:", (x.detach() * 2).grad_fn)

# %%
# The repro
# ---------
# A loss computed from a detached tensor:

x = torch.randn(3, requires_grad=True)
loss = (x.detach() * 2).sum()  # broken
try:
    loss.backward()  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# ``detach()`` on purpose: stopping gradients at a layer
# ------------------------------------------------------
# The notes use ``detach()`` to train only the second of two layers: everything before the
# ``detach()`` receives no gradient. That works because the loss still depends on
# ``layer2.weight``, which requires grad. Detach *every* path to the parameters (or freeze them
# all) and there is no graph left: the error above.


class TwoLayers(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer1 = torch.nn.Linear(4, 8, bias=False)
        self.layer2 = torch.nn.Linear(8, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.layer1(x)).detach()
        return self.layer2(hidden)


model = TwoLayers()
model(torch.randn(5, 4)).sum().backward()
print("layer1.weight.grad:", model.layer1.weight.grad)
print("layer2.weight.grad is set:", model.layer2.weight.grad is not None)

# %%
# Frozen parameters give the same error: nothing the loss depends on requires grad.

model = TwoLayers()
model.layer2.requires_grad_(False)
try:
    model(torch.randn(5, 4)).sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix: keep a path to what you train
# ----------------------------------
# Remove the ``detach()`` (or the ``torch.no_grad()`` block, or the ``.item()`` / NumPy round
# trip) on the path from the loss to the tensors you want gradients for. The gradient of
# ``sum(2 x)`` is 2 everywhere:

x = torch.randn(3, requires_grad=True)
loss = (x * 2).sum()  # fixed
loss.backward()  # fixed
torch.testing.assert_close(x.grad, torch.full((3,), 2.0))
print("x.grad =", x.grad)

# %%
# To find the cut in a real model, walk back from the loss and print ``requires_grad`` and
# ``grad_fn`` of each intermediate result; the first one without a ``grad_fn`` is where the
# graph ends.

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: no-grad-fn
