"""A one-head self-attention classifier that zeroes the padded positions of its attention
weights in place, after the softmax saved them."""

import math

import torch
from torch import nn

torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.scale = 1 / math.sqrt(dim)

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(1, 2) * self.scale, dim=-1)
        weights.masked_fill_(padding[:, None, :], 0.0)
        return weights @ v


attention, head = Attention(16), nn.Linear(16, 2)
optimizer = torch.optim.Adam([*attention.parameters(), *head.parameters()], lr=1e-3)
tokens = torch.randn(4, 6, 16)
padding = torch.zeros(4, 6, dtype=torch.bool)
padding[:, 4:] = True
labels = torch.tensor([0, 1, 0, 1])
for _step in range(3):
    optimizer.zero_grad()
    logits = head(attention(tokens, padding).mean(dim=1))
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
