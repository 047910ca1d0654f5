"""Softmax regression written by hand, whose weights are scaled after `requires_grad=True`:
the tensor trained is the product, a non-leaf, and its `.grad` stays None."""

import torch
from torch import nn

torch.manual_seed(0)
features, labels = torch.randn(50, 20), torch.randint(0, 3, (50,))
weights = torch.randn(20, 3, requires_grad=True) * 0.01
bias = torch.zeros(3, requires_grad=True)
for _step in range(5):
    logits = features @ weights + bias
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()
    with torch.no_grad():
        weights -= 0.1 * weights.grad
        bias -= 0.1 * bias.grad
