"""A two-stage model trained with a hand-written SGD step: the encoder's features are detached
before the head, so the encoder's parameters get no gradient."""

import torch
from torch import nn

torch.manual_seed(0)
encoder, head = nn.Linear(10, 16), nn.Linear(16, 2)
parameters = [*encoder.parameters(), *head.parameters()]
inputs, labels = torch.randn(32, 10), torch.randint(0, 2, (32,))
for _step in range(3):
    features = torch.relu(encoder(inputs)).detach()
    loss = nn.functional.cross_entropy(head(features), labels)
    loss.backward()
    with torch.no_grad():
        for parameter in parameters:
            parameter -= 0.05 * parameter.grad
            parameter.grad = None
