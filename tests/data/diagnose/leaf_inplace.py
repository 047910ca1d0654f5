"""Linear regression with a gradient step written by hand, outside `torch.no_grad()`."""

import torch

torch.manual_seed(0)
inputs = torch.randn(100, 3)
targets = inputs @ torch.tensor([[2.0], [-1.0], [0.5]]) + 0.1 * torch.randn(100, 1)
w = torch.zeros(3, 1, requires_grad=True)
learning_rate = 0.1
for _step in range(20):
    loss = ((inputs @ w - targets) ** 2).mean()
    loss.backward()
    w -= learning_rate * w.grad
    w.grad.zero_()
