"""Gradient accumulation written with a running total that keeps every step's graph, and
`backward()` on the total at each step."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(4)]
total_loss = 0.0
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    total_loss = total_loss + loss
    total_loss.backward()
    optimizer.step()
print(f"total loss {total_loss.item():.3f}")
