"""Failing programs run for real, and what their answer must say: the entry, the user's line, the
common cause and the kind of evidence for it (written by hand from each program, not from the
answer).

Each case runs the way a user meets the error: ``python script.py`` (the new user's six scripts
of the 2026-12-01 trial among them), a terminal IPython with colours (``ipython
--colors=Linux``), a cell of a real Jupyter kernel (the traceback as the notebook shows it,
colour codes included), or ``torchrun --nproc_per_node 2`` with gloo on 127.0.0.1. What the run
printed is recorded in ``data/real-runs.json`` (``python tests/realruns.py`` writes it again),
with the run's directory written ``/home/user/run``: the unit tests read the recorded text, the
integration tests run each case again and hold its fresh output to the same expectations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "real-runs.json"
BIN = Path(sys.executable).parent
#: How the recorded outputs write the directory a case ran in.
RUN_DIR = "/home/user/run"


class Case:
    """A program, how it is run, and what its answer must say. ``frame``: the user's line as
    ``(file name, line, code)`` (the file's name only: the run's directory varies), or None;
    ``cell``: the notebook cell's number the line must be named by (0: a cell whose number the
    paste does not show); ``cause``: the common cause; ``evidence``: the kinds of evidence for
    it, with ``near`` marking code seen around the line rather than on it (empty: the most
    common cause, nothing in the paste supports another)."""

    def __init__(
        self,
        name: str,
        how: str,
        code: str,
        entry: str,
        frame: tuple[str, int, str] | None,
        cause: str | None,
        evidence: tuple[str, ...] = (),
        cell: int | None = None,
        note: str = "",
        fails: bool = True,
    ) -> None:
        self.name = name
        self.how = how  # "python", "ipython", "jupyter" or "torchrun"
        self.code = textwrap.dedent(code).lstrip("\n")
        self.entry = entry
        self.frame = frame
        self.cause = cause
        self.evidence = evidence
        self.cell = cell
        self.note = note
        self.fails = fails  # a warning leaves the program's exit code alone

    @property
    def script(self) -> str:
        return f"{self.name}.py"


EVAL_THEN_TRAIN = """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()


def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        return loss_fn(model(x), y)


