"""
fsdp-uniform-requires-grad
==========================

.. autograd-entry:: fsdp-uniform-requires-grad

One flat tensor per unit
------------------------

FSDP saves memory by keeping each rank's share of the parameters only. For each wrapped unit it
concatenates the parameters into one flat tensor, the ``FlatParameter``, which it shards across
ranks and gathers when the unit runs. A tensor has one ``requires_grad`` flag, so by default
(``use_orig_params=False``) every parameter in a unit must agree: all trained, or all frozen.
Adapter fine-tuning (LoRA and other PEFT methods) puts trained adapters next to frozen weights
in the same layer, and FSDP refuses to flatten them.

FSDP runs on the CPU here, with the ``gloo`` backend in a process group of one process (FSDP
then warns that it does not shard; wrapping, flattening and this check are the same as on
eight GPUs). FSDP can wrap a model on the CPU from torch 2.1 and run it there from torch 2.2;
on older releases it needs a GPU, and this page stops where the API it needs is missing.
"""

import os
import tempfile
import warnings

import torch
import torch.distributed as dist
from torch import nn

# torch 2.1 gave ``torch.cpu`` the device functions FSDP looks a device up with: before, FSDP
# needs CUDA even to wrap a model (and torch 1.13's FSDP does not import on Python 3.11).
cpu_device_count = torch.cpu.device_count()

from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

store_path = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group("gloo", store=dist.FileStore(store_path, 1), rank=0, world_size=1)
cpu = torch.device("cpu")
warnings.filterwarnings("ignore", message="FSDP is switching to use `NO_SHARD`")


class AdaptedLayer(nn.Module):
    """A frozen base layer with a trained adapter on top."""

    def __init__(self, width: int = 2) -> None:
        super().__init__()
        self.base = nn.Linear(width, width).requires_grad_(False)
        self.adapter = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.adapter(torch.relu(self.base(x)))


x = torch.randn(3, 2)

# %%
# The repro
# ---------

layer = AdaptedLayer()
try:
    FSDP(layer, device_id=cpu)  # broken  # cause: adapters-beside-frozen-weights
except ValueError as error:
    print(f"ValueError: {error}")

# %%
# The gradient to expect
# ----------------------
# For ``sum(A relu(B x) + c)``, the adapter's weight gradient is the column sums of
# ``relu(B x)``.


def expected_adapter_grad(layer: AdaptedLayer) -> torch.Tensor:
    return torch.relu(x @ layer.base.weight.T + layer.base.bias).sum(0, keepdim=True)


# %%
# Running FSDP on the CPU needs ``torch.cpu.Event`` and the CPU ``Stream`` that takes a
# priority, both from torch 2.2 (pytorch/pytorch#112145): on torch 2.1 the fixes below stop
# here.

cpu_event = torch.cpu.Event

# %%
# Fix 1: a unit of its own for what trains
# ----------------------------------------
# Wrapping the adapter first gives it its own ``FlatParameter`` (all trained); the outer unit
# keeps the frozen base (all frozen). PEFT's ``fsdp_auto_wrap_policy`` wraps this way, and it is
# what adapters call for: the gradient covers the adapter only. With ``use_orig_params=False``
# the gradient lives on the flat tensor: ``[weight, bias]``.

layer = AdaptedLayer()
with torch.no_grad():
    expected = expected_adapter_grad(layer)  # before FSDP takes the parameters over
layer.adapter = FSDP(layer.adapter, device_id=cpu)  # fix: adapters-beside-frozen-weights
model = FSDP(layer, device_id=cpu)  # fixed
model(x).sum().backward()
(flat_adapter,) = layer.adapter.parameters()
torch.testing.assert_close(flat_adapter.grad[:2], expected.view(2))
torch.testing.assert_close(flat_adapter.grad[2], torch.tensor(3.0))

# %%
# Fix 2: ``use_orig_params=True``, at the cost of gradient memory
# ---------------------------------------------------------------
# FSDP keeps the original parameters as views into the flat one, each with its own
# ``requires_grad``; gradients appear on them as without FSDP.

layer = AdaptedLayer()
model = FSDP(
    layer,
    device_id=cpu,
    use_orig_params=True,  # fix: adapters-beside-frozen-weights
)
model(x).sum().backward()
with torch.no_grad():
    expected = expected_adapter_grad(layer)
torch.testing.assert_close(layer.adapter.weight.grad, expected)
assert layer.base.weight.grad is None

# %%
# The gradient itself is still one flat tensor per unit, as large as all its parameters, frozen
# or not: the FSDP documentation advises against mixing them in a unit for this reason. With a
# 100 x 100 frozen base under a 101-parameter adapter, the unit's gradient holds 10201 numbers
# (FSDP's internal flat parameter, read here to measure it):

wide = AdaptedLayer(width=100)
model = FSDP(wide, device_id=cpu, use_orig_params=True)
model(torch.randn(3, 100)).sum().backward()
flat_grad = model._handle.flat_param.grad
trained = sum(p.numel() for p in wide.parameters() if p.requires_grad)
print("trained numbers:", trained, " gradient numbers:", flat_grad.numel())
assert (trained, flat_grad.numel()) == (101, 100 * 100 + 100 + 101)

# %%
# The process group is destroyed, so that nothing outlives the script:

dist.destroy_process_group()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: fsdp-uniform-requires-grad
