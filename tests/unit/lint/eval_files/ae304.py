"""AE304: module state carried to the next call with its graph."""

import torch
from torch import nn


# Flagged: the notes' cell (self.hx = out), and a running statistic kept with its graph.
class Cell(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.w_ih = nn.Parameter(torch.randn(size, size))
        self.w_hh = nn.Parameter(torch.randn(size, size))
        self.hx = torch.zeros(1, size)

    def forward(self, x_t):
        out = torch.mm(x_t, self.w_ih) + torch.mm(self.hx, self.w_hh)
        self.hx = out  # AE304
        return out


class Normalise(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.mean = torch.zeros(4)

    def forward(self, x):
        h = self.proj(x)
        self.mean = 0.9 * self.mean + 0.1 * h.mean(0)  # AE304
        return h - self.mean


# Written correctly: the state stored detached.
class DetachedCell(Cell):
    def forward(self, x_t):
        out = torch.mm(x_t, self.w_ih) + torch.mm(self.hx, self.w_hh)
        self.hx = out.detach()
        return out


# Not flagged: a counter, a state reset by the caller, set afresh in the same call, no grad.
class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = 0
        self.seen = 0

    def forward(self, x):
        self.steps = self.steps + 1
        self.seen = self.seen + x.size(0)
        return x


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.RNNCell(3, 3)
        self.h = None
        self.last = None

    def reset(self, batch):
        self.h = torch.zeros(batch, 3)

    def forward(self, x):
        self.h = self.cell(x, self.h)
        self.last = torch.zeros(3)
        self.last = self.last + self.cell(x, self.h).sum(0)
        return self.h


class Cached(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)
        self.cache = torch.zeros(0, 3)

    def forward(self, x):
        with torch.no_grad():
            self.cache = torch.cat([self.cache, self.proj(x)])
        return self.proj(x)


# Realistic: an if in forward, a tuple of states, a submodule call.
class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(3, 3)
        self.state = None

    def forward(self, x):
        if self.state is None:
            output = self.lstm(x)
        else:
            output = self.lstm(x, self.state)
        self.state = output  # AE304
        return output[0]
