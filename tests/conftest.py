"""Shared fixtures: the packaged catalog, the recorded torch messages, and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_errors import catalog

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


def load_data(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


MESSAGES_2_13 = load_data("torch-2.13.0-messages.json")["entries"]


@pytest.fixture(scope="session")
def packaged_catalog() -> catalog.Catalog:
    return catalog.load(use_cache=False)


@pytest.fixture(scope="session")
def cli_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for CLI subprocesses: a private catalog cache, no colour settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "AUTOGRAD_ERRORS_BASE_URL")}
    env["AUTOGRAD_ERRORS_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    return env


class Cli:
    """Runs ``python -m autograd_errors`` as a user would."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(
        self,
        *args: str | bytes,
        stdin: bytes | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "autograd_errors", *args],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            env={**self.env, **(env or {})},
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="session")
def cli(cli_env: dict[str, str]) -> Cli:
    return Cli(cli_env)
