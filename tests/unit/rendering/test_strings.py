"""The interface's words, in both languages, and which language a command speaks."""

from __future__ import annotations

import unicodedata

import pytest

from autograd_errors.rendering import strings


def test_every_ui_string_has_both_languages_with_the_same_placeholders():
    from autograd_errors.catalog.translations import placeholders

    # No words to translate: a release, the language switch, IPython's own name for a cell.
    neutral = {"releases.one", "page.language", "page.language_title", "answer.cell"}
    for key, texts in strings.STRINGS.items():
        assert set(texts) == {"en", "zh_CN"}, key
        assert all(texts.values()), key
        assert sorted(placeholders(texts["en"])) == sorted(placeholders(texts["zh_CN"])), key
        if key not in neutral:
            assert any(unicodedata.east_asian_width(c) in "WF" for c in texts["zh_CN"]), key
            assert texts["en"].isascii(), key


def test_the_language_of_the_environment():
    assert strings.language_from_environment({"LANG": "zh_CN.UTF-8"}) == "zh_CN"
    assert strings.language_from_environment({"LANG": "zh_TW.Big5"}) == "zh_CN"
    assert strings.language_from_environment({"LANG": "zh"}) == "zh_CN"
    assert strings.language_from_environment({"LANG": "zhx_YZ"}) == "en"
    assert strings.language_from_environment({"LANG": "C.UTF-8"}) == "en"
    assert strings.language_from_environment({"LC_ALL": "POSIX", "LANG": "zh_CN"}) == "en"
    assert strings.language_from_environment({}) == "en"


def test_a_lang_value_names_a_language_or_is_refused():
    assert strings.parse_lang("zh") == strings.parse_lang("zh-CN") == "zh_CN"
    with pytest.raises(ValueError, match=r"^--lang must be en or zh, not 'fr'$"):
        strings.parse_lang("fr")


def test_a_common_cause_says_the_releases_it_holds_for():
    assert strings.with_releases("A cause.", None, None, "en") == "A cause."
    assert strings.with_releases("A cause.", "2.1.0", None, "en") == (
        "A cause. (On torch 2.1.0 and later.)"
    )
    assert strings.with_releases("原因。", "1.13.1", "2.5.1", "zh_CN") == (
        "原因。 （适用于 torch 1.13.1 至 2.5.1。）"
    )
