"""AE101: requires_grad switched on for a loss, then backward()."""

import torch
from torch import nn

model = nn.Linear(3, 1)
criterion = nn.MSELoss()
x, y = torch.randn(4, 3), torch.randn(4, 1)

# Flagged: the flag set, as an attribute or with requires_grad_(), then backward().
loss = criterion(model(x).detach(), y)
loss.requires_grad = True  # AE101
loss.backward()

loss = criterion(model(x).detach(), y)
loss.requires_grad_()  # AE101
loss.backward()

loss = criterion(model(x).detach(), y)
loss.requires_grad_(True)  # AE101
loss.backward()

# Written correctly: the loss keeps its graph.
loss = criterion(model(x), y)
loss.backward()

# Not flagged: a leaf made here on purpose, and a flag with no backward() of that tensor.
seed = torch.zeros(3)
seed.requires_grad = True
seed.sum().backward()
image = torch.rand(1, 3)
image.requires_grad_()
criterion(model(image), y[:1]).backward()
loss = criterion(model(x).detach(), y)
loss.requires_grad = True
loss = criterion(model(x), y)
loss.backward()


# Realistic: a training function, a class, a DataLoader loop, an if.
def train(loader, optimizer):
    for inputs, targets in loader:
        optimizer.zero_grad()
        out = model(inputs)
        loss = criterion(out.argmax(1, keepdim=True).float(), targets)
        if not loss.requires_grad:
            loss.requires_grad = True  # AE101
        loss.backward()
        optimizer.step()


class Trainer:
    def step(self, batch):
        self.loss = criterion(model(batch[0]).detach(), batch[1])
        self.loss.requires_grad = True  # AE101
        self.loss.backward()
