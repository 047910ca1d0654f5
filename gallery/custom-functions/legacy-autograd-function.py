"""
legacy-autograd-function
========================

.. autograd-entry:: legacy-autograd-function

Old-style and new-style Functions
---------------------------------

Up to torch 1.4, a custom Function could be an *object*: its ``__init__`` stored settings, its
``forward(self, x)`` and ``backward(self, grad)`` were ordinary methods, and you called the
object, ``GradReverse(0.5)(x)``. The same object then served as the graph node, so it held both
the settings and whatever the forward saved, and it could not be used twice in one graph.

The new style, which arrived in 0.2 and is the only one since 1.5, separates them. The class is
never instantiated; ``MyFn.apply(x, ...)`` creates a fresh node for every call and hands your
static ``forward`` its context, ``ctx``, where the call's own state goes. Settings become
arguments of ``forward``. Torch 1.2 to 1.4 warned about the old style; 1.5 made calling a
Function object an error; since 1.9 even creating one warns.
"""

import warnings

import torch

# %%
# The repro
# ---------
# The gradient reversal layer of domain adaptation, as many repositories still write it: the
# identity forward, the negated (and scaled) gradient backward.


class GradReverse(torch.autograd.Function):
    def __init__(self, lambd):
        self.lambd = lambd

    def forward(self, x):
        return x.view_as(x)

    def backward(self, grad_output):
        return -self.lambd * grad_output


x = torch.randn(3, requires_grad=True)
try:
    y = GradReverse(0.5)(x)  # broken
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# The message blames the non-static ``forward``, but what torch refuses is the *call of an
# instance*. A Function written the new way fails just the same when called through an
# instance, and creating the instance warns first (``GradReverse`` above defines its own
# ``__init__``, which skips that warning):


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Exp()(x)  # cause: static-but-instantiated
except RuntimeError as error:
    print(f"RuntimeError: {error}")
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %%
# In the repositories that hit this message, the old-style Function sits inside a module, and
# the error surfaces at the first forward pass: a domain-adaptation network with a gradient
# reversal layer, or an SSD detector whose ``Detect`` post-processing is a Function object:


class GradientReversal(torch.nn.Module):
    def __init__(self, lambd):
        super().__init__()
        self.lambd = lambd

    def forward(self, x):
        return GradReverse(self.lambd)(x)


features = torch.randn(4, 3, requires_grad=True)
try:
    GradientReversal(0.5)(features)  # cause: legacy-function-object
except RuntimeError as error:
    print(f"RuntimeError: {error}")


class Detect(torch.autograd.Function):
    def __init__(self, threshold):
        self.threshold = threshold

    def forward(self, scores):
        return (scores > self.threshold).nonzero().flatten()


try:
    Detect(0.5)(torch.tensor([0.9, 0.2, 0.7]))  # cause: legacy-post-processing
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %%
# Fix 1: static methods, settings as arguments, ``.apply``
# --------------------------------------------------------
# ``lambd`` becomes an argument of ``forward``, kept on ``ctx`` for the backward, which returns
# ``None`` for it (it is not a tensor). A small function keeps the call sites short:


class FixedGradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lambd * grad_output, None


def grad_reverse(x, lambd=1.0):
    return FixedGradReverse.apply(x, lambd)


x = torch.randn(3, requires_grad=True)
y = grad_reverse(x, 0.5)  # fixed
(3 * y).sum().backward()
torch.testing.assert_close(y.detach(), x.detach())  # the forward is the identity
torch.testing.assert_close(x.grad, torch.full((3,), -1.5))  # 3, reversed and halved
print("x.grad =", x.grad)

# %%
# The module calls the function instead of creating a Function object:


class FixedGradientReversal(torch.nn.Module):
    def __init__(self, lambd):
        super().__init__()
        self.lambd = lambd

    def forward(self, x):
        return grad_reverse(x, self.lambd)


reversed_features = FixedGradientReversal(0.5)(features)  # fix: legacy-function-object
reversed_features.sum().backward()
torch.testing.assert_close(features.grad, torch.full((4, 3), -0.5))

# %%
# ``Exp`` only needed to be called on the class: ``Exp.apply(x)``. The gradient of
# ``sum(exp(x))`` is ``exp(x)``:

x = torch.randn(3, requires_grad=True)
Exp.apply(x).sum().backward()  # fix: static-but-instantiated
torch.testing.assert_close(x.grad, x.detach().exp())

# %%
# Fix 2: no backward, no Function
# -------------------------------
# Many legacy Functions never needed autograd: the ``Detect`` post-processing of SSD
# implementations (decode boxes, non-maximum suppression), for instance, runs at inference and
# has no meaningful backward. Such code becomes a plain function or an ``nn.Module``:


def detect(scores, threshold=0.5):
    """Indices of the detections above a threshold: nothing to differentiate."""
    return (scores > threshold).nonzero().flatten()


scores = torch.tensor([0.9, 0.2, 0.7])
kept = detect(scores)  # fix: legacy-post-processing
print("kept:", kept)
assert kept.tolist() == [0, 2]

# %%
# The pitfall: ``.apply`` on an unconverted class
# -----------------------------------------------
# ``GradReverse.apply(x)`` on the *old* class runs the forward, since ``self`` now receives
# ``ctx``. But ``__init__`` never ran, so whatever it stored is missing, and the backward fails
# (or, worse, reads a class attribute of the same name):


def apply_on_the_old_class():
    x = torch.randn(3, requires_grad=True)
    y = GradReverse.apply(x)
    try:
        y.sum().backward()
    except AttributeError as error:
        print(f"AttributeError: {error}")


apply_on_the_old_class()

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: legacy-autograd-function
