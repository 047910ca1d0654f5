"""What ``run --diagnose`` costs a correct training loop, against the plain run and anomaly mode
(issue 23's budget: at most 1.5 times the plain run, and less than anomaly mode), and what the
design it replaces, instrumenting from the start, would cost.

Two loops on synthetic data, written to a temporary directory and run in a fresh interpreter
each time: a small CNN on MNIST-sized images (two convolutions, two linear layers, batch 64,
Adam), and a small MLP on tabular rows (three linear layers), whose cheaper operations show a
per-call cost more. Each runs as:

- ``python loop.py``: the plain run;
- ``run --diagnose loop.py``: the program runs uninstrumented, and would be run again,
  instrumented, only after an error of the catalog (none here);
- ``torch.autograd.set_detect_anomaly(True)`` set by the loop itself;
- recorded from the start: the re-run's recorder around the whole program, with what one
  probe records (``inplace-modified``, ``backward-twice``, ``no-grad-fn``, ``anomaly-nan``), and
  with everything (``*``), which a design that cannot know the error in advance would need.

Each round runs the variants in a shuffled order; the figures are the best of the rounds, as
``timeit`` reports them: on a machine shared with other work, the slower rounds measure the load.
The loop times itself (the steps only, after a warm-up step) and the process is timed whole;
ratios are to the plain run. Last, what a failure costs: the CNN with an in-place bug at its
first step, under ``python`` and under ``run --diagnose`` (the first run, then the instrumented
one).

    python benchmarks/diagnose_cost.py [--rounds N] [--steps N]
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import subprocess
import sys
import tempfile
import time

LOOP = """
import sys, time
import torch
from torch import nn

torch.manual_seed(0)
kind, steps, mode, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if mode == "anomaly":
    torch.autograd.set_detect_anomaly(True)
if kind == "cnn":
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10),
    )
    inputs = torch.randn(64, 1, 28, 28)
else:
    model = nn.Sequential(
        nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10)
    )
    inputs = torch.randn(64, 20)
labels = torch.randint(0, 10, (64,))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def step(broken):
    optimizer.zero_grad()
    hidden = model[:2](inputs)
    if broken:
        hidden += 1  # the bug of the failing variant: changes ReLU's saved output
    loss = nn.functional.cross_entropy(model[2:](hidden), labels)
    loss.backward()
    optimizer.step()


step(False)  # warm-up
start = time.perf_counter()
for _ in range(steps):
    step(mode == "broken")
with open(out, "w") as handle:
    handle.write(str(time.perf_counter() - start))
"""

#: The loops, and how many times ``--steps`` each runs: the MLP's steps are much shorter.
MODELS = {
    "cnn": ("a small CNN (28x28 images, batch 64, Adam)", 1),
    "mlp": ("a small MLP (20 features, batch 64, Adam)", 10),
}
#: What instrumenting from the start would record: what each probe needs, and everything.
RECORDED = ("inplace-modified", "backward-twice", "no-grad-fn", "anomaly-nan", "*")


def variants(loop: str) -> dict[str, list[str]]:
    python = sys.executable
    child = [python, "-m", "autograd_errors.diagnosis.child", os.devnull]
    found = {
        "plain": [python, loop],
        "run --diagnose": [python, "-m", "autograd_errors", "run", "--diagnose", loop],
        "set_detect_anomaly(True)": [python, loop],
    }
    for entry in RECORDED:
        found[f"recorded from the start: {entry}"] = [*child, entry, loop]
    return found


def timed(command: list[str], args: list[str], directory: str) -> tuple[float, float]:
    """The process's wall time and the loop's own time."""
    out = os.path.join(directory, "loop-time")
    if os.path.exists(out):
        os.unlink(out)
    start = time.perf_counter()
    subprocess.run([*command, *args, out], check=False, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    with open(out, encoding="utf-8") as handle:  # missing if the run failed: a traceback
        return wall, float(handle.read())


def measure(loop: str, kind: str, steps: int, rounds: int, directory: str) -> None:
    commands = variants(loop)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    loops: dict[str, list[float]] = {name: [] for name in commands}
    order = list(commands)
    for _ in range(rounds):
        random.shuffle(order)  # no variant always first in its round
        for name in order:
            mode = "anomaly" if "anomaly(" in name else "plain"
            wall, own = timed(commands[name], [kind, str(steps), mode], directory)
            walls[name].append(wall)
            loops[name].append(own)
    wall_of = {name: min(values) for name, values in walls.items()}
    loop_of = {name: min(values) for name, values in loops.items()}
    print(f"\n{steps} steps of {MODELS[kind][0]}")
    print(f"{'':44} {'process':>9} {'':6} {'loop':>8}")
    for name in commands:
        wall_ratio = wall_of[name] / wall_of["plain"]
        loop_ratio = loop_of[name] / loop_of["plain"]
        print(
            f"{name:44} {wall_of[name]:8.2f}s  x{wall_ratio:4.2f}  "
            f"{loop_of[name]:7.2f}s  x{loop_ratio:4.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100, help="of the CNN (the MLP: 10 times)")
    options = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # each table when done
    print(
        f"torch {_torch_version()}, {os.cpu_count()} cores, {datetime.date.today()}; "
        f"the best of {options.rounds} rounds; load {os.getloadavg()[0]:.1f} at the start"
    )
    with tempfile.TemporaryDirectory() as directory:
        loop = os.path.join(directory, "loop.py")
        with open(loop, "w", encoding="utf-8") as handle:
            handle.write(LOOP)
        for kind, (_, factor) in MODELS.items():
            measure(loop, kind, options.steps * factor, options.rounds, directory)
        broken = ["cnn", str(options.steps), "broken", os.devnull]
        start = time.perf_counter()
        subprocess.run([sys.executable, loop, *broken], capture_output=True, check=False)
        failing_plain = time.perf_counter() - start
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "autograd_errors", "run", "--diagnose", loop, *broken],
            capture_output=True,
            check=False,
        )
        failing_diagnosed = time.perf_counter() - start
    print(
        f"\nthe CNN with an in-place error at its first step: python {failing_plain:.2f}s, "
        f"run --diagnose {failing_diagnosed:.2f}s (the first run, then the instrumented one)"
    )
    print(f"load {os.getloadavg()[0]:.1f} at the end")


def _torch_version() -> str:
    result = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip()


if __name__ == "__main__":
    main()
