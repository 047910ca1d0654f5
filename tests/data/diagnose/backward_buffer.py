"""A normalisation layer that keeps a running mean in a buffer, updated with the graph of the
batch that computed it."""

import torch
from torch import nn

torch.manual_seed(0)


class RunningCenter(nn.Module):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            self.running_mean = 0.9 * self.running_mean + 0.1 * x.mean(dim=0)
        return x - self.running_mean


model = nn.Sequential(nn.Linear(5, 5), RunningCenter(5), nn.Tanh(), nn.Linear(5, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for _step in range(3):
    inputs, targets = torch.randn(8, 5), torch.randn(8, 1)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
