"""The glossary (locales/zh_CN/glossary.toml): every Chinese text uses its terms, not the
variants the notes use.

Sound only for the variants that are a different word, not a phrase built on the chosen one:
``原址操作`` for ``原地操作`` or ``叶子节点`` for ``叶子张量`` (no English text of the reference
says "leaf node") can only be the wrong term; ``从计算图分离`` for ``分离（detach）`` is ordinary
Chinese around the chosen word, so it is not checked, and a variant equal to the chosen term
(``梯度累加``) is nothing to check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from helpers import DATA, REPO

from autograd_errors.rendering import strings
from autograd_errors.sphinxext.languages import glossary_terms

LOCALE = REPO / "locales" / "zh_CN"


def core(term: str) -> str:
    """A term without its parenthesised English: ``分离（detach）`` is ``分离``."""
    return re.sub(r"（[^）]*）", "", term).strip()


def avoided_variants() -> dict[str, str]:
    """Each variant of the notes that must not appear, with the term to use instead."""
    variants = {}
    for term in glossary_terms():
        chosen = [core(part) for part in re.split("[,，]", term["zh"])]
        for variant in re.split("[,，、]", term.get("notes", "")):
            variant = variant.strip()
            if variant and not any(word in variant for word in chosen):
                variants[variant] = term["zh"]
    return variants


def misused(texts: dict[str, str]) -> list[str]:
    return [
        f"{where}: {variant!r}, the glossary says {chosen!r}"
        for where, text in texts.items()
        for variant, chosen in avoided_variants().items()
        if variant in text
    ]


def test_the_variants_checked_are_the_other_words_of_the_notes():
    variants = avoided_variants()
    assert variants["原址操作"] == "原地操作"
    assert variants["in-place 操作"] == "原地操作"
    assert variants["叶子节点"] == "叶子张量"
    assert "从计算图分离" not in variants  # built on 分离: ordinary Chinese, not a variant
    assert "梯度累加" not in variants  # the notes' word is the chosen one


def test_the_check_finds_a_variant_in_a_translation():
    fixture = (DATA / "zh_CN" / "inplace-modified.toml").read_text(encoding="utf-8")
    assert misused({"fixture": fixture}) == []
    wrong = fixture.replace("原地操作", "原址操作", 1)
    assert misused({"fixture": wrong}) == ["fixture: '原址操作', the glossary says '原地操作'"]


def test_the_catalog_translations_use_the_glossary_terms(packaged_catalog):
    texts = {
        f"{entry.id}.toml {language} {key}": text
        for entry in packaged_catalog
        for language, translation in entry.translations.items()
        for key, text in translation.texts.items()
    }
    assert misused(texts) == []


def test_the_hints_of_the_non_autograd_errors_use_the_glossary_terms(packaged_catalog):
    texts = {
        f"not-autograd.toml {kind.name} {language}": hint
        for kind in packaged_catalog.not_autograd
        for language, hint in kind.hints.items()
        if language != "en"
    }
    assert len(texts) == len(packaged_catalog.not_autograd)
    assert misused(texts) == []


def test_the_ui_strings_use_the_glossary_terms():
    assert misused({key: texts["zh_CN"] for key, texts in strings.STRINGS.items()}) == []


@pytest.mark.parametrize(
    "po_file",
    sorted(LOCALE.glob("LC_MESSAGES/**/*.po")),
    ids=lambda path: str(Path(path).relative_to(LOCALE)),
)
def test_the_site_translations_use_the_glossary_terms(po_file):
    with po_file.open("rb") as handle:
        catalog = read_po(handle)
    texts = {f"{po_file.name} {m.id!r}"[:80]: str(m.string) for m in catalog if m.id and m.string}
    assert misused(texts) == []
