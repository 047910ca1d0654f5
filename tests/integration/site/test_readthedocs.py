"""Publishable as-is (issue 14): Read the Docs builds what `make docs` builds, with the same
requirements, and every link the CLI prints points at a page of that site."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import yaml
from helpers import REPO

from autograd_errors.catalog import load
from autograd_errors.rendering.urls import DEFAULT_BASE_URL

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _make_commands(*targets: str) -> list[list[str]]:
    """The commands `make` would run for ``targets`` from scratch (`make -n -B`), split."""
    result = subprocess.run(
        ["make", "-n", "-B", *targets], cwd=REPO, capture_output=True, text=True, check=True
    )
    return [shlex.split(line) for line in result.stdout.splitlines() if line.strip()]


def _readthedocs() -> dict:
    return yaml.safe_load((REPO / ".readthedocs.yaml").read_text(encoding="utf-8"))


def _sphinx_builds(commands: list[list[str]]) -> list[list[str]]:
    return [c for c in commands if c and c[0].endswith("/sphinx-build")]


def test_make_docs_installs_the_pinned_requirements_then_builds():
    commands = _make_commands("docs")
    installs = [c for c in commands if c[1:4] == ["-m", "pip", "install"]]
    assert len(installs) == 1
    (install,) = installs
    assert install[install.index("-c") + 1] == "constraints.txt"
    assert install[install.index("-e") + 1] == ".[dev]"
    constraints = (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
    assert "torch==2.13.0" in constraints
    english, chinese = _sphinx_builds(commands)
    assert english[1:] == ["-W", "--keep-going", "-n", "-c", ".", "docs", "_build/html"]
    assert chinese[1:] == [
        "-W", "--keep-going", "-n", "-c", ".", "-D", "language=zh_CN", "docs", "_build/html/zh_CN"
    ]  # fmt: skip


def test_readthedocs_installs_through_the_makefile_with_the_cpu_index_and_runs_make_docs():
    config = _readthedocs()
    assert config["version"] == 2
    assert config["build"]["tools"]["python"]
    commands = [shlex.split(line) for line in config["build"]["commands"]]
    # The requirements: the Makefile's own setup (constraints.txt, the dev extra), with pip
    # also reading PyTorch's CPU index (PIP_EXTRA_INDEX_URL is pip's --extra-index-url).
    assert commands[0] == [f"PIP_EXTRA_INDEX_URL={CPU_INDEX}", "make", "setup"]
    # The build: `make docs` itself, then its output published as Read the Docs expects.
    assert commands[1] == ["make", "docs"]
    output_dir = _sphinx_builds(_make_commands("docs"))[0][-1]  # the Chinese site is inside
    assert commands[2:] == [
        ["mkdir", "-p", "$READTHEDOCS_OUTPUT/html"],
        ["cp", "-r", f"{output_dir}/.", "$READTHEDOCS_OUTPUT/html/"],
    ]
    # Nothing is installed but by the Makefile.
    assert not any("pip" in word for command in commands for word in command)
    assert "python" not in config  # no second installation by Read the Docs itself


def test_every_link_the_cli_prints_is_a_page_of_the_published_site(site, cli):
    assert DEFAULT_BASE_URL == "https://autograd-errors.readthedocs.io/en/latest/"
    conf = (REPO / "conf.py").read_text(encoding="utf-8")
    assert "html_baseurl = DEFAULT_BASE_URL" in conf
    listed = json.loads(cli("list", "--json").stdout)["entries"]
    assert len(listed) == len(load(use_cache=False))
    urls = [entry["url"] for entry in listed]
    for entry_id in ("leaf-inplace", "grad-is-none"):
        shown = json.loads(cli("show", entry_id, "--json").stdout)
        urls.append(shown["url"])
        text = cli("show", entry_id).stdout.decode()
        urls += [word for word in text.split() if word.startswith(DEFAULT_BASE_URL)]
    for url in urls:
        assert url.startswith(DEFAULT_BASE_URL), url
        page = Path(site, url[len(DEFAULT_BASE_URL) :])
        assert page.is_file(), url
