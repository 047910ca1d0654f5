"""AE202: a computed result changed through .data and then used."""

import torch
from torch import nn

tuner = nn.Linear(4, 4)
criterion = nn.MSELoss()
features, target, target_maps = torch.randn(2, 4), torch.randn(2, 4), torch.randn(2, 4)

# Flagged: the notes' `output.data = out_maps.data`, and a clamp through .data.
output = tuner(features)
output.data = target_maps.data  # AE202
loss = criterion(output, target)
loss.backward()

probs = torch.sigmoid(tuner(features))
probs.data.clamp_(1e-6, 1 - 1e-6)  # AE202
loss = nn.functional.binary_cross_entropy(probs, target.sigmoid())
loss.backward()

# Written correctly: out of place, or a straight-through substitution.
output = tuner(features)
output = output + (target_maps - output).detach()
criterion(output, target).backward()
probs = torch.sigmoid(tuner(features)).clamp(1e-6, 1 - 1e-6)
nn.functional.binary_cross_entropy(probs, target.sigmoid()).backward()

# Not flagged: a tensor made from values, a moved one, computed without a graph, not used again.
buffer = torch.zeros(2, 4)
buffer.data = target_maps
criterion(tuner(buffer), target).backward()
moved = features.to("cpu")
moved.data = target_maps
with torch.no_grad():
    frozen = tuner(features)
frozen.data = target_maps
print(criterion(frozen, target))
unused = tuner(features)
unused.data = target_maps
criterion(tuner(features), target).backward()


# Realistic: the notes' loop over time steps, in a function; a class; an if.
def tune(in_maps, target_map, snn):
    for t in range(in_maps.shape[0]):
        out_maps = snn(in_maps[t]).sum(1)
        output = tuner(in_maps[t].sum(1))
        if output.shape == out_maps.shape:
            output.data = out_maps.data  # AE202
        loss = criterion(output, target_map[t])
        loss.backward()


class Head(nn.Module):
    def forward(self, x, y):
        logits = tuner(x)
        logits.data[:, 0] = -1e9  # AE202
        loss = criterion(logits, y)
        loss.backward()
        return logits
