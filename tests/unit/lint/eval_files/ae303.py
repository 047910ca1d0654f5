"""AE303: backward() of a running total, every iteration."""

import torch
from torch import nn

model = nn.Linear(3, 1)
criterion = nn.MSELoss()
loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]

# Flagged: the total carries the previous iterations' graphs into each backward().
total = 0
for inputs, targets in loader:
    total = total + criterion(model(inputs), targets)  # AE303
    total.backward()

total = torch.zeros(())
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    total += loss  # AE303
    total.backward()

# Written correctly: each iteration's loss differentiated, the total a number.
total = 0
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward()
    total += loss.item()

# Not flagged: the total starts afresh in every iteration, or keeps its graph on purpose.
for inputs, targets in loader:
    total = 0
    for part in inputs.split(2):
        total = total + model(part).sum()
    total.backward()


# Realistic: a function, a class, a DataLoader loop with an if.
def train(loader, optimizer, accumulate):
    objective = 0
    for inputs, targets in loader:
        objective = objective + criterion(model(inputs), targets)  # AE303
        if accumulate:
            optimizer.zero_grad()
            objective.backward()
            optimizer.step()


class Agent:
    def learn(self, episodes):
        self.returns = torch.zeros(())
        for reward in episodes:
            self.returns += reward * model(torch.randn(1, 3)).sum()  # AE303
            self.returns.backward()
