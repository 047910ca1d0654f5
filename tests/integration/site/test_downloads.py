"""The downloads read on their own: every script, notebook and zip of a real site build carries
its entry's title and message, never the directives that make its page (issue 14)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from helpers import sphinx_build

from autograd_errors.catalog import load

CATALOG = load(use_cache=False)


def _readable(name: str, content: bytes) -> str:
    """The text a reader of the download sees: a notebook's cells, a script as it is."""
    if name.endswith(".ipynb"):
        cells = json.loads(content)["cells"]
        return "\n".join("".join(cell["source"]) for cell in cells)
    return content.decode("utf-8")


def _downloads(site: Path) -> dict[str, list[tuple[str, str]]]:
    """Every entry's script or notebook the site offers, loose or in a zip: the file (or the
    zip and its member) and its text, by entry id."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((site / "_downloads").rglob("*")):
        if path.suffix in (".py", ".ipynb"):
            text = _readable(path.name, path.read_bytes())
            found.setdefault(path.stem, []).append((str(path), text))
        elif path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    text = _readable(member, archive.read(member))
                    found.setdefault(Path(member).stem, []).append((f"{path}:{member}", text))
    return found


def _assert_reads_on_its_own(entry_id: str, place: str, text: str) -> None:
    entry = CATALOG[entry_id]
    assert ".. autograd-" not in text, place
    assert entry.title in text, place
    if entry.is_pitfall:
        assert "A silent pitfall: nothing is raised" in text, place
    else:
        for line in entry.current.example.splitlines():  # as torch prints it
            assert line in text, place
    assert " ".join(entry.causes[0].text.split()[:6]) in " ".join(text.split()), place


def _assert_every_download_reads_on_its_own(site: Path) -> None:
    found = _downloads(site)
    assert set(found) == set(CATALOG.ids)
    for entry_id, copies in found.items():
        # the script and notebook, loose, in the entry's zip and in the two zips of everything
        kinds = sorted(Path(place.rsplit(":", 1)[-1]).suffix for place, _ in copies)
        assert kinds == [".ipynb"] * 3 + [".py"] * 3, (entry_id, [p for p, _ in copies])
        for place, text in copies:
            _assert_reads_on_its_own(entry_id, place, text)


def test_every_download_carries_its_entry_and_no_directive(site):
    zips = {path.name for path in (site / "_downloads").rglob("*.zip")}
    assert {"errors_python.zip", "errors_jupyter.zip"} <= zips
    assert len(zips) == len(CATALOG) + 2
    _assert_every_download_reads_on_its_own(site)


@pytest.mark.parametrize("entry_id", ["leaf-inplace", "grad-is-none", "no-grad-accumulator"])
def test_a_downloaded_script_is_what_show_repro_prints(site, cli, entry_id):
    (script,) = (site / "_downloads").rglob(f"{entry_id}.py")
    downloaded = script.read_text(encoding="utf-8")
    compile(downloaded, script.name, "exec")
    printed = cli("show", entry_id, "--repro").stdout.decode()
    assert printed == downloaded.rstrip("\n") + "\n"


def test_the_notebook_opens_with_the_entry(site):
    (notebook,) = (site / "_downloads").rglob("inplace-modified.ipynb")
    first = "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][0]["source"])
    entry = CATALOG["inplace-modified"]
    assert first.lstrip().startswith(f"# {entry.title}\n")
    assert entry.current.example in first
    assert "**Why.**" in first
    assert "**Most common cause.**" in first
    assert "**Fix.**" in first


def test_a_cached_rebuild_still_publishes_expanded_downloads(rebuilt_project):
    """sphinx-gallery skips scripts whose checksum has not changed; the scripts beside the
    pages stay its own copies, so nothing is run again, and the downloads are expanded."""
    project = rebuilt_project
    beside_page = project / "docs" / "errors" / "inplace" / "leaf-inplace.py"
    source = project / "gallery" / "inplace" / "leaf-inplace.py"
    assert beside_page.read_bytes() == source.read_bytes()
    result = sphinx_build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert beside_page.read_bytes() == source.read_bytes()
    _assert_every_download_reads_on_its_own(project / "_build" / "html")
