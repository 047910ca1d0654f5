"""The real site build: `sphinx-build -W` on a copy of the project, pages where `path` says,
downloads present, and a build that fails when torch's wording and the catalog disagree."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_errors.catalog import load

REPO = Path(__file__).parent.parent
CATALOG = load(use_cache=False)
IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "_build",
    "errors",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    "*.egg-info",
)


def page_text(path: Path) -> str:
    """A page's text as a reader sees it: tags dropped, entities decoded, whitespace runs
    collapsed, and Sphinx's typographic quotes made plain again."""
    markup = path.read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())
    return (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )


def sphinx_build(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "sphinx-build"),
            "-W",
            "--keep-going",
            "-n",
            "-q",
            "-c",
            ".",
            "docs",
            "_build/html",
        ],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("site") / "project"
    shutil.copytree(REPO, copy, ignore=IGNORED)
    return copy


@pytest.fixture(scope="module")
def site(project) -> Path:
    result = sphinx_build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    return project / "_build" / "html"


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_entry_page_is_where_its_path_says(site, entry_id):
    entry = CATALOG[entry_id]
    page = site / entry.path
    assert page.is_file()
    assert f"<h1>{entry_id}" in page.read_text(encoding="utf-8")
    text = page_text(page)
    assert entry.title in text


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_page_shows_the_message_captured_in_the_build(site, project, entry_id):
    entry = CATALOG[entry_id]
    stored = project / "docs" / entry.path.replace(".html", ".check.json")
    verdict = json.loads(stored.read_text())
    assert verdict["status"] == "OK"
    assert f"{entry.exception}: {verdict['message']}" in page_text(site / entry.path)


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_page_offers_its_script_and_notebook(site, entry_id):
    page = (site / CATALOG[entry_id].path).read_text(encoding="utf-8")
    for suffix in (".py", ".ipynb"):
        link = f"{entry_id}{suffix}"
        assert 'download="" href="../../_downloads/' in page
        found = list((site / "_downloads").rglob(link))
        assert len(found) == 1, link
        assert f"_downloads/{found[0].parent.name}/{link}" in page


def test_the_gallery_offers_every_example_in_one_zip(site):
    import zipfile

    index = (site / "errors" / "index.html").read_text(encoding="utf-8")
    zips = {p.name: p for p in (site / "_downloads").rglob("errors_*.zip")}
    assert set(zips) == {"errors_python.zip", "errors_jupyter.zip"}
    for name, zip_path in zips.items():
        assert name in index
        members = {Path(m).stem for m in zipfile.ZipFile(zip_path).namelist()}
        assert set(CATALOG.ids) <= members


def test_home_page_lists_entries_by_message(site):
    home = page_text(site / "index.html")
    for entry in CATALOG:
        assert entry.current.message in home
    assert "python -m autograd_errors explain" in home


def test_a_reworded_message_fails_the_build_even_with_nothing_else_changed(site, project):
    """sphinx-gallery would skip the unchanged scripts; the catalog change must re-run them."""
    record = project / "src" / "autograd_errors" / "entries" / "data-not-tensor.toml"
    original = record.read_text()
    record.write_text(original.replace("has to be a tensor", "must be a tensor"))
    try:
        result = sphinx_build(project)
    finally:
        record.write_text(original)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "DRIFT       data-not-tensor" in output
    assert "diff: Variable data [-must-] {+has to+} be a tensor, but got" in output
    assert sphinx_build(project).returncode == 0
