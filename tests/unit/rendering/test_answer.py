"""One answer, assembled once and rendered per format, in either language."""

from __future__ import annotations

import json

from helpers import ANSWER_KEYS, load_data

from autograd_errors import catalog
from autograd_errors.rendering.answer import Answer
from autograd_errors.rendering.notebook import answer_html
from autograd_errors.rendering.payloads import answer_json
from autograd_errors.rendering.terminal import Style
from autograd_errors.rendering.text import answer_text

CATALOG = catalog.load(use_cache=False)
BASE = "https://example.org/site/"
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
OOM = next(e["text"] for e in load_data("not-autograd.json")["errors"] if "memory" in e["text"])


def failing_step() -> None:
    raise RuntimeError(LEAF)


def test_an_exception_is_read_with_its_traceback_and_points_at_its_line():
    try:
        failing_step()
    except RuntimeError as error:
        answer = Answer.of(error, CATALOG)
    assert [m.entry.id for m in answer.matches] == ["leaf-inplace"]
    assert answer.frame is not None
    assert answer.frame.file == __file__
    assert answer.frame.code == "raise RuntimeError(LEAF)"
    assert "Traceback (most recent call last):" in answer.text


def test_no_match_has_no_frame_and_every_format_says_what_the_paste_is():
    answer = Answer.of(OOM, CATALOG)
    assert (answer.matches, answer.frame) == ([], None)
    assert answer.not_autograd is not None
    text = answer_text(answer, BASE, Style(False), 78)
    assert text.startswith(f"Not an autograd error ({answer.not_autograd.name}): ")
    assert answer_json(answer, BASE)["not_autograd"]["kind"] == answer.not_autograd.name
    assert answer_html(answer, BASE).startswith('<div class="autograd-errors"><div>Not an')


def test_every_format_speaks_the_language_asked_for():
    answer = Answer.of(f"RuntimeError: {LEAF}", CATALOG)
    chinese = CATALOG["leaf-inplace"].localized("zh_CN").title
    zh_url = f"{BASE}zh_CN/errors/inplace/leaf-inplace.html"
    assert answer_text(answer, BASE, Style(False), 78, language="zh_CN").startswith(chinese)
    assert answer_json(answer, BASE, "zh_CN")["matches"][0]["url"] == zh_url
    html = answer_html(answer, BASE, "zh_CN")
    assert f'<a href="{zh_url}"' in html
    assert f">{chinese}</a>" in html
    assert "<summary>所有常见原因、torch 报错的原因以及匹配到的措辞</summary>" in html


def test_the_hint_of_an_error_that_is_not_autograds_is_translated():
    answer = Answer.of(OOM, CATALOG)
    kind = answer.not_autograd
    assert kind is not None
    english = answer_json(answer, BASE)["not_autograd"]["hint"]
    chinese = answer_json(answer, BASE, "zh_CN")["not_autograd"]["hint"]
    assert english == kind.hint
    assert chinese == kind.hints["zh_CN"] != english
    assert chinese in answer_text(answer, BASE, Style(False), 78, language="zh_CN")


def test_verbose_text_holds_the_short_answers_advice_and_more():
    answer = Answer.of(f"RuntimeError: {LEAF}", CATALOG)
    short = answer_text(answer, BASE, Style(False), 10_000, more="--verbose gives more")
    everything = answer_text(answer, BASE, Style(False), 10_000, verbose=True)
    assert short.splitlines()[-1] == "  --verbose gives more"
    cause = CATALOG["leaf-inplace"].causes[0]
    assert f"Most common: {' '.join(cause.text.split())}" in short  # no sign in the paste
    assert f"1. {' '.join(cause.text.split())}" in everything
    assert "  Why" in everything
    assert "  Why" not in short


def test_the_json_of_an_answer_is_json():
    answer = Answer.of(f"RuntimeError: {LEAF}", CATALOG)
    found = answer_json(answer, BASE)
    assert json.loads(json.dumps(found)) == found
    assert set(found) == ANSWER_KEYS
