"""A script whose first run fails and whose second does not: it fails only while the marker
file it creates (a side effect, as a checkpoint or a cache would be) does not exist yet."""

import os
import sys

import torch

marker = sys.argv[1]
first_run = not os.path.exists(marker)
with open(marker, "a", encoding="utf-8") as handle:
    handle.write("ran\n")
x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
if first_run:
    y.mul_(2)
y.sum().backward()
print("done")
