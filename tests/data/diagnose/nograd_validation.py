"""A training loop that reuses the validation helper, which computes its loss under
`torch.no_grad()`."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, labels = torch.randn(64, 10), torch.randint(0, 3, (64,))


def batch_loss(batch: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        logits = model(batch)
    return nn.functional.cross_entropy(logits, targets)


for _epoch in range(3):
    for start in range(0, 64, 16):
        optimizer.zero_grad()
        loss = batch_loss(inputs[start : start + 16], labels[start : start + 16])
        loss.backward()
        optimizer.step()
