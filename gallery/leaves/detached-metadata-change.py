"""
detached-metadata-change
========================

.. autograd-entry:: detached-metadata-change

A tensor's metadata, and the copy ``.data`` gives you
-----------------------------------------------------

A tensor is a view of a *storage* (the memory) described by its *metadata*: sizes, strides,
storage offset, and which storage. ``x.data`` and ``x.detach()`` return a new tensor object
that shares ``x``'s storage but has metadata of its own, and no autograd history. Changing its
*values* in place changes ``x``'s values (same memory). Changing its *metadata* (``resize_``,
``set_``, in-place view operations such as ``squeeze_``, ``t_``, ``as_strided_``) changes only
that new object: ``x`` keeps its shape.

Before the Variable/Tensor merge of torch 0.4, ``x.data`` was the very tensor inside the
Variable, so ``x.data.resize_(...)`` resized ``x``. From torch 1.1 to 1.12, so that such code
would not silently stop working, torch refused every metadata change on a tensor made by
``.data`` or ``.detach()`` with this message, naming the internal function that was refused
(``set_sizes_contiguous`` for ``resize_``, ``set_storage`` for ``set_``, ``set_sizes_and_strides``
or ``set_storage_offset`` for view operations). Torch 1.13 lifted the check
(`pytorch#83590 <https://github.com/pytorch/pytorch/pull/83590>`_): the same code now runs, and
changes the temporary tensor only. This page shows what each pattern does today.
"""

import torch

print("torch", torch.__version__)

# %%
# Refilling a buffer through ``.data.resize_``
# --------------------------------------------
# Old training loops (CRNN, Faster R-CNN, DCGAN ports) kept one preallocated input tensor and
# refilled it for each batch with ``input.data.resize_(batch.size()).copy_(batch)``. Torch 1.1
# to 1.12 raised ``set_sizes_contiguous is not allowed ...``. Today the line runs, but only the
# temporary ``input.data`` takes the batch's shape: ``input`` keeps its old one and sees the
# first elements of the batch.

image = torch.zeros(1, 4)  # the preallocated input
batch = torch.arange(8.0).reshape(2, 4)
image.data.resize_(batch.size()).copy_(batch)  # cause: resize-through-data
print("image.shape:", tuple(image.shape))
assert image.shape == (1, 4)
torch.testing.assert_close(image, batch[:1])

# %%
# Fix: change the tensor itself, outside autograd
# -----------------------------------------------
# The fix the message gave still applies: drop ``.data`` and make the change under
# ``torch.no_grad()``. Simpler still, use the batch itself: ``image = batch``.

image = torch.zeros(1, 4)
with torch.no_grad():  # fix: resize-through-data
    image.resize_(batch.size()).copy_(batch)  # fix: resize-through-data
torch.testing.assert_close(image, batch)

# %%
# Replacing a parameter's storage through ``.data.set_``
# ------------------------------------------------------
# Initialisation code that set a parameter to a new tensor with ``weight.data.set_(init)``
# (raised ``set_storage is not allowed ...``). Today it changes nothing the module uses: the
# parameter keeps its shape and its values.

cell = torch.nn.Linear(3, 3)
old = cell.weight.detach().clone()
cell.weight.data.set_(torch.eye(3).repeat(1, 2))  # cause: set-through-data
assert cell.weight.shape == (3, 3)
torch.testing.assert_close(cell.weight.detach(), old)

# %%
# Copy the values in under ``torch.no_grad()`` (a tensor of the same shape), or assign a new
# ``nn.Parameter`` when the shape changes:

with torch.no_grad():  # fix: set-through-data
    cell.weight.copy_(torch.eye(3))  # fix: set-through-data
torch.testing.assert_close(cell.weight.detach(), torch.eye(3))
cell(torch.ones(2, 3)).sum().backward()
torch.testing.assert_close(cell.weight.grad, torch.full((3, 3), 2.0))

# %%
# In-place view operations on a detached tensor
# ---------------------------------------------
# ``net_input = noise.detach()`` then ``net_input.squeeze_()`` (raised ``set_storage_offset``
# or ``set_sizes_and_strides is not allowed ...``). Here the detached tensor is the one the code
# goes on using, so today's behaviour is what was meant: ``net_input`` is squeezed, ``noise``
# is not.

noise = torch.rand(1, 1, 4, 4)
net_input = noise.detach()
net_input.squeeze_()  # cause: view-op-on-detached
assert net_input.shape == (4, 4)
assert noise.shape == (1, 1, 4, 4)

# %%
# Out of place, the intent reads plainly and works on every release:

net_input = noise.detach().squeeze()  # fix: view-op-on-detached
assert net_input.shape == (4, 4)
torch.testing.assert_close(net_input, noise[0, 0])

# %%
# The same message also came from inside torch, where torch itself detached a tensor: reentrant
# ``checkpoint`` detaches its inputs, and on CUDA a convolution in channels-last or permuted
# layout then restrided them (``set_sizes_and_strides``, torch 1.7 to 1.12, pytorch#48439 and
# pytorch#72569). Those runs need a GPU and an old torch; upgrading to 1.13 or later fixes them.
#
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: detached-metadata-change
