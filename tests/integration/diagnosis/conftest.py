"""Fixtures of the diagnosis tests: the command line run in a directory, and the in-process
diagnosis with the catalog's cache kept out of $HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from diagnosis_helpers import SCRIPTS, diagnose_in_process


class Runner:
    """``python -m autograd_errors ARGS`` in a directory, as a user runs it there."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(
        self, *args: str, cwd: Path = SCRIPTS, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "autograd_errors", *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=cwd,
            env={**self.env, "COLUMNS": "100", **(env or {})},
            timeout=300,
            check=False,
        )

    def python(self, *args: str, cwd: Path = SCRIPTS) -> subprocess.CompletedProcess[str]:
        """The same program run by ``python`` itself."""
        return subprocess.run(
            [sys.executable, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=self.env,
            timeout=300,
            check=False,
        )

    def diagnose(
        self, report: Path, *args: str, cwd: Path = SCRIPTS
    ) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
        """``run --diagnose --report REPORT ARGS``: the finished process and its report."""
        result = self("run", "--diagnose", "--report", str(report), *args, cwd=cwd)
        return result, json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def runner(cli_env: dict[str, str]) -> Runner:
    return Runner(cli_env)


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """:func:`diagnose_in_process`, with the catalog's cache kept out of $HOME."""
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(tmp_path / "cache"))
    return diagnose_in_process
