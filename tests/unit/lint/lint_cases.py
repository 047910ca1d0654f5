"""What the lint tests share: the eval files and their expectations, and the command run as a
user runs it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from autograd_errors.lint.checker import check_source

HERE = Path(__file__).parent
EVAL_FILES = HERE / "eval_files"
REPO = HERE.parents[2]

#: An expectation, as flake8-bugbear writes them: the codes, at the end of the offending line.
EXPECTED = re.compile(r"#\s*((?:AE\d{3}(?:,\s*)?)+)\s*$")
OPTIONS = re.compile(r"^# OPTIONS: --select (\S+)", re.M)


def expectations(text: str) -> set[tuple[int, str]]:
    """``(line, code)`` of every expectation in a file."""
    found = set()
    for number, line in enumerate(text.splitlines(), 1):
        match = EXPECTED.search(line)
        if match:
            found |= {(number, code) for code in re.findall(r"AE\d{3}", match.group(1))}
    return found


def selection(text: str) -> list[str] | None:
    """The file's ``# OPTIONS: --select ...`` line, if any."""
    match = OPTIONS.search(text)
    return match.group(1).split(",") if match else None


def eval_file(code: str) -> Path:
    return EVAL_FILES / f"{code.lower()}.py"


def compare(path: Path) -> str:
    """An empty string when the file's findings are exactly its expectations, else a report
    naming each missing and unexpected finding with its line."""
    text = path.read_text(encoding="utf-8")
    findings = check_source(text.encode(), str(path), select=selection(text))
    found = {(finding.line, finding.code) for finding in findings}
    expected = expectations(text)
    lines = text.splitlines()
    report = [
        f"missing {code} at line {line}: {lines[line - 1].strip()}"
        for line, code in sorted(expected - found)
    ] + [
        f"unexpected {code} at line {line}: {lines[line - 1].strip()}"
        for line, code in sorted(found - expected)
    ]
    return "\n".join(report)


def lint(
    *args: str,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m autograd_errors lint ARGS`` in a subprocess, in English unless ``env`` says
    otherwise."""
    environment = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
    environment.update({"LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "autograd_errors", "lint", *args],
        cwd=cwd,
        input=stdin.decode() if stdin is not None else None,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


#: A training loop without zero_grad(): AE501 on line 4.
TRAIN_SNIPPET = (
    "for x, y in loader:\n"
    "    loss = criterion(model(x), y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
)
