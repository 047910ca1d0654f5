"""Shared fixtures: the packaged catalog, and a CLI runner with a private cache."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import copy_project, shared_directory, sphinx_build

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


# The site, built once for the whole run (issue 25) --------------------------------------------
# Every site test (the pages, the downloads, the browser, the layout, the translations) reads
# one build of a copy of the project, the English site and the Chinese one inside it, as
# `make docs` builds them. Under pytest-xdist the workers share it: the first that needs it
# builds it, under a lock, and the others wait for that build instead of making their own.
# The tests that rebuild on purpose do it in a copy of their own (`rebuilt_project`).


def _built_once(
    shared: Path, name: str, build: Callable[[], subprocess.CompletedProcess[str]]
) -> None:
    """Run ``build`` once for the whole run; each caller fails with its output if it failed."""
    import fcntl

    done = shared / f"{name}.built.json"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            result = build()
            done.write_text(
                json.dumps(
                    {"returncode": result.returncode, "output": result.stdout + result.stderr}
                ),
                encoding="utf-8",
            )
    outcome = json.loads(done.read_text(encoding="utf-8"))
    assert outcome["returncode"] == 0, outcome["output"]


@pytest.fixture(scope="session")
def site_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's copy of the project, the site built in it (read it only: see above)."""
    shared = shared_directory(tmp_path_factory)
    target = shared / "site-project"
    _built_once(shared, "project", lambda: _copied(target))
    return target


def _copied(target: Path) -> subprocess.CompletedProcess[str]:
    copy_project(target)
    return subprocess.CompletedProcess([], 0, "", "")


@pytest.fixture(scope="session")
def site(site_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The English site, built from scratch as `make docs` builds it."""
    shared = shared_directory(tmp_path_factory)
    _built_once(shared, "site", lambda: sphinx_build(site_project))
    return site_project / "_build" / "html"


@pytest.fixture(scope="session")
def zh_site(site_project: Path, site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Chinese site, built after the English one as `make docs` builds it."""
    arguments = ("-D", "language=zh_CN", "docs", "_build/html/zh_CN")
    shared = shared_directory(tmp_path_factory)
    _built_once(shared, "zh-site", lambda: sphinx_build(site_project, *arguments))
    return site / "zh_CN"


@pytest.fixture(scope="session")
def rebuilt_project(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the built project (its pages, the gallery's outputs and caches), for the
    tests that rebuild it: the shared one is never built twice under the others' feet."""
    target = tmp_path_factory.mktemp("rebuilt") / "project"
    shutil.copytree(site.parent.parent, target, symlinks=True)
    return target


def uses_the_site(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    return bool({"site", "zh_site", "site_project", "server"} & names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The site's tests last (a stable sort): under xdist both workers first run the tests
    that need no site, while the first to reach a site test builds it."""
    items.sort(key=uses_the_site)


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
