"""Training run in a background thread, as a server or a GUI would: the in-place error is
raised in that thread, which diagnosis does not record."""

import threading

import torch
from torch import nn


def train() -> None:
    torch.manual_seed(0)
    layer = nn.Linear(4, 4)
    hidden = torch.sigmoid(layer(torch.randn(2, 4)))
    hidden *= 2
    hidden.sum().backward()


worker = threading.Thread(target=train, name="trainer")
worker.start()
worker.join()
print("main thread done")
