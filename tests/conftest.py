"""Shared fixtures: the packaged catalog, and a CLI runner with a private cache."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import copy_project, shared_directory

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
# `make docs` builds them. The builds start with the run, in a process of their own
# (tests/site_builds.py), when the run holds a site test: under pytest-xdist the first worker
# starts them, and every site test waits for their outcome. The site's tests come last, so the
# builds use the cores while the others run. The readers read a copy of the built project; the
# tests that rebuild on purpose take the project where it was built, one at a time
# (`rebuilt_project`), since Sphinx reuses its cache only there.

#: The longest a site test waits for a build: a cold build takes some 5 minutes here.
SITE_BUILD_WAIT = 1800


#: In the run's shared directory: where the site is built (and rebuilt by the tests that
#: rebuild it), and the copy the other site tests read.
BUILT_HERE = "site-built-here"
READERS_COPY = "site-project"


def _start_site_builds(shared: Path) -> None:
    """Copy the project and start its builds, once for the whole run."""
    import fcntl

    started = shared / "site-builds.started"
    with (shared / "site-builds.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not started.exists():
            project = copy_project(shared / BUILT_HERE)
            script = Path(__file__).parent / "site_builds.py"
            readers = shared / READERS_COPY
            builds = subprocess.Popen(
                [sys.executable, str(script), str(project), str(readers), str(shared)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=(shared / "site-builds.err").open("wb"),
                env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
                start_new_session=True,  # ended with its Sphinx by pytest_sessionfinish
            )
            started.write_text(str(builds.pid), encoding="utf-8")


def _wait_for_build(shared: Path, name: str) -> None:
    """Wait for the background build ``name``; fail with its output if it failed, or with why
    it never ended."""
    import time

    done = shared / f"{name}.built.json"
    pid = int((shared / "site-builds.started").read_text(encoding="utf-8"))
    deadline = time.monotonic() + SITE_BUILD_WAIT
    while not done.exists():
        if not _running(pid):
            time.sleep(1)  # its last outcome may be on its way
            if done.exists():
                break
            errors = (shared / "site-builds.err").read_text(encoding="utf-8", errors="replace")
            pytest.fail(f"the site builds ended without building {name}:\n{errors}")
        if time.monotonic() > deadline:
            pytest.fail(f"the {name} build did not end within {SITE_BUILD_WAIT} s")
        time.sleep(0.5)
    outcome = json.loads(done.read_text(encoding="utf-8"))
    assert outcome["returncode"] == 0, outcome["output"]


def _running(pid: int) -> bool:
    """Whether ``pid`` is alive (a zombie, ended but not yet reaped by its worker, is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.fixture(scope="session", autouse=True)
def _site_builds_started(request: pytest.FixtureRequest, tmp_path_factory) -> None:
    """Start the site's builds at the run's first test, when it holds a site test."""
    if request.config.stash.get(_RUN_HAS_SITE_TESTS, False):
        _start_site_builds(shared_directory(tmp_path_factory))


@pytest.fixture(scope="session")
def site_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The readers' copy of the project, the English site built (read it only: see above)."""
    shared = shared_directory(tmp_path_factory)
    _start_site_builds(shared)
    _wait_for_build(shared, "site")
    return shared / READERS_COPY


@pytest.fixture(scope="session")
def site(site_project: Path) -> Path:
    """The English site, built from scratch as `make docs` builds it."""
    return site_project / "_build" / "html"


@pytest.fixture(scope="session")
def zh_site(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Chinese site, built after the English one as `make docs` builds it."""
    _wait_for_build(shared_directory(tmp_path_factory), "zh-site")
    return site / "zh_CN"


@pytest.fixture
def rebuilt_project(zh_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The project where the site was built, with its caches, for a test that builds it again:
    one such test at a time, across the workers, and each finds it as the builds left it (the
    one before it is undone from the readers' copy, made at the same path so that the caches
    still hold)."""
    import fcntl

    shared = shared_directory(tmp_path_factory)
    project, used = shared / BUILT_HERE, shared / "site-rebuilt.used"
    with (shared / "site-rebuild.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if used.exists():
            shutil.rmtree(project)
            shutil.copytree(shared / READERS_COPY, project, symlinks=True)
        used.touch()
        yield project


def uses_the_site(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    return bool({"site", "zh_site", "site_project", "server"} & names)


_RUN_HAS_SITE_TESTS = pytest.StashKey[bool]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The site's tests last (a stable sort): under xdist both workers first run the tests
    that need no site, while the site is built in the background."""
    items.sort(key=uses_the_site)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In the run's own process (not an xdist worker), once every test is done: end the site
    builds if they still run (a run stopped early, by ``-x`` or Ctrl-C), and what they started."""
    import signal

    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    started = shared_directory(factory) / "site-builds.started"
    if started.exists():
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int(started.read_text(encoding="utf-8")), signal.SIGTERM)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Whether the run, as selected (``-k``, paths), holds a site test."""
    session.config.stash[_RUN_HAS_SITE_TESTS] = any(map(uses_the_site, session.items))


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
