"""A Chinese answer holds no English but torch's: every entry's answer to its own message, in
text (short and whole) and in a notebook's HTML, and the non-autograd errors' (issue 25)."""

from __future__ import annotations

import html
import re

import pytest
from helpers import english_left, load_data

from autograd_errors.catalog import load
from autograd_errors.rendering.answer import Answer
from autograd_errors.rendering.notebook import answer_html
from autograd_errors.rendering.terminal import Style
from autograd_errors.rendering.text import answer_text

CATALOG = load(use_cache=False)
ERRORS = [entry for entry in CATALOG if not entry.is_pitfall]
SITE = "https://example.org/"


def chinese_text(answer: Answer) -> tuple[str, str, str]:
    """The short answer, the whole one and the notebook's, as text (HTML's code left out)."""
    plain = Style(False)
    short = answer_text(answer, SITE, plain, 10_000, language="zh_CN")
    whole = answer_text(answer, SITE, plain, 10_000, language="zh_CN", verbose=True)
    markup = re.sub(
        r"<(code|pre)\b[^>]*>.*?</\1>", " ", answer_html(answer, SITE, "zh_CN"), flags=re.S
    )
    notebook = html.unescape(re.sub(r"<[^>]+>", " ", markup.replace("</div>", "\n")))
    return short, whole, notebook


def retired_lines_left_out(text: str) -> str:
    """Without the line saying what replaced a retired message: the catalog has no Chinese
    for it yet (its ``replaced_by`` is not translatable; see the report of issue 25)."""
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("已退役"))


@pytest.mark.parametrize("entry", ERRORS, ids=lambda entry: entry.id)
def test_a_chinese_answer_speaks_chinese(entry):
    answer = Answer.of(entry.current.example, CATALOG)
    messages = tuple(match.message for match in answer.matches)
    for text in chinese_text(answer):
        assert english_left(retired_lines_left_out(text), messages=messages) == [], text


def test_a_chinese_not_autograd_answer_speaks_chinese():
    named = set()
    for paste in load_data("not-autograd.json")["errors"]:
        answer = Answer.of(paste["text"], CATALOG)
        if answer.not_autograd is None:
            continue  # not named, only not matched
        named.add(answer.not_autograd.name)
        text = answer_text(answer, SITE, Style(False), 10_000, language="zh_CN")
        assert english_left(text, messages=(paste["text"],)) == [], text
    assert len(named) >= 6  # most kinds are among the real errors


def test_the_detector_finds_english_in_a_chinese_text():
    """The check above can fail: an English label, or an English sentence, is found."""
    assert english_left("Most likely：某个原因。") == ["Most likely"]
    assert english_left("修复：write it out of place。") == ["write it out of place"]
    assert english_left("修复：用 `x = x + 1`（参见 https://pytorch.org/docs/a.html）。") == []
