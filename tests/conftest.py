"""Shared fixtures: the packaged catalog, and a CLI runner with a private cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import copy_project, sphinx_build

from autograd_errors import catalog

pytest_plugins = ["pytester"]  # the pytest plugin's tests run pytest on test files of their own


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


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project to build the site in, leaving the checkout's build alone."""
    return copy_project(tmp_path_factory.mktemp("site") / "project")


@pytest.fixture(scope="session")
def site(project: Path) -> Path:
    """The site, built from scratch as `make docs` builds it."""
    result = sphinx_build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    return project / "_build" / "html"
