"""AE204: model.state_dict() kept as a snapshot while training goes on."""

import copy

import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1))]
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)

# Flagged: the best epoch's weights kept as references, then restored after the loop.
best_loss, best_state = float("inf"), None
for epoch in range(3):
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
    if loss.item() < best_loss:
        best_loss = loss.item()
        best_state = model.state_dict()  # AE204
model.load_state_dict(best_state)

initial = model.state_dict()  # AE204
for inputs, targets in loader:
    optimizer.zero_grad()
    nn.functional.mse_loss(model(inputs), targets).backward()
    optimizer.step()
model.load_state_dict(initial)

# Written correctly: copies.
for epoch in range(3):
    for inputs, targets in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    best_state = copy.deepcopy(model.state_dict())
model.load_state_dict(best_state)

# Not flagged: saved at once, a scheduler's state (numbers), no training in between.
for epoch in range(3):
    for inputs, targets in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    torch.save(model.state_dict(), f"epoch{epoch}.pt")
    schedule = scheduler.state_dict()
    scheduler.step()
print(schedule)
weights = model.state_dict()
torch.save(weights, "final.pt")


# Realistic: a fine-tuning function that trains in a helper, a class, an if.
def fit(model, epochs, train_one_epoch, evaluate):
    best_accuracy, best_weights = 0.0, None
    for _ in range(epochs):
        train_one_epoch(model)
        accuracy = evaluate(model)
        if accuracy > best_accuracy:
            best_accuracy, best_weights = accuracy, None
            best_weights = model.state_dict()  # AE204
    model.load_state_dict(best_weights)
    return model


class EarlyStopping:
    def run(self, trainer, model, patience):
        for _ in range(patience):
            trainer.train_epoch(model)
            self.best = model.state_dict()  # AE204
        return self.best
