"""The RNN of the notes this project grew from: a cell that keeps its hidden state between
steps as an attribute, with the graph that computed it (`self.hx = out`)."""

import torch
from torch import nn

torch.manual_seed(0)


class RNNCell(nn.Module):
    def __init__(self, inputs: int, hidden: int) -> None:
        super().__init__()
        self.W_ih = nn.Parameter(torch.randn(inputs, hidden) * 0.1)
        self.W_hh = nn.Parameter(torch.randn(hidden, hidden) * 0.1)
        self.b = nn.Parameter(torch.zeros(hidden))
        self.hx = torch.zeros(1, hidden)

    def forward(self, x_t: torch.Tensor) -> torch.Tensor:
        out = torch.mm(x_t, self.W_ih) + torch.mm(self.hx, self.W_hh) + self.b
        self.hx = out
        return out


cell, readout = RNNCell(3, 5), nn.Linear(5, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *readout.parameters()], lr=0.01)
sequence, targets = torch.randn(10, 1, 3), torch.randn(10, 1, 1)
for t in range(10):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(readout(cell(sequence[t])), targets[t])
    loss.backward()
    optimizer.step()
