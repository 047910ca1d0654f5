"""A correct training loop: a small MLP on a fixed synthetic task. It prints its losses and
writes its final weights (as hexadecimal floats, bit for bit) to the file it is given."""

import sys

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
inputs, labels = torch.randn(128, 10), torch.randint(0, 3, (128,))
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
for step in range(steps):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: loss {loss.item():.6f}")
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    for name, parameter in model.named_parameters():
        values = " ".join(float(v).hex() for v in parameter.detach().flatten().tolist())
        handle.write(f"{name} {values}\n")
