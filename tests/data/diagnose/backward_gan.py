"""A GAN step whose discriminator loss uses the generator's output without detaching it: its
backward frees the generator's graph, which the generator loss needs again."""

import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
discriminator = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
g_optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4)
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
criterion = nn.BCEWithLogitsLoss()
real = torch.randn(16, 8)
ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
for _step in range(3):
    noise = torch.randn(16, 4)
    fake = generator(noise)

    d_optimizer.zero_grad()
    d_loss = criterion(discriminator(real), ones) + criterion(discriminator(fake), zeros)
    d_loss.backward()
    d_optimizer.step()

    g_optimizer.zero_grad()
    g_loss = criterion(discriminator(fake), ones)
    g_loss.backward()
    g_optimizer.step()
