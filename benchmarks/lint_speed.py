"""How long ``python -m autograd_errors lint`` takes on a folder of 1,000 generated files (issue
26: under 10 s on this 2-core machine). A benchmark, not a test: it prints figures.

Each file is a training script of about 150 lines put together from the pieces below (a model
class, a dataset, a training loop, an evaluation function, a checkpoint), with its names varied
so that no two files are the same; one in five carries a mistake a rule flags. The time is the
whole command, as a user or a pre-commit hook runs it: the interpreter's start, the rules' data,
every file read, parsed and checked, the findings printed.

    python benchmarks/lint_speed.py [--files N] [--runs N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = '''"""Train {name} on {data}."""

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset
'''

MODEL = """

class {model}(nn.Module):
    def __init__(self, width={width}, depth={depth}, classes={classes}):
        super().__init__()
        self.embed = nn.Linear({features}, width)
        self.blocks = nn.ModuleList(
            [
                nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU())
                for _ in range(depth)
            ]
        )
        self.head = nn.Linear(width, classes)
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = h + block(h)
        return self.head(h) * self.scale
"""

DATASET = """

class {dataset}(Dataset):
    def __init__(self, size={size}):
        self.inputs = torch.randn(size, {features})
        self.targets = torch.randint(0, {classes}, (size,))

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, index):
        return self.inputs[index], self.targets[index]
"""

TRAIN = """

def {train}(model, loader, optimizer, scheduler, epochs={epochs}, clip={clip}):
    history = []
    for epoch in range(epochs):
        model.train()
        running = 0.0
        for step, (inputs, targets) in enumerate(loader):
            optimizer.zero_grad(set_to_none=True)
            logits = model(inputs)
            loss = F.cross_entropy(logits, targets, label_smoothing={smoothing})
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            scheduler.step()
            running += loss.item()
            if step % {log_every} == 0:
                print(f"epoch {{epoch}} step {{step}} loss {{running / (step + 1):.4f}}")
        history.append(running / max(1, len(loader)))
    return history
"""

EVALUATE = """

@torch.no_grad()
def {evaluate}(model, loader):
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    for inputs, targets in loader:
        logits = model(inputs)
        loss_sum += F.cross_entropy(logits, targets, reduction="sum").item()
        correct += (logits.argmax(1) == targets).sum().item()
        total += len(targets)
    return loss_sum / total, correct / total
"""

MAIN = """

def main(seed={seed}):
    torch.manual_seed(seed)
    model = {model}()
    loader = DataLoader({dataset}(), batch_size={batch}, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr={lr}, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={epochs} * len(loader))
    best, best_state = math.inf, None
    for round_ in range({rounds}):
        {train}(model, loader, optimizer, scheduler)
        loss, accuracy = {evaluate}(model, loader)
        if loss < best:
            best, best_state = loss, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    torch.save(model.state_dict(), "{name}.pt")
    return best


if __name__ == "__main__":
    main()
"""

#: Mistakes the rules catch, one in five files carries one.
MISTAKES = [
    """

def bad_step(model, batch, optimizer):
    loss = F.mse_loss(model(batch[0]).detach(), batch[1])
    loss.requires_grad = True
    loss.backward()
    optimizer.step()
""",
    """

def leak(model, loader, optimizer):
    total = 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss
    return total
""",
    """

def no_zero(model, loader, optimizer):
    for x, y in loader:
        F.mse_loss(model(x), y).backward()
        optimizer.step()
""",
]


def generated(index: int, rng: random.Random) -> str:
    names = {
        "name": f"run{index}",
        "data": rng.choice(["CIFAR-10", "MNIST", "a toy set", "ImageNet-1k"]),
        "model": f"Net{index}",
        "dataset": f"Data{index}",
        "train": f"train_{index}",
        "evaluate": f"evaluate_{index}",
        "width": rng.choice([64, 128, 256]),
        "depth": rng.randint(2, 8),
        "classes": rng.choice([10, 100]),
        "features": rng.choice([16, 32, 784]),
        "size": rng.choice([256, 1024]),
        "epochs": rng.randint(1, 5),
        "clip": rng.choice([0.0, 1.0]),
        "smoothing": rng.choice([0.0, 0.1]),
        "log_every": rng.choice([10, 50]),
        "seed": index,
        "batch": rng.choice([32, 64]),
        "lr": rng.choice([1e-3, 3e-4]),
        "rounds": rng.randint(1, 3),
    }
    parts = [HEADER, MODEL, DATASET, TRAIN, EVALUATE, MAIN]
    text = "".join(part.format(**names) for part in parts)
    if index % 5 == 0:
        text += MISTAKES[index // 5 % len(MISTAKES)]
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(26)
    with tempfile.TemporaryDirectory() as folder:
        lines = 0
        for index in range(args.files):
            text = generated(index, rng)
            lines += text.count("\n")
            path = Path(folder) / f"package{index % 20}" / f"script{index}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-m", "autograd_errors", "lint", folder],
                capture_output=True,
                text=True,
                check=False,
            )
            times.append(time.perf_counter() - start)
            if result.returncode not in (0, 1):
                raise SystemExit(f"lint failed ({result.returncode}): {result.stderr}")
        findings = len(result.stdout.splitlines())
    best, median = min(times), statistics.median(times)
    print(f"lint on {args.files} generated files ({lines:,} lines), {findings} findings")
    print(f"  best {best:.2f} s, median {median:.2f} s of {args.runs} runs (target: under 10 s)")
    print(f"  {args.files / median:.0f} files/s, {lines / median:,.0f} lines/s")


if __name__ == "__main__":
    main()
