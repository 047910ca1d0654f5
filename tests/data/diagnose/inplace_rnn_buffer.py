"""A hand-written RNN that writes each step's hidden state into one preallocated tensor, and
reads the previous step from it."""

import torch

torch.manual_seed(0)
steps, batch, size = 5, 3, 4
weight_in = torch.randn(size, size, requires_grad=True)
weight_h = torch.randn(size, size, requires_grad=True)
inputs, target = torch.randn(steps, batch, size), torch.randn(batch, size)
for _epoch in range(2):
    hidden = torch.zeros(steps + 1, batch, size)
    for t in range(steps):
        hidden[t + 1] = torch.tanh(inputs[t] @ weight_in + hidden[t] @ weight_h)
    loss = ((hidden[-1] - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for weight in (weight_in, weight_h):
            weight -= 0.1 * weight.grad
            weight.grad = None
