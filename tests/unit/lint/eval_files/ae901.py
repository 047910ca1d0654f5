"""AE901 (opinionated, off by default): any in-place change through .data."""
# OPTIONS: --select AE9

import torch
from torch import nn

model = nn.Linear(3, 1)
lr = 0.1

# Flagged when selected: updates and initialisations through .data.
for p in model.parameters():
    p.data.add_(p.grad if p.grad is not None else torch.zeros_like(p), alpha=-lr)  # AE901
model.bias.data.zero_()  # AE901
model.weight.data[0] -= 1  # AE901

# Written correctly: under torch.no_grad().
with torch.no_grad():
    for p in model.parameters():
        p.add_(torch.ones_like(p), alpha=-lr)
    model.bias.zero_()

# Not flagged: replacing .data (the way to change a parameter's dtype or shape), a gradient.
model.weight.data = model.weight.data.double()
for p in model.parameters():
    if p.grad is not None:
        p.grad.data.clamp_(-1, 1)


# Realistic: an initialisation function and a class.
def init_weights(module):
    if isinstance(module, nn.Linear):
        module.weight.data.normal_(0.0, 0.02)  # AE901


class Clipper:
    def __call__(self, module):
        for parameter in module.parameters():
            parameter.data.clamp_(-0.01, 0.01)  # AE901
