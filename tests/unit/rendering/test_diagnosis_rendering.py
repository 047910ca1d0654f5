"""A diagnosis rendered once for every surface (rendering/diagnosis.py): the text of ``run
--diagnose``, ``install(diagnose=True)`` and pytest, and the notebook's HTML say the same
things in the same order, in English and Chinese; the browser's export says which entries a
diagnosis traces."""

from __future__ import annotations

import html
import re

import pytest

from autograd_errors.browser.export import catalog_json
from autograd_errors.catalog import load
from autograd_errors.diagnosis.findings import Culprit, Diagnosis, Note
from autograd_errors.rendering.diagnosis import diagnosis_html, diagnosis_text
from autograd_errors.rendering.terminal import Style

CHANGED = Culprit(
    "/home/you/project/model.py",
    12,
    "changed-in-place",
    "out += x",
    Note("diagnose.what.raised", {}),
)
SAVED = Culprit("/home/you/project/model.py", 11, "saved", "out = torch.sigmoid(self.fc(x))")
FOUND = Diagnosis("inplace-modified", "inplace-after-saving-op", (CHANGED, SAVED), ())


def as_text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def squeezed(text: str) -> str:
    """The words, without the spaces and the backticks the two formats place differently."""
    return "".join(text.replace("`", "").split())


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_text_and_the_html_say_the_same_in_the_same_order(language):
    text = diagnosis_text(FOUND, language, Style(False), 100_000, place=lambda path: "model.py")
    markup = diagnosis_html(FOUND, language, place=lambda path: "model.py")
    assert squeezed(text) == squeezed(as_text(markup))
    assert "model.py:12" in text
    assert text.index("model.py:12") < text.index("model.py:11")
    assert "<code>out += x</code>" in markup


def test_the_cause_is_the_records_sentence_and_its_id():
    entry = load()["inplace-modified"]
    (cause,) = [c for c in entry.causes if c.id == "inplace-after-saving-op"]
    text = diagnosis_text(FOUND, "en", Style(False), 100_000)
    assert f"Cause: {cause.text} (inplace-after-saving-op)" in text
    # Under an answer that leads with that cause, it is not said twice.
    under_answer = diagnosis_text(FOUND, "en", Style(False), 100_000, with_cause=False)
    assert "Cause:" not in under_answer
    assert under_answer == text.replace(f"\n  Cause: {cause.text} (inplace-after-saving-op)", "")


def test_a_diagnosis_that_found_nothing_says_so_and_an_unknown_error_gets_nothing():
    nothing = Diagnosis("backward-twice", None, (), (Note("diagnose.note.rerun_passed"),))
    text = diagnosis_text(nothing, "en", Style(False), 88)
    assert "No culprit found." in text
    assert "Culprit:" not in text
    assert "No culprit found." in as_text(diagnosis_html(nothing, "en"))
    assert diagnosis_text(Diagnosis(None), "en", Style(False), 88) == ""
    assert diagnosis_html(Diagnosis(None), "en") == ""


def test_the_export_flags_the_entries_a_diagnosis_traces():
    catalog = load()
    data = catalog_json(catalog, "en", {"inplace-modified"})
    flagged = [entry["id"] for entry in data["entries"] if entry["diagnosable"]]
    assert flagged == ["inplace-modified"]
    assert not any(entry["diagnosable"] for entry in catalog_json(catalog)["entries"])
