"""``autograd_errors.install(diagnose=True)``: the culprit under the answer, in real
subprocesses running a failing training script (issue 23)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import DATA

INSTALL = "import autograd_errors; autograd_errors.install(diagnose=True)\n"


def hooked_script(directory: Path, name: str) -> Path:
    """The diagnosis tests' script ``name``, with ``install(diagnose=True)`` as its first line."""
    script = directory / name
    script.write_text(INSTALL + (DATA / "diagnose" / name).read_text(encoding="utf-8"))
    return script


def line_of(path: Path, code: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    (number,) = [n for n, line in enumerate(lines, 1) if line.strip().startswith(code)]
    return number


def python(script: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=script.parent,
        env={**env, "COLUMNS": "100"},
        timeout=300,
        check=False,
    )


def test_a_script_that_installs_it_gets_its_culprit_after_the_answer(cli_env, tmp_path):
    script = hooked_script(tmp_path, "backward_rnn_state.py")
    result = python(script, cli_env)
    assert result.returncode == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    answer = result.stderr.index("autograd-errors: Backward through a graph whose saved")
    diagnosis = result.stderr.index("autograd-errors: Diagnosis (the program was run again")
    assert answer < diagnosis
    shown = result.stderr[diagnosis:]
    carried = line_of(script, "self.hx = out")
    assert f"Culprit: backward_rnn_state.py:{carried} (carried over)\n    self.hx = out" in shown
    flat = " ".join(result.stderr[answer:diagnosis].split())  # leading with the cause found
    assert "Most likely: State carried from one step to the next with its graph" in flat
    assert f"Evidence: the diagnosis found it at {script.name}:{carried}." in flat


def test_an_error_raised_where_the_bug_is_needs_no_second_run_and_speaks_chinese(cli_env, tmp_path):
    script = hooked_script(tmp_path, "leaf_inplace.py")
    result = python(script, {**cli_env, "LC_ALL": "zh_CN.UTF-8"})
    assert result.returncode == 1
    shown = result.stderr[result.stderr.index("autograd-errors: 诊断：") :]
    (raised,) = [
        n
        for n, line in enumerate(script.read_text(encoding="utf-8").splitlines(), 1)
        if n > 1 and "-=" in line
    ]
    assert f"问题代码：leaf_inplace.py:{raised} (抛出报错)" in shown
    assert "Culprit" not in shown


def test_a_correct_script_is_left_alone(cli_env, tmp_path):
    """Its output, exit code and the weights it computes are those of the plain script."""
    script = hooked_script(tmp_path, "correct_training.py")
    plain = python(DATA / "diagnose" / "correct_training.py", cli_env, str(tmp_path / "plain"))
    hooked = python(script, cli_env, str(tmp_path / "hooked"))
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, plain.stdout, "")
    assert plain.returncode == 0
    weights = (tmp_path / "hooked").read_text(encoding="utf-8")
    assert weights == (tmp_path / "plain").read_text(encoding="utf-8")
