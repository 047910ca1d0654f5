"""AE201: a leaf that requires grad updated in place with grad mode on."""

import torch
from torch import nn

x_data, y_data = torch.randn(8, 3), torch.randn(8)
loader = [(x_data, y_data)]

# Flagged: a gradient step written by hand, and in-place changes to a leaf made here.
w = torch.randn(3, requires_grad=True)
loss = ((x_data @ w - y_data) ** 2).mean()
loss.backward()
w -= 0.1 * w.grad  # AE201
w.add_(w.grad, alpha=-0.1)  # AE201
b = nn.Parameter(torch.zeros(1))
b += 1  # AE201
mask = torch.randn(3, requires_grad=True)
mask[mask < 0] = 0  # AE201
delta = torch.zeros(3, requires_grad=True)
delta.clamp_(-0.1, 0.1)  # AE201

# Written correctly: under torch.no_grad(), or out of place before requires_grad.
with torch.no_grad():
    w -= 0.1 * w.grad
    delta.clamp_(-0.1, 0.1)
w.grad = None
noise = torch.randn(3)
noise += 1
start = torch.zeros(3)
start[0] = 1.0
start.requires_grad_()

# Not flagged: no longer requiring grad, detached, a resize (another error), a gradient changed.
frozen = torch.randn(3, requires_grad=True)
frozen.requires_grad_(False)
frozen.mul_(2)
w.grad = torch.zeros(3)
w.grad.zero_()
torch.set_grad_enabled(False)
w -= 0.1
torch.set_grad_enabled(True)


@torch.no_grad()
def sgd(parameters, lr):
    for parameter in parameters:
        parameter -= lr * parameter.grad


def update(parameters, lr):
    for parameter in parameters:
        parameter.sub_(lr * parameter.grad)


with torch.no_grad():
    update([w], 0.1)


# Realistic: a hand-written training loop in a function, a class, an if.
def train(epochs, lr=0.1):
    weight = torch.randn(3, requires_grad=True)
    for _ in range(epochs):
        for inputs, targets in loader:
            loss = ((inputs @ weight - targets) ** 2).mean()
            loss.backward()
            if weight.grad is not None:
                weight -= lr * weight.grad  # AE201
            weight.grad = None


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def step(self, lr):
        for p in self.parameters():
            p.data.add_(p.grad, alpha=-lr)
        self.scale -= lr * self.scale.grad  # AE201
