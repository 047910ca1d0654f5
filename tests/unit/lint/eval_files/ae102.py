"""AE102: retain_graph=True on the last backward() of an iteration that carries state."""

import torch
from torch import nn

rnn = nn.RNN(3, 5)
head = nn.Linear(5, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
loader = [(torch.randn(2, 1, 3), torch.randn(2, 1, 1)) for _ in range(3)]

# Flagged: the hidden state goes from one iteration to the next with its graph.
hidden = torch.zeros(1, 1, 5)
for x, y in loader:
    output, hidden = rnn(x, hidden)
    loss = ((head(output) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # AE102
    optimizer.step()

# Written correctly: the state is detached, and retain_graph is not needed.
hidden = torch.zeros(1, 1, 5)
for x, y in loader:
    hidden = hidden.detach()
    output, hidden = rnn(x, hidden)
    loss = ((head(output) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# Not flagged: a second backward through the same graph follows in the iteration.
hidden = torch.zeros(1, 1, 5)
for x, y in loader:
    output, hidden = rnn(x, hidden.detach())
    first = head(output).mean()
    second = output.pow(2).mean()
    first.backward(retain_graph=True)
    second.backward()

# Not flagged: higher-order gradients.
state = torch.zeros(1, 1, 5)
for x, y in loader:
    output, state = rnn(x, state)
    gradient = torch.autograd.grad(output.sum(), x, create_graph=True, retain_graph=True)

# Not flagged: the loop goes through one graph computed before it, on purpose.
features = rnn(loader[0][0])[0].sum()
for _ in range(3):
    features.backward(retain_graph=True)

# Not flagged: nothing is carried from one iteration to the next (memory kept a little longer).
for x, y in loader:
    output, _ = rnn(x)
    loss = ((head(output) - y) ** 2).mean()
    loss.backward(retain_graph=True)


# Realistic: a training function over a DataLoader, an if, a class.
def train(model, data, epochs):
    for _ in range(epochs):
        state = None
        for inputs, targets in data:
            if state is None:
                state = torch.zeros(1, 1, 5)
            outputs, state = model(inputs, state)
            loss = outputs.mean()
            loss.backward(retain_graph=True)  # AE102


class Agent:
    def learn(self, episodes):
        memory = torch.zeros(5)
        for observation in episodes:
            memory = torch.tanh(memory + observation)
            value = memory.sum()
            torch.autograd.backward(value, retain_graph=True)  # AE102
