"""
ddp-grad-strides
================

.. autograd-entry:: ddp-grad-strides

Buckets, views and the gradient layout contract
-----------------------------------------------

``DistributedDataParallel`` all-reduces gradients in *buckets*: flat buffers that hold the
gradients of several parameters, so that one collective call moves many. When it is built, DDP
gives each parameter a *bucket view*, a view of its slice of the buffer with the parameter's
own sizes and strides. During backward, each gradient autograd delivers is copied into its view.

Autograd's side of the bargain is the *gradient layout contract*: ``AccumulateGrad`` makes a
parameter's ``.grad`` follow the parameter's memory layout (the same strides). It only compares
the dimensions whose size is not 1, since the stride of a size-1 dimension moves nothing. DDP
compares every stride, and warns when they differ: the copy then has to reorder elements, which
costs time, never correctness. Two things make them differ: a parameter whose layout changed
after DDP was built, and a weight with size-1 dimensions (a 1x1 convolution's, ``[C_out, C_in,
1, 1]``) whose gradient arrives in another layout, the channels-last one, with the same memory
order but other strides in the size-1 dimensions.

The warning comes from C++ (``torch/csrc/distributed/c10d/reducer.cpp``). Inside a Python
``backward()`` torch turns it into a Python ``UserWarning``, "Triggered internally at
reducer.cpp"; in some runs (pasted from GPU training) it is written to standard error instead,
as ``[W reducer.cpp:NNN] Warning: ...``, with the same text. torch warns once per
process; this page calls ``torch.set_warn_always(True)`` to show every case.

This page runs DDP on the CPU with the ``gloo`` backend, in a process group of one process: the
buckets are per process, so one rank warns as each of eight GPUs would.
"""

import os
import tempfile
import warnings

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

torch.set_warn_always(True)  # the warning is TORCH_WARN_ONCE: once per process otherwise
store_path = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", store=dist.FileStore(store_path, 1), rank=0, world_size=1)


class TokensToImage(nn.Module):
    """The step of a vision transformer that turns tokens back into an image for a 1x1
    projection: ``[B, H*W, C]`` transposed to ``[B, C, H*W]`` and reshaped to ``[B, C, H, W]``."""

    def __init__(self, contiguous: bool = False) -> None:
        super().__init__()
        self.proj = nn.Conv2d(4, 3, kernel_size=1)
        self.contiguous = contiguous

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        batch, count, channels = tokens.shape
        image = tokens.transpose(1, 2).reshape(batch, channels, 2, count // 2)
        if self.contiguous:
            image = image.contiguous()
        return self.proj(image)


tokens = torch.randn(2, 6, 4)

# %%
# The repro
# ---------
# The reshaped image is not contiguous: it has the channels-last layout. The weight gradient of
# the 1x1 convolution comes out channels-last too, strides ``[4, 1, 4, 4]``, which the
# contract accepts for a ``[3, 4, 1, 1]`` weight (only the size-4 dimension counts), and which
# differ from the bucket view's ``[4, 1, 1, 1]``:

model = DistributedDataParallel(TokensToImage())  # broken
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(tokens).sum().backward()  # broken  # cause: transposed-activation
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
weight = model.module.proj.weight
print("weight strides:", weight.stride(), " grad strides:", weight.grad.stride())

# %%
# The gradient is right all the same: the copy into the bucket reorders it. With one process
# the averaged gradient is the local one, that of the plain module:

plain = TokensToImage()
plain.load_state_dict(model.module.state_dict())
plain(tokens).sum().backward()
torch.testing.assert_close(model.module.proj.weight.grad, plain.proj.weight.grad)

# %%
# Fix 1: a contiguous activation
# ------------------------------
# Make the reshaped image contiguous before the convolution, as the model code usually
# intends: the weight gradient then has the weight's own strides, and nothing is copied
# out of order.

model = DistributedDataParallel(TokensToImage(contiguous=True))  # fixed
model.module.load_state_dict(plain.state_dict())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(tokens).sum().backward()  # fix: transposed-activation
assert not [w for w in caught if "Grad strides" in str(w.message)]
assert model.module.proj.weight.grad.stride() == model.module.proj.weight.stride()
torch.testing.assert_close(model.module.proj.weight.grad, plain.proj.weight.grad)

# %%
# Since the memory order of the two layouts is the same for a 1x1 weight, the warning costs
# nothing there, and silencing it is also a fix: ``warnings.filterwarnings("ignore",
# message="Grad strides do not match")``.
#
# The model converted after DDP
# -----------------------------
# DDP takes the bucket views' strides from the parameters when it is built. A model converted
# to channels-last afterwards (for faster convolutions) has parameters in the new layout, and
# gradients that follow them, against views in the old one:

conv = nn.Conv2d(3, 4, kernel_size=3)
model = DistributedDataParallel(conv)
images = torch.randn(2, 3, 8, 8).to(memory_format=torch.channels_last)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model.to(memory_format=torch.channels_last)  # cause: layout-changed-after-wrap
    model(images).sum().backward()  # cause: layout-changed-after-wrap
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message)[:60]}...")

# %%
# Fix 2: convert the model, then wrap it
# --------------------------------------
# Convert first: DDP builds its views with the channels-last strides, and the gradients match
# them. The bias gradient of ``sum(conv(x))`` is the number of output positions per image
# times the batch size, ``2 * 6 * 6``:

conv = nn.Conv2d(3, 4, kernel_size=3).to(memory_format=torch.channels_last)  # fixed
model = DistributedDataParallel(conv)  # fix: layout-changed-after-wrap
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(images).sum().backward()
assert not [w for w in caught if "Grad strides" in str(w.message)]
torch.testing.assert_close(conv.bias.grad, torch.full((4,), 2.0 * 6 * 6))
assert conv.weight.grad.stride() == conv.weight.stride()

# %%
# The process group is destroyed, so that nothing outlives the script:

dist.destroy_process_group()
torch.set_warn_always(False)

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: ddp-grad-strides
