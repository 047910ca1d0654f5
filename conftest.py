"""Runs the code examples of the hand-written pages and of the docstrings as tests.

Python examples (``>>>``) are doctests; exceptions are compared in full, message included
(doctest's IGNORE_EXCEPTION_DETAIL stays off). ``console`` blocks run their ``$`` commands and
compare the output, where a line ``...`` stands for any number of lines.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.myst import CodeBlockParser, PythonCodeBlockParser
from sybil.parsers.rest import DocTestParser

VENV_BIN = str(Path(sys.executable).parent)


def _matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(_matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and _matches(expected[1:], actual[1:])


def run_console(example: Example) -> str | None:
    """Each ``$ command`` runs in a shell (``python`` is this environment's); its output must
    match the lines below it."""
    sessions: list[tuple[str, list[str]]] = []
    for line in example.parsed.splitlines():
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        elif sessions:
            sessions[-1][1].append(line)
    env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ["PATH"]}
    env.pop("NO_COLOR", None)
    env.pop("AUTOGRAD_ERRORS_BASE_URL", None)
    for command, expected in sessions:
        result = subprocess.run(
            command, shell=True, capture_output=True, text=True, env=env, timeout=600, check=False
        )
        actual = result.stdout.rstrip("\n").splitlines()
        while expected and expected[-1] == "":
            expected.pop()
        if not _matches(expected, actual):
            return f"$ {command}\nexpected:\n" + "\n".join(expected) + "\ngot:\n" + result.stdout
    return None


pages = Sybil(
    parsers=[PythonCodeBlockParser(), CodeBlockParser("console", run_console)],
    patterns=["docs/*.md", "README.md"],
)
docstrings = Sybil(parsers=[DocTestParser()], patterns=["src/autograd_errors/**/*.py"])
pytest_collect_file = (pages + docstrings).pytest()
