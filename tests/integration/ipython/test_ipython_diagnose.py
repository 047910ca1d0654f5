"""``%autograd_diagnose`` in a real Jupyter kernel and a real terminal IPython: the last failed
cell (or ``%run`` script) run again, recorded, and its culprit shown under the magic's cell,
with the cell named as IPython names it (issue 23)."""

from __future__ import annotations

import html
import re

import pytest
from helpers import execute, jupyter_kernel, terminal_ipython

#: A residual step whose `out += x` changes the output sigmoid saved for its backward (line 5).
RESIDUAL_CELL = """\
torch.manual_seed(0)
layer = torch.nn.Linear(4, 4)
x = torch.randn(2, 4)
out = torch.sigmoid(layer(x))
out += x
out.sum().backward()"""
#: The same bug in a script run with %run: the change on line 8, the saving line 7.
SCRIPT = """\
import torch

torch.manual_seed(0)


def block(layer, x):
    out = torch.sigmoid(layer(x))
    out += x
    return out


block(torch.nn.Linear(4, 4), torch.randn(2, 4)).sum().backward()
"""


@pytest.fixture(scope="module")
def kernel(cli_env, tmp_path_factory):
    directory = tmp_path_factory.mktemp("kernel")
    (directory / "train.py").write_text(SCRIPT, encoding="utf-8")
    with jupyter_kernel(cli_env, directory) as client:
        assert not [
            o
            for o in execute(client, "import torch\n%load_ext autograd_errors")
            if o["type"] == "error"
        ]
        yield client


def shown(outputs: list[dict], which: int = -1) -> str:
    """The HTML of a display (by default the last: the diagnosis, under the answer) as text,
    its tags removed."""
    displays = [o for o in outputs if o["type"] == "display_data"]
    return html.unescape(re.sub(r"<[^>]+>", " ", displays[which]["data"]["text/html"]))


def test_the_last_failed_cell_is_diagnosed_and_its_cell_named(kernel):
    failed = execute(kernel, RESIDUAL_CELL)
    assert [o["type"] for o in failed] == ["error", "display_data"]  # the answer
    outputs = execute(kernel, "%autograd_diagnose")
    # The answer again, leading with the cause found, then the culprits; the cell's own
    # output hidden.
    assert [o["type"] for o in outputs] == ["display_data", "display_data"]
    answer = " ".join(shown(outputs, 0).split())
    assert "Most likely: An in-place operation on a tensor an operation saved" in answer
    assert "Evidence: the diagnosis found it at Cell In[2], line 5." in answer
    text = " ".join(shown(outputs).split())
    # The kernel's second cell: the fixture ran the first.
    assert re.search(r"Culprit: Cell In\[2\]:5 \(changed in place\) out \+= x", text)
    assert re.search(r"Culprit: Cell In\[2\]:4 \(saved for backward\)", text)
    assert "Cause:" not in text  # said once, in the answer
    plain = outputs[1]["data"]["text/plain"]
    assert plain.startswith("autograd-errors: Diagnosis:")


def test_a_script_run_with_percent_run_is_diagnosed_in_its_file(kernel):
    assert [o["type"] for o in execute(kernel, "%run train.py")] == ["error", "display_data"]
    text = " ".join(shown(execute(kernel, "%autograd_diagnose")).split())
    assert "Culprit: train.py:8 (changed in place) out += x" in text
    assert "Culprit: train.py:7 (saved for backward)" in text


def test_with_no_failed_cell_it_says_so_in_one_line(cli_env, tmp_path):
    session = "%load_ext autograd_errors\n%autograd_diagnose\nexit\n"
    env = {**cli_env, "LC_ALL": "zh_CN.UTF-8"}
    import subprocess
    import sys
    from pathlib import Path

    result = subprocess.run(
        [str(Path(sys.executable).parent / "ipython"), "--no-banner", "--simple-prompt"],
        input=session,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**env, "IPYTHONDIR": str(tmp_path)},
        timeout=180,
        check=False,
    )
    assert "%autograd_diagnose：加载扩展以来还没有单元格出错。" in result.stderr


def test_a_terminal_ipython_gets_the_diagnosis_in_chinese_text(cli_env, tmp_path):
    session = "\n".join(
        [
            "import torch",
            "%load_ext autograd_errors",
            RESIDUAL_CELL.replace("\n", "; "),
            "%autograd_diagnose",
            "exit",
        ]
    )
    printed = terminal_ipython(session, tmp_path, {**cli_env, "LC_ALL": "zh_CN.UTF-8"}, tmp_path)
    diagnosis = printed[printed.index("autograd-errors: 诊断：") :]
    # One line holds the whole cell: the change is its fifth statement, on line 1.
    assert "问题代码：Cell In[3]:1 (原地修改)" in diagnosis
    assert "Culprit" not in diagnosis
