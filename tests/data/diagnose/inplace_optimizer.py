"""Two losses from one forward pass: the optimizer steps between their two backward calls,
changing the weights the forward pass saved."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
inputs, targets = torch.randn(32, 8), torch.randn(32, 4)
for _step in range(2):
    optimizer.zero_grad()
    outputs = model(inputs)
    reconstruction = nn.functional.mse_loss(outputs, targets)
    sparsity = outputs.abs().mean()
    reconstruction.backward(retain_graph=True)
    optimizer.step()
    sparsity.backward()
    optimizer.step()
