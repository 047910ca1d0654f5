"""
inference-version-counter
=========================

.. autograd-entry:: inference-version-counter

Tensors without a version counter
---------------------------------

Every ordinary tensor carries a *version counter*, shared with its views: each in-place change
increments it, and ``tensor._version`` reads it. Autograd records the version of each tensor it
saves for backward, so that a later in-place change is detected (that is the error of
:doc:`/errors/inplace/inplace-modified`); caches and libraries read it to know whether a tensor
changed since they last looked.

``torch.inference_mode()`` is faster than ``torch.no_grad()`` because the tensors it creates,
*inference tensors*, have no version counter at all (and no view tracking). Anything that reads
or sets the version of an inference tensor therefore raises. Outside inference mode the same
code works on ordinary tensors, and ``torch.no_grad()`` creates ordinary tensors.
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# Reading the version of a tensor made in inference mode:

with torch.inference_mode():
    scores = torch.randn(4, 3).softmax(-1)
print("is_inference:", scores.is_inference())
try:
    print(scores._version)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Common causes
# -------------
# Code that remembers a tensor's version to notice later changes, run on tensors made under
# ``torch.inference_mode()``: a decoding library that wraps its outputs in objects caching
# ``._version`` (k2's ``Fsa`` did), or a cache of your own. ``Lattice`` stands for such code:


class Lattice:
    """Holds scores and remembers their version, to know when derived data must be rebuilt."""

    def __init__(self, scores: torch.Tensor) -> None:
        self.scores = scores
        self.scores_version = scores._version

    def changed(self) -> bool:
        return self.scores._version != self.scores_version


decoder = nn.Linear(3, 3)
frames = torch.randn(4, 3)
with torch.inference_mode():
    decoded = decoder(frames).log_softmax(-1)
try:
    Lattice(decoded)  # cause: version-read
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# A tensor subclass (a wrapper such as a quantized weight) created outside inference mode and
# viewed inside it, as a layer's forward does with ``weight.t()``. The view, made in inference
# mode, is an inference tensor, and autograd tries to give it the old tensor's version counter:
# ``Cannot set version_counter``. ``Packed`` stands for such a subclass:


class Packed(torch.Tensor):
    """A wrapper tensor that holds its data in ``_data`` (as quantized weights do)."""

    @staticmethod
    def __new__(cls, data: torch.Tensor) -> "Packed":
        return torch.Tensor._make_wrapper_subclass(cls, data.shape, dtype=data.dtype)

    def __init__(self, data: torch.Tensor) -> None:
        self._data = data

    def __repr__(self) -> str:
        return f"Packed({self._data})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(value):
            return value._data if isinstance(value, Packed) else value

        out = func(*map(unwrap, args), **{k: unwrap(v) for k, v in (kwargs or {}).items()})
        return cls(out) if isinstance(out, torch.Tensor) else out


weight = Packed(torch.randn(2, 2))  # made when the model was loaded
try:
    with torch.inference_mode():  # every request runs in inference mode
        weight.t()  # cause: subclass-viewed
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# From torch 2.10 (and on 1.13 and 2.1), wrapping it again inside inference mode raises the same
# way; torch 2.5 to 2.9 let it pass:

try:
    with torch.inference_mode():
        torch.nn.Parameter(weight, requires_grad=False)  # cause: subclass-rewrapped
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: ``torch.no_grad()`` where versions are needed
# ----------------------------------------------------
# ``torch.no_grad()`` records no graph either, but creates ordinary tensors, with a version
# counter. Use it for the code that hands tensors to version-tracking code (the k2 maintainers'
# advice); inference mode stays fine elsewhere.

with torch.no_grad():  # fix: version-read
    decoded = decoder(frames).log_softmax(-1)  # fix: version-read
lattice = Lattice(decoded)  # fix: version-read
assert not lattice.changed()
decoded.add_(1.0)
assert lattice.changed()
torch.testing.assert_close(decoded.exp().sum(-1), torch.e * torch.ones(4))

# %%
# A tensor that already is an inference tensor can be copied, outside inference mode, into an
# ordinary one: ``clone()`` (``detach()`` is not enough, a detached inference tensor is still
# one):

with torch.inference_mode():
    decoded = decoder(frames).log_softmax(-1)
ordinary = decoded.clone()
assert not ordinary.is_inference()
assert not Lattice(ordinary).changed()
torch.testing.assert_close(ordinary, decoded)

# %%
# Fix 2: view and wrap tensors in the mode they were made in
# ----------------------------------------------------------
# Make the views and the re-wrapping outside inference mode (where the subclass was made), or,
# inside an inference block, leave inference mode for them with ``torch.inference_mode(False)``:

with torch.inference_mode():  # serving a request
    request = torch.randn(2, 2)
    with torch.inference_mode(False):  # fix: subclass-viewed
        transposed = weight.t()  # fix: subclass-viewed
    with torch.inference_mode(False):  # fix: subclass-rewrapped
        param = torch.nn.Parameter(weight, requires_grad=False)  # fix: subclass-rewrapped
assert not transposed.is_inference()
torch.testing.assert_close(transposed._data, weight._data.t())
assert isinstance(param, Packed)
assert not param.is_inference()
assert request.is_inference()
torch.testing.assert_close(param._data, weight._data)

# %%
# Also raised by the private ``torch.autograd._unsafe_preserve_version_counter``, which reads the
# version of the tensors it is given, and, with another wording, by
# ``torch._C._autograd._unsafe_set_version_counter``, which sets it (see the table below).
#
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inference-version-counter
