"""AE305: a tensor moved or scaled after requires_grad=True."""

import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"

# Flagged: the copy is used as the leaf (an optimizer, .grad), and a moved Parameter.
w = torch.randn(784, 10, requires_grad=True).to(device)  # AE305
optimizer = torch.optim.SGD([w], lr=0.1)
b = torch.zeros(10, requires_grad=True) * 0.01  # AE305
print(b.grad)
bias = nn.Parameter(torch.zeros(10)).to(device)  # AE305
optimizer = torch.optim.SGD([w, bias], lr=0.1)
optimizer = torch.optim.Adam([torch.ones(3, requires_grad=True).double()])  # AE305

# Written correctly: made where it lives, or requires_grad_() last.
w = torch.randn(784, 10, device=device, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
b = (torch.zeros(10) * 0.01).requires_grad_()
print(b.grad)

# Not flagged: a non-leaf made on purpose (no .grad read, no optimizer, not stored on a module).
x = torch.ones(2, requires_grad=True) * 2
y = (x * x).sum()


# Realistic: weights made in a function, a module's attribute, an if.
def make_weights(sizes):
    weights = []
    for fan_in, fan_out in sizes:
        weight = torch.randn(fan_in, fan_out, requires_grad=True) * (2 / fan_in) ** 0.5  # AE305
        weights.append(weight)
        if weight.grad is None:
            pass
    return weights


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(1, requires_grad=True).cuda() if torch.cuda.is_available() else None
        self.shift = torch.zeros(1, requires_grad=True).to(device)  # AE305
