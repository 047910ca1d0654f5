"""AE104: a loss rebuilt from .item() values."""

import torch
import torch.distributed as dist
from torch import nn

model = nn.Linear(3, 1)
x, y = torch.randn(4, 3), torch.randn(4, 1)
loss_a = (model(x) - y).abs().mean()
loss_b = (model(x) - y).pow(2).mean()

# Flagged: made to require grad, or differentiated.
loss = torch.tensor(loss_a.item() + loss_b.item(), requires_grad=True)  # AE104
loss.backward()
torch.tensor([loss_a.item(), loss_b.item()]).sum().backward()  # AE104
total = torch.tensor(loss_a.item())  # AE104
total.backward()

# Written correctly: the loss tensors themselves.
loss = loss_a + loss_b
loss.backward(retain_graph=True)
torch.stack([loss_a, loss_b]).sum().backward()

# Not flagged: for logging or to reduce across processes.
logged = torch.tensor(loss_a.item())
print(logged)
if dist.is_initialized():
    dist.all_reduce(torch.tensor(loss_b.item()))
counts = torch.tensor([1.0, 2.0], requires_grad=True)


# Realistic: losses collected in a DataLoader loop, a function, a class, an if.
def train(loader, optimizer):
    for inputs, targets in loader:
        values = []
        for head in (model, model):
            values.append((head(inputs) - targets).pow(2).mean().item())
        optimizer.zero_grad()
        loss = torch.tensor(values, requires_grad=True).mean()  # AE104
        loss.backward()
        optimizer.step()


class Criterion:
    def __call__(self, parts):
        if len(parts) > 1:
            return torch.FloatTensor([p.item() for p in parts]).sum()
        return parts[0]
