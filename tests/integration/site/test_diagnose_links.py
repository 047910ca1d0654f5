"""The site and "Diagnose your script" (issue 23): each entry a diagnosis traces links the
page from its own, in both languages, and the paste page's catalog says which entries those
are; the list is the engine's registry of probes, read by the build."""

from __future__ import annotations

import json
import re

import pytest
from helpers import plain_text

from autograd_errors.catalog import load
from autograd_errors.diagnosis import diagnosable_entries

CATALOG = load(use_cache=False)
TRACED = set(diagnosable_entries())


def diagnose_paragraph(markup: str) -> str | None:
    found = re.search(r'<p class="autograd-diagnose">(.*?)</p>', markup, re.DOTALL)
    return None if found is None else found[1]


def test_the_engine_traces_the_entries_of_issue_23():
    assert {
        "inplace-modified",
        "backward-twice",
        "no-grad-fn",
        "grad-is-none",
        "nonleaf-grad",
        "anomaly-nan",
        "leaf-inplace",
    } <= TRACED
    assert set(CATALOG.ids) >= TRACED


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_an_entry_page_links_diagnose_your_script_when_a_probe_traces_it(site, entry_id):
    entry = CATALOG[entry_id]
    paragraph = diagnose_paragraph((site / entry.path).read_text(encoding="utf-8"))
    if entry_id not in TRACED:
        assert paragraph is None
        return
    assert paragraph is not None
    assert 'href="../../diagnose.html"' in paragraph
    text = plain_text(paragraph)
    assert "python -m autograd_errors run --diagnose train.py" in text
    assert "Diagnose your script" in text


def test_the_chinese_page_links_it_in_chinese(zh_site):
    entry = CATALOG["inplace-modified"]
    paragraph = diagnose_paragraph((zh_site / entry.path).read_text(encoding="utf-8"))
    assert paragraph is not None
    assert 'href="../../diagnose.html"' in paragraph
    assert "要找到你自己的代码中引发这个报错的那一行" in plain_text(paragraph)
    assert "诊断你的脚本" in plain_text(paragraph)


def test_the_paste_pages_catalog_says_which_entries_are_diagnosable(site, zh_site):
    for built in (site, zh_site):
        data = json.loads((built / "_static" / "autograd-catalog.json").read_text("utf-8"))
        flagged = {entry["id"] for entry in data["entries"] if entry["diagnosable"]}
        errors = {entry.id for entry in CATALOG if not entry.is_pitfall}
        assert flagged == TRACED & errors
