"""AE401: a plain tensor assigned to a module's parameter."""

import torch
import torch.nn.functional as F
from torch import nn

# Flagged: the notes' TypeError, a weight computed from itself, register_parameter.
net = nn.Sequential(nn.Linear(3, 1, bias=True))
net[0].weight = torch.randn(3)  # AE401
layer = nn.Linear(3, 1)
layer.weight = layer.weight * 2  # AE401
layer.bias = torch.zeros(1)  # AE401
layer.register_parameter("scale", torch.ones(1))  # AE401

# Written correctly: values copied in, or a new Parameter.
with torch.no_grad():
    net[0].weight.copy_(torch.randn(1, 3))
layer.weight = nn.Parameter(torch.randn(1, 3))
layer.register_parameter("scale", nn.Parameter(torch.ones(1)))
net[0].weight.data = torch.randn(1, 3)

# Not flagged: not clearly a plain tensor, not clearly a module, a deleted parameter.
layer.weight = layer.weight.to("cpu")
layer.bias = None
values = torch.zeros(1, 3)


class Config:
    weight = 1.0


config = Config()
config.weight = torch.ones(3)
hyper = nn.Linear(2, 3)
target = nn.Linear(3, 1)
del target.weight
target.weight = hyper(torch.ones(2)).unsqueeze(0)


# Realistic: a parameter overwritten in forward, in __init__ under an if, a subclassed layer.
class Mixture(nn.Module):
    def __init__(self, n, normalise):
        super().__init__()
        self.layer_weights = nn.Parameter(torch.ones(n))
        if normalise:
            self.layer_weights = F.softmax(self.layer_weights, dim=0)  # AE401

    def forward(self, layers):
        self.layer_weights = F.softmax(self.layer_weights, dim=0)  # AE401
        return sum(w * layer for w, layer in zip(self.layer_weights, layers))


class Scaled(nn.Linear):
    def reset(self):
        self.weight = self.weight.detach().clone()  # AE401


class Pruned(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def prune(self, mask):
        self.fc.weight = self.fc.weight * mask  # AE401
