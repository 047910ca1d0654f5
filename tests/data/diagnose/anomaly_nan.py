"""A siamese encoder trained with a contrastive loss under anomaly mode. One pair holds the same
sample twice: its distance, a square root of a sum of squares, is 0 there, and sqrt's derivative
at 0 is infinite. Anomaly mode names the node after it, which turns that infinity into NaN."""

import torch
from torch import nn

torch.autograd.set_detect_anomaly(True)
torch.manual_seed(0)


def distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    squared = ((a - b) ** 2).sum(dim=1)
    return torch.sqrt(squared)


encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4))
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
left = torch.randn(8, 6)
right = torch.randn(8, 6)
right[3] = left[3]  # a positive pair: the same sample twice
same = torch.tensor([0, 0, 0, 1, 0, 0, 1, 0], dtype=torch.float)
for _step in range(3):
    optimizer.zero_grad()
    gap = distance(encoder(left), encoder(right))
    loss = (same * gap + (1 - same) * torch.relu(1.0 - gap)).mean()
    loss.backward()
    optimizer.step()
