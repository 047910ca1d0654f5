"""AE301: backward() of a result computed with grad mode off."""

import torch
from torch import nn

model = nn.Linear(3, 1)
criterion = nn.MSELoss()
x, y = torch.randn(4, 3), torch.randn(4, 1)

# Flagged: computed under no_grad, differentiated inside the block or after it.
with torch.no_grad():
    loss = criterion(model(x), y)
    loss.backward()  # AE301

with torch.no_grad():
    logits = model(x)
logits.backward(torch.ones_like(logits))  # AE301

# Written correctly: computed with grad mode on (backward under no_grad works too).
loss = criterion(model(x), y)
loss.backward()
loss = criterion(model(x), y)
with torch.no_grad():
    loss.backward()

# Not flagged: a leaf made there, a gradient read there, a mode this file cannot know.
with torch.no_grad():
    leaf = torch.randn(3, requires_grad=True)
    grads = [p.grad for p in model.parameters()]
leaf.sum().backward()


def helper(batch):
    return criterion(model(batch), y)


with torch.no_grad():
    metric = helper(x)


# Realistic: an evaluation function reused for training, a class, a DataLoader loop, an if.
@torch.no_grad()
def evaluate(loader, train_too):
    for inputs, targets in loader:
        loss = criterion(model(inputs), targets)
        if train_too:
            loss.backward()  # AE301


class Trainer:
    def step(self, inputs, targets):
        with torch.set_grad_enabled(False):
            out = model(inputs)
        torch.autograd.backward(out, torch.ones_like(out))  # AE301


def fit(loader):
    torch.set_grad_enabled(False)
    for inputs, targets in loader:
        criterion(model(inputs), targets).backward()  # AE301