for step in range(3):
    x = torch.randn(4, 8)
    y = torch.randint(0, 2, (4,))
    model.train()
    # reused the evaluation helper to get the training loss
    loss = evaluate(x, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
PER_SAMPLE_LOSS = """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(10, 3)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.CrossEntropyLoss(reduction="none")

for step in range(2):
    inputs = torch.randn(16, 10)
    targets = torch.randint(0, 3, (16,))
    logits = model(inputs)
    loss = criterion(logits, targets)
    # weight hard examples later; for now plain
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
REINIT_HEAD = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.body = nn.Linear(32, 64)
        self.fc = nn.Linear(64, num_classes)


model = Net()
num_classes = 5
# fine-tune for 5 classes: re-initialise the head
model.fc.weight = torch.randn(num_classes, 64) * 0.01
model.fc.bias = torch.zeros(num_classes)
"""
MANUAL_SGD = """
import torch

torch.manual_seed(0)
x = torch.randn(100, 3)
y = x @ torch.tensor([1.0, -2.0, 0.5]) + 0.1
w = torch.zeros(3, requires_grad=True)
lr = 0.1

for step in range(10):
    pred = x @ w
    loss = ((pred - y) ** 2).mean()
    if w.grad is not None:
        w.grad.zero_()
    loss.backward()
    # plain gradient descent
    print(step, loss.item())
    w -= lr * w.grad
"""
RESBLOCK = """
import torch
import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out = self.relu(out)
        out += identity
        return out


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.block = ResBlock(8)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = self.block(x)
        return self.head(x.mean(dim=(2, 3)))


torch.manual_seed(0)
model = Net()
x = torch.randn(16, 3, 8, 8)
loss = model(x).logsumexp(1).mean()
loss.backward()
"""
RNN_LM = """
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab, hidden = 50, 32


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, state=None):
        output, state = self.rnn(self.embed(tokens), state)
        return self.out(output), state


model = LM()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randint(0, vocab, (4, 41))
state = None
criterion = nn.CrossEntropyLoss()

for start in range(0, 40, 10):
    inputs = data[:, start : start + 10]
    targets = data[:, start + 1 : start + 11]
    logits, state = model(inputs, state)
    loss = criterion(logits.reshape(-1, vocab), targets.reshape(-1))
    optimizer.zero_grad()
    # the state carries the graph of the previous chunk
    loss.backward()
    optimizer.step()
"""
WRAPPED = """
import torch


def step(w):
    w.add_(1)


class TrainerError(Exception):
    pass


w = torch.zeros(3, requires_grad=True)
try:
    step(w)
except RuntimeError as e:
    raise TrainerError("step 0 failed") from e
"""
DDP = """
import torch, torch.distributed as dist
dist.init_process_group("gloo")
w = torch.randn(64, 128, requires_grad=True)
h = torch.sigmoid(w)
h.mul_(2)
dist.barrier()
h.sum().backward()
"""

CASES = [
    # The new user's six scripts, and the chained error of their trial (problems 1, 7, 9).
    Case(
        "eval_then_train",
        "python",
        EVAL_THEN_TRAIN,
        "no-grad-fn",
        ("eval_then_train.py", 23, "loss.backward()"),
        "frozen-or-detached",
        note="the traceback shows no sign of any cause: the most common one that needs no "
        "setting, never checkpointing under LoRA",
    ),
    Case(
        "per_sample_loss",
        "python",
        PER_SAMPLE_LOSS,
        "scalar-outputs",
        ("per_sample_loss.py", 16, "loss.backward()"),
        "unreduced-loss",
        note="no DataParallel in the paste: never its cause",
    ),
    Case(
        "reinit_head",
        "python",
        REINIT_HEAD,
        "parameter-assign",
        ("reinit_head.py", 15, "model.fc.weight = torch.randn(num_classes, 64) * 0.01"),
        "replace-values",
        ("code",),
    ),
    Case(
        "manual_sgd",
        "python",
        MANUAL_SGD,
        "leaf-inplace",
        ("manual_sgd.py", 17, "w -= lr * w.grad"),
        "manual-update",
        ("code",),
    ),
    Case(
        "resblock",
        "python",
        RESBLOCK,
        "inplace-modified",
        ("resblock.py", 43, "loss.backward()"),
        "inplace-after-saving-op",
        ("field",),
    ),
    Case(
        "rnn_lm",
        "python",
        RNN_LM,
        "backward-twice",
        ("rnn_lm.py", 33, "loss.backward()"),
        "carried-state",
    ),
    Case(
        "wrapped",
        "python",
        WRAPPED,
        "leaf-inplace",
        ("wrapped.py", 5, "w.add_(1)"),
        "manual-update",
        note="raise TrainerError(...) from e: the line that failed, not the re-raise",
    ),
    Case(
        "rewrapped_message",
        "python",
        """
        import torch


        def step(w):
            w.add_(1)


        w = torch.zeros(3, requires_grad=True)
        try:
            step(w)
        except RuntimeError as error:
            raise RuntimeError(f"step 0: {error}") from error
        """,
        "leaf-inplace",
        ("rewrapped_message.py", 5, "w.add_(1)"),
        "manual-update",
        note="the message printed again by the wrapper: the line where it was raised first",
    ),
    Case(
        "handled_then_failed",
        "python",
        """
        import torch


        def step(w):
            w.add_(1)


        w = torch.zeros(3, requires_grad=True)
        try:
            step(w)
        except RuntimeError:
            raise ValueError("the training step failed")
        """,
        "leaf-inplace",
        ("handled_then_failed.py", 5, "w.add_(1)"),
        "manual-update",
        note="During handling of the above exception: the autograd error's own frames",
    ),
    Case(
        "group_of_errors",
        "python",
        """
        import torch


        def step(w):
            w.add_(1)


        w = torch.zeros(3, requires_grad=True)
        errors = []
        for attempt in range(2):
            try:
                step(w)
            except RuntimeError as error:
                errors.append(error)
        raise ExceptionGroup("every attempt failed", errors)
        """,
        "leaf-inplace",
        ("group_of_errors.py", 5, "w.add_(1)"),
        "manual-update",
        note="an exception group's |-prefixed members are read",
    ),
    # Each sign of a cause, shown by the user's own line.
    Case(
        "sgd_add",
        "python",
        """
        import torch
        w = torch.randn(3, requires_grad=True)
        (w * 2).sum().backward()
        w.add_(w.grad, alpha=-0.1)
        """,
        "leaf-inplace",
        ("sgd_add.py", 4, "w.add_(w.grad, alpha=-0.1)"),
        "manual-update",
        ("code",),
    ),
    Case(
        "fold_bias",
        "python",
        """
        import torch
        conv = torch.nn.Conv2d(3, 8, 3)
        conv.bias.zero_()
        """,
        "leaf-inplace",
        ("fold_bias.py", 3, "conv.bias.zero_()"),
        "copy-into-parameter",
        ("code",),
    ),
    Case(
        "load_values",
        "python",
        """
        import torch
        weights = torch.nn.Parameter(torch.randn(4))
        weights[:] = torch.ones(4)
        """,
        "leaf-inplace",
        ("load_values.py", 3, "weights[:] = torch.ones(4)"),
        "full-slice-assign",
        ("code",),
    ),
    Case(
        "inner_step",
        "python",
        """
        import torch
        layer = torch.nn.Linear(3, 1)
        grad = torch.autograd.grad(layer(torch.randn(2, 3)).sum(), layer.weight)[0]
        layer.weight = layer.weight - 0.1 * grad
        """,
        "parameter-assign",
        ("inner_step.py", 4, "layer.weight = layer.weight - 0.1 * grad"),
        "functional-weights",
        ("code",),
    ),
    Case(
        "to_double",
        "python",
        """
        import torch
        net = torch.nn.Sequential(torch.nn.Linear(3, 1))
        net[0].weight = net[0].weight.to(torch.float64)
        """,
        "parameter-assign",
        ("to_double.py", 3, "net[0].weight = net[0].weight.to(torch.float64)"),
        "computed-from-parameter",
        ("code",),
    ),
    Case(
        "gradient_penalty",
        "python",
        """
        import torch
        critic = torch.nn.Linear(2, 1)
        samples = torch.randn(5, 2, requires_grad=True)
        slopes = torch.autograd.grad(critic(samples), samples)[0]
        """,
        "scalar-outputs",
        ("gradient_penalty.py", 4, "slopes = torch.autograd.grad(critic(samples), samples)[0]"),
        "per-sample-outputs",
        ("code",),
    ),
    Case(
        "complex_loss",
        "python",
        """
        import torch
        z = torch.randn(3, dtype=torch.complex64, requires_grad=True)
        loss = (z * z).sum()
        loss.backward()
        """,
        "scalar-outputs",
        ("complex_loss.py", 4, "loss.backward()"),
        "complex-output",
        ("form",),
    ),
    Case(
        "unique_rows",
        "python",
        """
        import torch
        x = torch.randn(4, 2, requires_grad=True)
        torch.unique(x, dim=0).sum().backward()
        """,
        "derivative-not-implemented",
        ("unique_rows.py", 3, "torch.unique(x, dim=0).sum().backward()"),
        "unique",
        ("field",),
    ),
    Case(
        "single_tensor",
        "python",
        """
        import torch
        w = torch.randn(3, requires_grad=True)
        optimizer = torch.optim.SGD(w, lr=0.1)
        """,
        "optimizer-param-not-tensor",
        ("single_tensor.py", 3, "optimizer = torch.optim.SGD(w, lr=0.1)"),
        "single-tensor",
        ("form",),
    ),
    # A warning's own wording, and its own line.
    Case(
        "volatile_flag",
        "python",
        """
        import torch
        x = torch.randn(3)
        if x.volatile:
            print("inference")
        """,
        "volatile-removed",
        ("volatile_flag.py", 3, "if x.volatile:"),
        "volatile-flag-read",
        ("form",),
        fails=False,
    ),
    Case(
        "sequential_checkpoint",
        "python",
        """
        import torch
        from torch.utils.checkpoint import checkpoint_sequential
        layers = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3))
        x = torch.randn(2, 3, requires_grad=True)
        out = checkpoint_sequential(layers, 2, x)
        """,
        "checkpoint-use-reentrant",
        ("sequential_checkpoint.py", 5, "out = checkpoint_sequential(layers, 2, x)"),
        "sequential",
        ("form",),
        fails=False,
    ),
    # A terminal IPython with colours: the frame and its context lines, read through the codes.
    Case(
        "under_no_grad",
        "ipython",
        """
        import torch
        model = torch.nn.Linear(3, 1)
        x = torch.randn(4, 3)
        with torch.no_grad():
            loss = model(x).pow(2).mean()
        loss.backward()
        """,
        "no-grad-fn",
        ("under_no_grad.py", 6, "loss.backward()"),
        "no-grad-mode",
        ("code near",),
    ),
    # Cells of a Jupyter kernel: the line as the notebook names it, the cell's code as evidence.
    Case(
        "cell_inference_mode",
        "jupyter",
        """
        model = torch.nn.Linear(3, 1)
        with torch.inference_mode():
            out = model(torch.randn(4, 3))
        loss = out.pow(2).mean()
        loss.backward()
        """,
        "no-grad-fn",
        ("Cell In[2]", 5, "loss.backward()"),
        "no-grad-mode",
        ("code near",),
        cell=2,
    ),
    Case(
        "cell_checkpoint",
        "jupyter",
        """
        from torch.utils.checkpoint import checkpoint
        block = torch.nn.Linear(3, 3)
        frozen = torch.randn(2, 3)
        hidden = checkpoint(block, frozen, use_reentrant=True)
        hidden.sum().backward()
        """,
        "no-grad-fn",
        ("Cell In[3]", 5, "hidden.sum().backward()"),
        "reentrant-checkpoint",
        ("code near",),
        cell=3,
    ),
    Case(
        "cell_detach",
        "jupyter",
        """
        model = torch.nn.Linear(3, 1)
        target = torch.randn(4, 1)
        prediction = model(torch.randn(4, 3)).detach()
        loss = torch.nn.functional.mse_loss(prediction, target)
        loss.backward()
        """,
        "no-grad-fn",
        ("Cell In[4]", 5, "loss.backward()"),
        "frozen-or-detached",
        ("code near",),
        cell=4,
    ),
    Case(
        "cell_frozen",
        "jupyter",
        """
        model = torch.nn.Linear(3, 1)
        model.requires_grad_(False)
        loss = model(torch.randn(4, 3)).sum()
        loss.backward()
        """,
        "no-grad-fn",
        ("Cell In[5]", 4, "loss.backward()"),
        "frozen-or-detached",
        ("code near",),
        cell=5,
    ),
    Case(
        "cell_accuracy",
        "jupyter",
        """
        logits = torch.randn(8, 3, requires_grad=True)
        labels = torch.randint(0, 3, (8,))
        accuracy = (logits.argmax(dim=1) == labels).float().mean()
        accuracy.backward()
        """,
        "no-grad-fn",
        ("Cell In[6]", 4, "accuracy.backward()"),
        "non-differentiable-loss",
        ("code near",),
        cell=6,
    ),
    Case(
        "cell_rewrapped",
        "jupyter",
        """
        a = torch.randn(3, requires_grad=True)
        loss_a, loss_b = a.sum(), a.pow(2).sum()
        torch.tensor([loss_a.item(), loss_b.item()]).sum().backward()
        """,
        "no-grad-fn",
        ("Cell In[7]", 3, "torch.tensor([loss_a.item(), loss_b.item()]).sum().backward()"),
        "rewrapped-loss",
        ("code",),
        cell=7,
    ),
    Case(
        "cell_per_sample",
        "jupyter",
        """
        criterion = torch.nn.CrossEntropyLoss(reduction="none")
        logits = torch.randn(8, 3, requires_grad=True)
        loss = criterion(logits, torch.randint(0, 3, (8,)))
        loss.backward()
        """,
        "scalar-outputs",
        ("Cell In[8]", 4, "loss.backward()"),
        "unreduced-loss",
        ("code near",),
        cell=8,
    ),
    Case(
        "cell_dataparallel",
        "jupyter",
        """
        model = torch.nn.DataParallel(torch.nn.Linear(3, 2))
        out = model(torch.randn(4, 3))
        out.backward()
        """,
        "scalar-outputs",
        ("Cell In[9]", 3, "out.backward()"),
        "dataparallel-gathered-losses",
        ("code near",),
        cell=9,
    ),
    Case(
        "cell_loop_buffer",
        "jupyter",
        """
        W = torch.randn(3, 3, requires_grad=True)
        h = torch.zeros(4, 3)
        h[0] = torch.randn(3)
        for t in range(1, 4):
            h[t] = torch.tanh(h[t - 1] @ W)
        h.sum().backward()
        """,
        "inplace-modified",
        ("Cell In[10]", 6, "h.sum().backward()"),
        "loop-writes-buffer",
        ("code near", "field"),
        cell=10,
    ),
    # torchrun: the ranks' own frames ([rank0]: lines), not the launcher's.
    Case(
        "ddp_err",
        "torchrun",
        DDP,
        "inplace-modified",
        ("ddp_err.py", 7, "h.sum().backward()"),
        "inplace-after-saving-op",
        ("field",),
    ),
]
BY_NAME = {case.name: case for case in CASES}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    env.update(
        {
            "MASTER_ADDR": "127.0.0.1",
            "GLOO_SOCKET_IFNAME": "lo",
            "OMP_NUM_THREADS": "1",
            "PYTHONWARNINGS": "default",
            "TERM": "xterm",
        }
    )
    return env


def run(case: Case, directory: Path) -> str:
    """What running ``case`` in ``directory`` printed (for a notebook cell: its traceback, as
    the notebook shows it), with ``directory`` written ``/home/user/run``."""
    script = directory / case.script
    script.write_text(case.code, encoding="utf-8")
    env = _env()
    if case.how == "python":
        command = [sys.executable, str(script)]
    elif case.how == "ipython":
        env["IPYTHONDIR"] = str(directory / ".ipython")
        command = [str(BIN / "ipython"), "--no-banner", "--colors=Linux", str(script)]
    elif case.how == "torchrun":
        command = [
            str(BIN / "torchrun"),
            "--nproc_per_node",
            "2",
            "--master_addr",
            "127.0.0.1",
            "--master_port",
            str(_free_port()),
            str(script),
        ]
    else:
        raise ValueError(f"{case.name}: run the cells of jupyter cases with run_cells()")
    done = subprocess.run(
        command,
        cwd=directory,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert (done.returncode != 0) == case.fails, f"{case.name}: {done.stdout}{done.stderr}"
    return (done.stdout + done.stderr).replace(str(directory), RUN_DIR)


def run_cells(cases: list[Case], directory: Path) -> dict[str, str]:
    """The jupyter cases' cells run in one real kernel, in order after ``import torch`` (cell
    1): each cell's traceback as the notebook shows it."""
    from helpers import execute, jupyter_kernel

    found: dict[str, str] = {}
    with jupyter_kernel(_env(), directory) as client:
        execute(client, "import torch")
        for case in cases:
            errors = [o for o in execute(client, case.code) if o["type"] == "error"]
            assert errors, f"{case.name}: the cell raised nothing"
            text = "\n".join(errors[0]["traceback"])
            found[case.name] = text.replace(str(directory), RUN_DIR)
    return found


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_all(directory: Path) -> dict[str, str]:
    """Every case's output: the programs in parallel, the cells in one kernel."""
    from concurrent.futures import ThreadPoolExecutor

    jupyter = [case for case in CASES if case.how == "jupyter"]
    programs = [case for case in CASES if case.how != "jupyter"]
    outputs: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for case, text in zip(
            programs, pool.map(lambda c: run(c, _own(directory, c)), programs), strict=True
        ):
            outputs[case.name] = text
    outputs.update(run_cells(jupyter, _own(directory, jupyter[0])))
    return outputs


def _own(directory: Path, case: Case) -> Path:
    """A directory of its own for each run (torchrun's and IPython's files stay apart)."""
    own = directory / case.how / case.name
    own.mkdir(parents=True, exist_ok=True)
    return own


def problems(case: Case, result: dict[str, Any]) -> list[str]:
    """What the answer to the case's recorded run gets wrong, read from a result in the shape
    both matchers give (``tests/js/run-matcher.cjs``; ``helpers.answer_json`` in Python): the
    one contract of the command line and the paste page."""
    if not result["matches"]:
        return ["no match"]
    first = result["matches"][0]
    wrong = []
    if first["id"] != case.entry:
        wrong.append(f"entry {first['id']}, not {case.entry}")
    frame = first["frame"]
    if case.frame is None:
        if frame is not None:
            wrong.append(f"a line ({frame}) where the paste shows none of the user's")
    elif frame is None:
        wrong.append("no line")
    else:
        read = (frame["file"].replace("\\", "/").rsplit("/", 1)[-1], frame["line"], frame["code"])
        if read != case.frame:
            wrong.append(f"line {read}, not {case.frame}")
        cell = None if case.cell is None else {"number": case.cell or None}
        if frame["cell"] != cell:
            wrong.append(f"cell {frame['cell']}, not {cell}")
    cause = first["cause"]
    if (cause and cause["id"]) != case.cause:
        wrong.append(f"cause {cause and cause['id']}, not {case.cause} ({case.note})")
    elif cause is not None:
        kinds = sorted(f"{e['kind']} near" if e["near"] else e["kind"] for e in cause["evidence"])
        if kinds != sorted(case.evidence):
            wrong.append(f"evidence {kinds}, not {sorted(case.evidence)}")
        if cause["basis"] != ("evidence" if case.evidence else "most-common"):
            wrong.append(f"basis {cause['basis']}")
    return wrong


#: The answer's other vectors (``data/answer-vectors.json``): what the paste says, used.
VECTORS = DATA.parent / "answer-vectors.json"


def answer_vectors() -> list[dict[str, Any]]:
    """The vectors, each with its ``text`` (a thread's paste read from real-pastes.json)."""
    pastes = json.loads((DATA.parent / "real-pastes.json").read_text(encoding="utf-8"))["pastes"]
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"]
    for vector in vectors:
        if "paste" in vector:
            vector["text"] = next(p["text"] for p in pastes if p["source"] == vector["paste"])
    return vectors


def vector_problems(vector: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """What the answer to ``vector``'s text gets wrong, in the shape of :func:`problems`."""
    if not result["matches"]:
        return ["no match"]
    first = result["matches"][0]
    wrong = []
    expected = {
        key: vector[key] for key in ("variant", "kind", "fields", "releases") if key in vector
    }
    expected["id"] = vector["entry"]
    wrong += [
        f"{key} {first[key]!r}, not {value!r}"
        for key, value in expected.items()
        if first[key] != value
    ]
    if "message_starts" in vector and not first["message"].startswith(vector["message_starts"]):
        wrong.append(f"message {first['message']!r}")
    if "frame" in vector:
        frame = first["frame"]
        if vector["frame"] is None:
            if frame is not None:
                wrong.append(f"a line ({frame}) where the paste shows none of the user's")
        elif frame is None:
            wrong.append("no line")
        else:
            read = [
                frame["file"].replace("\\", "/").rsplit("/", 1)[-1],
                frame["line"],
                frame["code"],
            ]
            if read != vector["frame"]:
                wrong.append(f"line {read}, not {vector['frame']}")
            cell = None if vector.get("cell") is None else {"number": vector["cell"] or None}
            if frame["cell"] != cell:
                wrong.append(f"cell {frame['cell']}, not {cell}")
    cause = first["cause"]
    if "cause" in vector and (cause and cause["id"]) != vector["cause"]:
        wrong.append(f"cause {cause and cause['id']}, not {vector['cause']}")
    if "basis" in vector and (cause and cause["basis"]) != vector["basis"]:
        wrong.append(f"basis {cause and cause['basis']}, not {vector['basis']}")
    details = " ".join(first["details"])
    wrong += [
        f"details lack {said!r}" for said in vector.get("details_say", []) if said not in details
    ]
    wrong += [
        f"details say {never!r}" for never in vector.get("details_never", []) if never in details
    ]
    return wrong


def recorded() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def main() -> None:
    """Run every case and write what each printed to ``data/real-runs.json``."""
    import torch

    with tempfile.TemporaryDirectory(prefix="real-runs-") as scratch:
        outputs = run_all(Path(scratch))
    data = {
        "_about": (
            "What real runs of the cases of tests/realruns.py printed (python, a terminal "
            f"IPython with colours, a Jupyter kernel's cells, torchrun), on torch "
            f"{torch.__version__}, Python {sys.version.split()[0]}; the run's directory is "
            "written /home/user/run. Written by `python tests/realruns.py`."
        ),
        "runs": [
            {"name": case.name, "how": case.how, "text": outputs[case.name]} for case in CASES
        ],
    }
    DATA.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(CASES)} runs to {DATA}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
