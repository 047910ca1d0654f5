"""Shared fixtures: the packaged catalog, and a CLI runner with a private cache."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
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


# The built site, served on 127.0.0.1, in Debian's Chromium driven by Selenium: the browser
# tests' fixtures (tests/integration/browser/, tests/integration/site/test_site_layout.py).

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def server(site: Path):
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    if missing:
        pytest.fail(
            f"the browser tests need {' and '.join(missing)}: "
            "apt-get install chromium chromium-driver (make test does it when it can)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
