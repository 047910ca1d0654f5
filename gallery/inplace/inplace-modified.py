"""
inplace-modified
================

.. autograd-entry:: inplace-modified

Saved tensors and version counters
----------------------------------

To compute gradients later, many operations *save* tensors during the forward pass:
``torch.sigmoid`` saves its output (its derivative is ``s * (1 - s)``), ``torch.relu`` its
output, ``x * w`` both inputs. Every tensor also has a version counter, ``_version``, which
every in-place operation on it (or on a view of it) increments. Autograd records the version
of each tensor it saves, and checks it when backward needs the tensor again.
"""

import torch

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
print("version after sigmoid:", y._version)
y.mul_(2)
print("version after mul_:   ", y._version)

# %%
# The repro
# ---------
# ``sigmoid`` saved ``y`` at version 0; ``mul_`` moved it to version 1. Backward needs the
# original ``y`` to compute ``y * (1 - y)``, and refuses the changed one:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y.mul_(2)  # broken
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The notes' other classic: an in-place activation whose output something else saved. ``relu``
# saves its output; a later ``+=`` (a residual connection, say) changes it:

x = torch.randn(4, requires_grad=True)
hidden = torch.nn.ReLU(inplace=True)(x * 2)
hidden += 1
try:
    hidden.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Reading the message
# -------------------
# ``[torch.FloatTensor [3]]`` is the type and shape of the saved tensor; ``output 0 of Sigmoid``
# names the operation that produced it (older releases print the backward node instead,
# ``SigmoidBackward0``); ``version 1; expected version 0`` says how many in-place changes it
# went through. Search your forward pass for an in-place operation on the output of that
# operation.
#
# Finding the culprit with anomaly detection
# ------------------------------------------
# In a large model the operation named in the message may be far from the in-place change.
# Under anomaly detection, autograd also warns with the *forward* traceback of the operation
# whose backward failed (that warning belongs to :doc:`/errors/anomaly/anomaly-nan`), and the
# hint changes accordingly:

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly(check_nan=False):
        x = torch.randn(3, requires_grad=True)
        y = torch.sigmoid(x)
        y.mul_(2)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"RuntimeError: {error}")
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message).splitlines()[0]}")

# %%
# Fix 1: use the out-of-place form
# --------------------------------
# ``y * 2`` creates a new tensor; the saved ``y`` stays as it was. The gradient of
# ``sum(2 * sigmoid(x))`` is ``2 * s * (1 - s)``:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y = y * 2  # fixed
y.sum().backward()
s = torch.sigmoid(x.detach())
torch.testing.assert_close(x.grad, 2 * s * (1 - s))
print("x.grad =", x.grad)

# %%
# For layers, drop ``inplace=True`` (or use ``hidden = hidden + 1``). The gradient of
# ``relu(2x) + 1`` is 2 where ``x > 0`` and 0 elsewhere:

x = torch.randn(4, requires_grad=True)
hidden = torch.nn.ReLU()(x * 2)
hidden = hidden + 1
hidden.sum().backward()
torch.testing.assert_close(x.grad, 2.0 * (x.detach() > 0))
print("x.grad =", x.grad)

# %%
# Fix 2: clone before changing
# ----------------------------
# When an in-place update is what you want (to save memory on a large tensor, say), apply it to a
# copy; the saved tensor keeps its version:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
scaled = y.clone()
scaled.mul_(2)
scaled.sum().backward()
s = torch.sigmoid(x.detach())
torch.testing.assert_close(x.grad, 2 * s * (1 - s))
print("x.grad =", x.grad)

# %%
# The pitfall of ``.data`` and ``detach()``
# -----------------------------------------
# ``y.detach()`` shares storage *and* version counter with ``y``: changing it in place still
# raises this error, which is what you want. ``y.data`` shares the storage but not the counter:
# the change goes unseen and the gradient is silently wrong. Here sigmoid's backward computes
# ``s * (1 - s)`` from the doubled ``s``:

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y.data.mul_(2)
y.sum().backward()
s = torch.sigmoid(x.detach())
print("true gradient:   ", s * (1 - s))
print("what .grad holds:", x.grad)
assert not torch.allclose(x.grad, s * (1 - s))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: inplace-modified
