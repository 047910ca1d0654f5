"""AE502: zero_grad() between backward() and step()."""

import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
opt_g = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1))]

# Flagged: the gradients cleared just before the step that needs them.
for inputs, targets in loader:
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.zero_grad()  # AE502
    optimizer.step()

# Written correctly: any order in which zero_grad() is not between the other two.
for inputs, targets in loader:
    loss = nn.functional.mse_loss(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
for inputs, targets in loader:
    nn.functional.mse_loss(model(inputs), targets).backward()
    optimizer.step()
    optimizer.zero_grad()

# Not flagged: another optimizer's gradients, or a new backward() before the step.
for inputs, targets in loader:
    d_loss = nn.functional.mse_loss(model(inputs), targets)
    d_loss.backward()
    opt_g.zero_grad()
    optimizer.step()
    optimizer.zero_grad()
    g_loss = model(inputs).mean()
    g_loss.backward()
    optimizer.step()


# Realistic: a step function, a class, an if.
def train_step(model, batch, optimizer, clip):
    loss = nn.functional.mse_loss(model(batch[0]), batch[1])
    loss.backward()
    if clip:
        nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.zero_grad()  # AE502
    optimizer.step()


class Trainer:
    def step(self, loss):
        loss.backward()
        self.optimizer.zero_grad()  # AE502
        self.optimizer.step()
