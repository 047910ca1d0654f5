"""AE402: a submodule replaced after the optimizer took the parameters."""

import torch
import torchvision
from torch import nn

# Flagged: a new head after the optimizer, a Sequential item, a parameter.
model = torchvision.models.resnet18()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
model.fc = nn.Linear(512, 10)  # AE402
optimizer.step()

stack = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
opt = torch.optim.Adam(stack.parameters())
stack[1] = nn.Linear(4, 5)  # AE402
opt.step()

layer = nn.Linear(3, 3)
sgd = torch.optim.SGD([{"params": layer.parameters(), "lr": 0.1}])
layer.bias = nn.Parameter(torch.zeros(3))  # AE402
sgd.step()

# Written correctly: the optimizer built after the model's last change.
model = torchvision.models.resnet18()
model.fc = nn.Linear(512, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
optimizer.step()

# Not flagged: rebuilt, or given the new parameters, before it is used; not among its parameters.
model = torchvision.models.resnet18()
optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
model.layer4 = nn.Identity()
optimizer.step()
model.fc = nn.Linear(512, 10)
optimizer.add_param_group({"params": model.fc.parameters()})
optimizer.step()
model.fc = nn.Linear(512, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
optimizer.step()


# Realistic: fine-tuning in a function, with an if; a class.
def fine_tune(num_classes, loader, feature_extract):
    net = torchvision.models.resnet50()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    if num_classes != 1000:
        net.fc = nn.Linear(net.fc.in_features, num_classes)  # AE402
    for inputs, targets in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(inputs), targets).backward()
        optimizer.step()


class Learner:
    def setup(self):
        self.model = torchvision.models.resnet18()
        self.optimizer = torch.optim.AdamW(self.model.parameters())
        self.model.fc = nn.Linear(512, 2)  # AE402
        return self.optimizer
