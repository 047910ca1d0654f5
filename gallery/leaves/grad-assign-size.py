"""
grad-assign-size
================

.. autograd-entry:: grad-assign-size

Setting ``.grad`` by hand
-------------------------

``.grad`` is a plain attribute that ``backward()`` fills, and that code may also set: gradient
surgery, meta-learning, eligibility traces, or averaging gradients from several models. The
optimizer then updates the tensor element by element with it, so the setter checks that the new
gradient has exactly the tensor's shape. It does not broadcast, and it does not reshape.
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# Copying the gradients of one copy of a model into another, by position. The copies register
# their layers in another order, so ``parameters()`` lists them in another order, and the
# encoder's weight meets the decoder's:


class TwoLayers(nn.Module):
    def __init__(self, decoder_first: bool) -> None:
        super().__init__()
        if decoder_first:  # the order of registration is the order of .parameters()
            self.decoder = nn.Linear(2, 1)
            self.encoder = nn.Linear(3, 2)
        else:
            self.encoder = nn.Linear(3, 2)
            self.decoder = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(torch.relu(self.encoder(x)))


target = TwoLayers(decoder_first=False)
other = TwoLayers(decoder_first=True)
other.load_state_dict(target.state_dict())
x = torch.randn(5, 3)
other(x).sum().backward()
other_grads = [p.grad for p in other.parameters()]
try:
    for parameter, gradient in zip(target.parameters(), other_grads, strict=True):
        parameter.grad = gradient  # broken  # cause: gradients-paired-by-position
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: pair gradients with parameters by name
# ---------------------------------------------
# Names are the same in both copies, whatever the order. The result must equal the gradient
# ``backward()`` gives ``target`` itself.

gradients = {name: p.grad for name, p in other.named_parameters()}
for name, parameter in target.named_parameters():
    parameter.grad = gradients[name]  # fixed  # fix: gradients-paired-by-position
expected = torch.autograd.grad(target(x).sum(), target.encoder.weight)[0]
torch.testing.assert_close(target.encoder.weight.grad, expected)

# %%
# A gradient with an extra dimension
# ----------------------------------
# An eligibility trace kept as a ``(1, n)`` row for a bias of shape ``(n,)``: the elements are
# right, the shape is not.

bias = nn.Parameter(torch.zeros(4))
trace = torch.ones(1, 4)
try:
    bias.grad = 0.5 * trace  # cause: extra-dimension
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: give it the parameter's shape
# ------------------------------------

bias.grad = (0.5 * trace).reshape(bias.shape)  # fix: extra-dimension
torch.testing.assert_close(bias.grad, torch.full((4,), 0.5))
torch.optim.SGD([bias], lr=1.0).step()
torch.testing.assert_close(bias.detach(), torch.full((4,), -0.5))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: grad-assign-size
