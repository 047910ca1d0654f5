"""AE302: a running total of losses that keeps every graph."""

import torch
from torch import nn

model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]

# Flagged: PyTorch's FAQ loop, a list of losses, a sum weighted by the batch size.
total_loss = 0
losses = []
running = 0.0
for inputs, targets in loader:
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    total_loss += loss  # AE302
    losses.append(loss)  # AE302
    running = running + loss * inputs.size(0)  # AE302

# Written correctly: numbers, or detached tensors.
total_loss = 0.0
losses = []
for inputs, targets in loader:
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    total_loss += loss.item()
    losses.append(loss.detach())

# Not flagged: accumulating to differentiate once after the loop, a total reset each step.
total = 0
for inputs, targets in loader:
    total += criterion(model(inputs), targets)
total.backward()
for inputs, targets in loader:
    step_total = 0
    loss = criterion(model(inputs), targets)
    step_total += loss
    loss.backward()


# Realistic: an epoch function, a class with a meter, a logging if.
def train_epoch(model, loader, optimizer, log_every):
    epoch_loss = 0
    for step, (inputs, targets) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        if step % log_every == 0:
            epoch_loss += loss  # AE302
    return epoch_loss / len(loader)


class Trainer:
    def __init__(self):
        self.history = []

    def fit(self, loader):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            self.history.append(loss)  # AE302
