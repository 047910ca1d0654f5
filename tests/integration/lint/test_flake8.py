"""The flake8 plugin (``autograd_errors.lint.flake8``), through a real flake8 run: registered
by the package's entry point, the same findings as the command, flake8's own ``# noqa`` and
selection, the opinionated rules in its default ignore list."""

import os
import subprocess
import sys

import pytest
from lint_cases import EVAL_FILES, REPO, lint

FLAKE8 = os.path.join(os.path.dirname(sys.executable), "flake8")


def flake8(*args, cwd=REPO):
    return subprocess.run(
        [FLAKE8, "--isolated", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_plugin_is_registered():
    result = flake8("--version")
    assert "autograd-errors: " in result.stdout


@pytest.mark.parametrize("code", ["AE101", "AE204", "AE302", "AE401", "AE501", "AE503"])
def test_flake8_reports_what_the_command_reports(code):
    path = str(EVAL_FILES.relative_to(REPO) / f"{code.lower()}.py")
    ours = lint(path, cwd=REPO).stdout.splitlines()
    theirs = flake8("--select", "AE", path).stdout.splitlines()
    assert ours
    assert theirs == ours


def test_noqa_select_ignore_and_the_opinionated_rules(tmp_path):
    (tmp_path / "train.py").write_text(
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    for p in model.parameters():\n"
        "        p.data.add_(p.grad, alpha=-0.1)\n"
        "    other.step()\n"
        "    optimizer.step()\n"
        "    optimizer.step()  # noqa: AE501\n"
    )

    def codes(*args):
        lines = flake8(*args, "train.py", cwd=tmp_path).stdout.splitlines()
        return [code for line in lines if (code := line.split()[1]).startswith("AE")]

    assert codes("--select", "AE") == ["AE501"]
    assert codes() == ["AE501"]  # flake8's default selection, AE9 left out
    assert codes("--extend-select", "AE9") == ["AE901", "AE501"]
    assert codes("--select", "AE901") == ["AE901"]
    assert codes("--select", "AE", "--ignore", "AE501") == []


def test_a_file_that_does_not_parse_is_flake8s_e999(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    result = flake8("--select", "AE,E999", "broken.py", cwd=tmp_path)
    assert result.stdout.startswith("broken.py:1:")
    assert " E999 SyntaxError: invalid syntax" in result.stdout
    assert "AE000" not in result.stdout
