"""AE503: anomaly detection on for a whole training run."""

import argparse

import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1))]

# Flagged: switched on at the top of a script that trains, and a context around the loop.
torch.autograd.set_detect_anomaly(True)  # AE503


def train(loader):
    with torch.autograd.detect_anomaly():  # AE503
        for inputs, targets in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(inputs), targets).backward()
            optimizer.step()


# Written correctly (and not flagged): one step under investigation, a debugging option.
def investigate(batch):
    with torch.autograd.detect_anomaly():
        nn.functional.mse_loss(model(batch[0]), batch[1]).backward()


parser = argparse.ArgumentParser()
parser.add_argument("--detect-anomaly", action="store_true")
args = parser.parse_args([])
if args.detect_anomaly:
    torch.autograd.set_detect_anomaly(True)


# Realistic: a main function that switches it on and trains in a DataLoader loop.
def main():
    torch.autograd.set_detect_anomaly(mode=True)  # AE503
    for inputs, targets in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()


if __name__ == "__main__":
    torch.autograd.set_detect_anomaly(True)  # AE503
    main()
