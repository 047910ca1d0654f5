"""
cudnn-rnn-eval-backward
=======================

.. autograd-entry:: cudnn-rnn-eval-backward

Why eval mode matters on a GPU
------------------------------

On a GPU, ``nn.LSTM``, ``nn.GRU`` and ``nn.RNN`` call cuDNN's fused RNN kernels. In training
mode the forward kernel keeps a workspace (cuDNN's "reserve space") that the backward kernel
reads; in eval mode torch calls cuDNN's inference kernel, which keeps none, so no backward pass
can go through that call. Torch checks, and raises when backward reaches it.

.. note::

   The repro needs CUDA and cuDNN. On the CPU, RNNs do not use cuDNN and the same code raises
   nothing: the script then runs on the CPU, its repros print nothing, and its fixes still
   check their gradients. The message is pinned from PyTorch's source
   (``aten/src/ATen/native/cudnn/RNN.cpp``) and from users' pastes.
"""

import torch
from torch import nn

# On a machine without CUDA the script still runs (on the CPU), so that the page builds there.
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Tagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


x = torch.randn(2, 5, 4, device=device)

# %%
# The repro
# ---------
# An evaluation step switches the model to eval mode; the next training step forgets to switch
# it back:

model = Tagger().to(device)
model.eval()  # broken  # cause: eval-not-undone
try:
    model(x).sum().backward()  # broken  # cause: eval-not-undone
except RuntimeError as error:
    print(f"RuntimeError: {error}")


# %%
# The gradient to expect
# ----------------------
# The same model and input without cuDNN (its native kernels have no eval-mode restriction)
# give the reference gradient.


def reference_grad(model: Tagger, x: torch.Tensor) -> torch.Tensor:
    with torch.backends.cudnn.flags(enabled=False):
        x = x.clone().requires_grad_()
        (grad,) = torch.autograd.grad(model(x).sum(), x)
    return grad


# %%
# Fix 1: back to training mode
# ----------------------------

model.train()  # fixed  # fix: eval-not-undone
x_train = x.clone().requires_grad_()
model(x_train).sum().backward()  # fixed
torch.testing.assert_close(x_train.grad, reference_grad(model, x), atol=1e-5, rtol=1e-4)

# %%
# Gradients in eval mode, on purpose
# ----------------------------------
# A saliency map (as Captum's attributions and Grad-CAM compute) wants the gradient of the
# output with respect to the input, with the model in eval mode:

model.eval()
x_saliency = x.clone().requires_grad_()
try:
    torch.autograd.grad(model(x_saliency).sum(), x_saliency)  # cause: gradients-in-eval-mode
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 2: cuDNN off for that pass, or only the RNN in training mode
# ----------------------------------------------------------------
# Without cuDNN the RNN runs torch's own kernels, which differentiate in any mode. Or put only
# the RNN in training mode: with ``dropout=0`` it computes the same function, and the rest of
# the model (dropout, batch norm) stays in eval mode.

with torch.backends.cudnn.flags(enabled=False):  # fix: gradients-in-eval-mode
    (saliency,) = torch.autograd.grad(model(x_saliency).sum(), x_saliency)
torch.testing.assert_close(saliency, reference_grad(model, x))

model.rnn.train()  # fix: gradients-in-eval-mode
(saliency,) = torch.autograd.grad(model(x_saliency).sum(), x_saliency)
torch.testing.assert_close(saliency, reference_grad(model, x), atol=1e-5, rtol=1e-4)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: cudnn-rnn-eval-backward
