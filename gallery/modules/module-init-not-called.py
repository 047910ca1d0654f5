"""
module-init-not-called
======================

.. autograd-entry:: module-init-not-called

Where a module keeps its layers
-------------------------------

``nn.Module.__init__`` creates the registries a module keeps its parts in: ``_parameters``,
``_buffers`` and ``_modules`` (and the dicts of its hooks). ``Module.__setattr__`` sends every
``self.name = value`` to the right one, so that ``parameters()``, ``state_dict()``, ``.to()``
and the optimizer find them. Until ``super().__init__()`` has run, those registries do not
exist, and assigning a submodule or a parameter (or calling ``register_buffer``) refuses, with
a message that names what was assigned. Plain values (numbers, strings, tensors that are not
parameters) go through, which is why the error appears at the first layer, not the first line.
"""

import torch
from torch import nn

# %%
# The repro
# ---------
# A block whose ``__init__`` never calls the base class's:


class Block(nn.Module):
    def __init__(self, channels: int) -> None:  # broken: no super().__init__()
        self.channels = channels  # fine: a plain value
        self.conv = nn.Conv1d(channels, channels, 3, padding=1)  # broken

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


try:
    Block(4)  # cause: no-super-init
except AttributeError as error:
    print(f"AttributeError: {error}")

# %%
# Fix 1: call ``super().__init__()`` first
# ----------------------------------------
# Its first line. The layer is then registered: it is among the module's parameters, and a
# backward pass reaches its weights.


class FixedBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()  # fixed
        self.channels = channels
        self.conv = nn.Conv1d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


block = FixedBlock(4)  # fix: no-super-init
assert [name for name, _ in block.named_parameters()] == ["conv.weight", "conv.bias"]
x = torch.randn(2, 4, 8)
block(x).sum().backward()
expected = torch.autograd.grad(
    torch.relu(nn.functional.conv1d(x, block.conv.weight, block.conv.bias, padding=1)).sum(),
    block.conv.weight,
)[0]
torch.testing.assert_close(block.conv.weight.grad, expected)

# %%
# Assigned before the base class's ``__init__``
# ---------------------------------------------
# The call is there, but after the first assignments: often because the parent's ``__init__``
# takes arguments or calls a method that needs them (an autoencoder whose base builds the
# encoder and decoder, a model whose base sizes its head from ``self``'s layers). Parameters and
# ``register_buffer`` refuse the same way:


class Autoencoder(nn.Module):
    def __init__(self, encoder: nn.Module, decoder: nn.Module) -> None:
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder


class AdversarialAutoencoder(Autoencoder):
    def __init__(self, encoder: nn.Module, decoder: nn.Module, critic: nn.Module) -> None:
        self.critic = critic  # broken: before the base class's __init__
        super().__init__(encoder, decoder)


class Scaled(nn.Module):
    def __init__(self) -> None:
        self.scale = nn.Parameter(torch.ones(1))  # before super().__init__()
        super().__init__()


class Normalised(nn.Module):
    def __init__(self, mean: torch.Tensor) -> None:
        self.register_buffer("mean", mean)  # before super().__init__()
        super().__init__()


class NoBias(nn.Module):
    def __init__(self) -> None:
        self.register_parameter("bias", None)  # before super().__init__()
        super().__init__()


parts = (nn.Linear(4, 2), nn.Linear(2, 4), nn.Linear(2, 1))
try:
    AdversarialAutoencoder(*parts)  # cause: assigned-before-init
except AttributeError as error:
    print(f"AttributeError: {error}")
try:
    Scaled()  # cause: assigned-before-init
except AttributeError as error:
    print(f"AttributeError: {error}")
try:
    Normalised(torch.zeros(3))  # cause: assigned-before-init
except AttributeError as error:
    print(f"AttributeError: {error}")
try:
    NoBias()  # cause: assigned-before-init
except AttributeError as error:
    print(f"AttributeError: {error}")

# %%
# Fix 2: the base class's ``__init__`` first, your attributes after
# -----------------------------------------------------------------
# Keep what the parent needs in local variables, pass them to ``super().__init__()``, and
# assign to ``self`` afterwards. The modules then register what they hold:


class FixedAdversarialAutoencoder(Autoencoder):
    def __init__(self, encoder: nn.Module, decoder: nn.Module, critic: nn.Module) -> None:
        super().__init__(encoder, decoder)  # fixed
        self.critic = critic  # fixed


class FixedScaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))


class FixedNormalised(nn.Module):
    def __init__(self, mean: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("mean", mean)


class FixedNoBias(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_parameter("bias", None)


model = FixedAdversarialAutoencoder(*parts)  # fix: assigned-before-init
assert sorted(dict(model.named_children())) == ["critic", "decoder", "encoder"]
scaled = FixedScaled()  # fix: assigned-before-init
normalised = FixedNormalised(torch.zeros(3))  # fix: assigned-before-init
assert list(dict(scaled.named_parameters())) == ["scale"]
assert list(normalised.state_dict()) == ["mean"]
assert "bias" in FixedNoBias()._parameters  # fix: assigned-before-init
inputs = torch.randn(5, 4)
model.critic(model.encoder(inputs)).sum().backward()
torch.testing.assert_close(model.critic.weight.grad, model.encoder(inputs).detach().sum(0, True))

# %%
# Message across torch releases
# -----------------------------
#
# .. autograd-entry-footer:: module-init-not-called
