"""AE203: detach() or .data taken for a copy."""

import torch
from torch import nn

# Flagged: the notes' example, and the other direction (the original changes).
x = torch.tensor(3.0, requires_grad=True)
z = x.detach()  # AE203
z -= 1
print(z, x)

w = torch.randn(3, requires_grad=True)
before = w.data  # AE203
with torch.no_grad():
    w.add_(1.0)
print((w - before).abs().max())

# Written correctly: a copy.
z = x.detach().clone()
z -= 1
print(z, x)
before = w.detach().clone()
with torch.no_grad():
    w.add_(1.0)
print((w - before).abs().max())

# Not flagged: read only, the name detached in place of itself, the alias written on purpose.
h = torch.randn(2, 3, requires_grad=True)
h = h.detach()
h += 1
logged = w.detach()
print(logged.mean())


class Registry:
    def __init__(self):
        self.data = {}

    def update(self, other):
        d = self.data
        for key, value in other.items():
            d[key] = value
        items = self.data
        items |= {"updated": True}
        return self


layer = nn.Linear(3, 3)
weight = layer.weight.data
weight.mul_(0.5)
layer.weight.data = weight


# Realistic: a history of weights in a training function, a class, an if.
def train(model, loader, optimizer):
    start = model.weight.detach()  # AE203
    for inputs, targets in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
        with torch.no_grad():
            model.weight.clamp_(-1, 1)
    return (model.weight - start).norm()


class Snapshot:
    def take(self, tensor, noisy):
        copy = tensor.detach()  # AE203
        if noisy:
            copy.add_(torch.randn_like(copy))
        return copy, tensor.sum()
