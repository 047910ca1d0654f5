"""AE103: a change through .data between the forward pass and backward()."""

import torch
from torch import nn

netD = nn.Linear(3, 1)
optimizerD = torch.optim.RMSprop(netD.parameters())
real, fake = torch.randn(4, 3), torch.randn(4, 3)

# Flagged: the critic's weights clipped after its forward pass, before its backward.
errD = netD(real).mean() - netD(fake).mean()
for p in netD.parameters():
    p.data.clamp_(-0.01, 0.01)  # AE103
errD.backward()
optimizerD.step()

w = torch.randn(3, requires_grad=True)
out = (w * w).sum()
w.data -= 0.5  # AE103
out.backward()

# Written correctly: clipped after backward(), under no_grad (or at the start of the step).
errD = netD(real).mean() - netD(fake).mean()
errD.backward()
optimizerD.step()
with torch.no_grad():
    for p in netD.parameters():
        p.clamp_(-0.01, 0.01)
for p in netD.parameters():
    p.data.clamp_(-0.01, 0.01)
errD = netD(real).mean() - netD(fake).mean()
errD.backward()

# Not flagged: gradients changed through .data (clipping), and a new forward pass before backward.
out = (w * w).sum()
out.backward()
w.grad.data.clamp_(-1, 1)
w.data -= 0.1 * w.grad
out = (w * 3).sum()
out.backward()


# Realistic: a WGAN critic step in a function, a DataLoader loop, a class.
def critic_step(loader, clip):
    for batch, _ in loader:
        optimizerD.zero_grad()
        loss = -netD(batch).mean()
        if clip:
            for parameter in netD.parameters():
                parameter.data.clamp_(-clip, clip)  # AE103
        loss.backward()
        optimizerD.step()


class Pruner:
    def step(self, weight, x):
        loss = (x @ weight).sum()
        weight.data[0] = 0.0  # AE103
        loss.backward()
