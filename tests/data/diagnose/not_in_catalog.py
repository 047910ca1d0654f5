"""A training loop that fails with an error outside the catalog: the model's first layer
expects 12 features and the data has 10."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, targets = torch.randn(16, 10), torch.randn(16, 1)
print("training")
for _step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
