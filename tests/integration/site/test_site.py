"""The real site build: `sphinx-build -W` on a copy of the project, pages where `path` says,
downloads present, and a build that fails when torch's wording and the catalog disagree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import page_text, plain_text, sphinx_build

from autograd_errors.catalog import load
from autograd_errors.sphinxext.verification import read_verdict
from autograd_errors.verification.verdicts import Status

CATALOG = load(use_cache=False)


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_entry_page_is_where_its_path_says(site, entry_id):
    entry = CATALOG[entry_id]
    page = site / entry.path
    assert page.is_file()
    # Headed by its title in words, the id small beside it.
    heading = re.search(r"<h1>(.*?)</h1>", page.read_text(encoding="utf-8"), re.DOTALL)
    assert heading is not None
    assert f' <span class="autograd-id">{entry_id}</span>' in heading[1]
    assert plain_text(heading[1]) == f"{entry.title} {entry_id}#"  # the heading's link: #


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_page_shows_what_the_build_verified(site, site_project, entry_id):
    entry = CATALOG[entry_id]
    verdict = read_verdict(site_project / "docs", entry)
    assert verdict is not None
    text = page_text(site / entry.path)
    if entry.is_pitfall:
        assert verdict.status is Status.OK
        assert "A silent pitfall" in text
    elif entry.needs == "cuda" and verdict.status is Status.NEEDS_CUDA:
        assert "Not run in this build: the repro needs CUDA" in text
        current = entry.current
        shown = current.example or f"{current.exception}: {current.message}"
        assert " ".join(shown.split()) in text
    elif entry.retired:
        assert verdict.status is Status.RETIRED
        assert f"Last raised by torch {entry.retired.last_release}" in text
        assert " ".join(entry.current.example.split()) in text
    else:
        assert verdict.status is Status.OK
        assert " ".join(f"{entry.exception}: {verdict.message}".split()) in text


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
        shown = entry.title if entry.is_pitfall else entry.current.template.render({})
        assert " ".join(shown.split()) in home
    assert "python -m autograd_errors explain" in home


def test_a_reworded_message_fails_the_build_even_with_nothing_else_changed(rebuilt_project):
    """sphinx-gallery would skip the unchanged scripts; the catalog change must re-run them."""
    project = rebuilt_project
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
    # (The restored catalog is the one the shared site fixture built: no third build here.)


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_entry_page_answers_first_and_asks_for_feedback(site, entry_id):
    """Issue 14: the answer before the code, no download note on top, titles for related
    entries, and a prefilled issue for a wrong match."""
    entry = CATALOG[entry_id]
    markup = (site / entry.path).read_text(encoding="utf-8")
    assert "Go to the end" not in markup
    assert markup.index('class="autograd-fix"') < markup.index("Common causes")
    assert (
        "https://github.com/autograd-errors/autograd-errors/issues/new?"
        f"title=Wrong%20match%20or%20missing%20entry%3A%20{entry_id}&amp;body=" in markup
    )
    if entry.related:
        related = plain_text(markup[markup.index("Related entries") :])
        for other in entry.related:
            assert CATALOG[other].title in related


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_each_entry_page_links_the_pytorch_documentation_after_its_answer(site, entry_id):
    """Issue 14: every entry links the PyTorch documentation that explains its mechanism,
    named in words, right after the fix and the why."""
    entry = CATALOG[entry_id]
    markup = (site / entry.path).read_text(encoding="utf-8")
    block = markup[markup.index('class="autograd-docs"') :]
    block = block[: block.index("</p>")]
    assert "In PyTorch's documentation:" in plain_text(block)
    for url in entry.docs:
        assert f'href="{url}"' in block
    assert markup.index('class="autograd-fix"') < markup.index('class="autograd-docs"')
    assert markup.index('class="autograd-docs"') < markup.index("Common causes")
