"""AE501: a training loop that never clears the gradients."""

import torch
from torch import nn

model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]

# Flagged: backward and step in every iteration, no zero_grad anywhere in the loop.
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()  # AE501

optimizer.zero_grad()
for inputs, targets in loader:
    scaler.scale(criterion(model(inputs), targets)).backward()
    scaler.step(optimizer)  # AE501
    scaler.update()

# Written correctly: zero_grad once per step, by any of its names.
for inputs, targets in loader:
    optimizer.zero_grad()
    criterion(model(inputs), targets).backward()
    optimizer.step()
for inputs, targets in loader:
    criterion(model(inputs), targets).backward()
    optimizer.step()
    model.zero_grad(set_to_none=True)
for inputs, targets in loader:
    for p in model.parameters():
        p.grad = None
    criterion(model(inputs), targets).backward()
    optimizer.step()

# Not flagged: accumulating over micro-batches and stepping every k steps (cleared there too).
accumulation = 2
for step, (inputs, targets) in enumerate(loader):
    (criterion(model(inputs), targets) / accumulation).backward()
    if (step + 1) % accumulation == 0:
        optimizer.step()
        optimizer.zero_grad()

# Not flagged: the step of an object that is not an optimizer; backward inside a closure.
env_steps = []
for inputs, targets in loader:
    criterion(model(inputs), targets).backward()
    env_steps.append(inputs)
lbfgs = torch.optim.LBFGS(model.parameters())
for inputs, targets in loader:

    def closure():
        lbfgs.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        return loss

    lbfgs.step(closure)


# Realistic: an epoch function, a class with two optimizers, an if.
def train(model, loader, optimizer, epochs):
    model.zero_grad()
    for _ in range(epochs):
        for inputs, targets in loader:
            loss = criterion(model(inputs), targets)
            loss.backward()
            if loss.item() > 0:
                optimizer.step()  # AE501


class GAN:
    def fit(self, loader):
        for real, _ in loader:
            self.opt_d.zero_grad()
            self.d_loss(real).backward()
            self.opt_d.step()
            self.g_loss(real).backward()
            self.opt_g.step()
