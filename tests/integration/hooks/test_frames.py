"""The user's own line, found in real tracebacks printed by real runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import terminal_ipython

from autograd_errors.matcher.frames import Frame
from autograd_errors.matcher.tracebacks import user_frame

MODEL = """\
import torch

def forward(x):
    y = torch.sigmoid(x)
    y.mul_(2)
    return y.sum()
"""
TRAIN = """\
import torch
from model import forward

def step(x):
    loss = forward(x)
    loss.backward()

x = torch.randn(3, requires_grad=True)
{call}
"""
COMPILED = """\
import torch

def f(x):
    y = x * 2
    return y.item() + torch.nonzero(y).sum()

torch.compile(f, backend="eager", fullgraph=True)(torch.randn(3))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    directory = tmp_path_factory.mktemp("user-project")
    (directory / "model.py").write_text(MODEL)
    (directory / "train.py").write_text(TRAIN.format(call="step(x)"))
    (directory / "anomaly.py").write_text(
        TRAIN.format(call="with torch.autograd.detect_anomaly():\n    step(x)")
    )
    (directory / "compiled.py").write_text(COMPILED)
    return directory


def stderr_of(project: Path, script: str, cli_env) -> str:
    result = subprocess.run(
        [sys.executable, script],
        cwd=project,
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1
    return result.stderr


def test_a_script_points_at_the_last_frame_outside_torch(project, cli_env):
    stderr = stderr_of(project, "train.py", cli_env)
    assert "site-packages/torch/" in stderr
    assert user_frame(stderr) == Frame(str(project / "train.py"), 6, "loss.backward()")


def test_anomaly_mode_points_at_the_forward_line(project, cli_env):
    stderr = stderr_of(project, "anomaly.py", cli_env)
    assert "Traceback of forward call that caused the error:" in stderr
    assert user_frame(stderr) == Frame(str(project / "model.py"), 4, "y = torch.sigmoid(x)")


def test_torch_compile_points_at_the_user_code_block(project, cli_env):
    stderr = stderr_of(project, "compiled.py", cli_env)
    assert "from user code:" in stderr
    assert user_frame(stderr) == Frame(
        str(project / "compiled.py"), 5, "return y.item() + torch.nonzero(y).sum()"
    )


def test_ipython_points_at_the_cell(project, cli_env, tmp_path):
    session = (
        "from model import forward\nimport torch\n"
        "forward(torch.ones(3, requires_grad=True)).backward()\nexit\n"
    )
    printed = terminal_ipython(session, project, cli_env, tmp_path)
    assert "Cell In[3], line 1" in printed
    assert user_frame(printed) == Frame(
        "Cell In[3]", 1, "forward(torch.ones(3, requires_grad=True)).backward()", cell=3
    )


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
        'File "/usr/lib/python3/site-packages/torch/_tensor.py", line 5, in backward\n  x()\n',
        "",
    ],
)
def test_no_user_frame_means_none(text):
    assert user_frame(text) is None
