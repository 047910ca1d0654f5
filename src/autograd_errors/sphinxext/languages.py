"""The two languages of the site (issue 16): English at the root, simplified Chinese under
``zh_CN/`` with the same paths, built by ``sphinx-build -D language=zh_CN``.

- The theme's own words in the build's language (:func:`theme_words`, and
  ``locales/zh_CN/LC_MESSAGES/sphinx.po`` for its translated strings).
- A link on every page to the same page in the other language (the ``language-switcher``
  template in the navbar), relative so that it works from ``file://`` and on any host.
- ``.. autograd-glossary::``: the terms of ``locales/zh_CN/glossary.toml``, as a table.
- :func:`translated_prose`: a text of the hand-written or gallery pages as the zh_CN catalogs
  (``locales/zh_CN/LC_MESSAGES``) translate it, for the directives that repeat one (the home
  page's section titles are the gallery sections' own).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util.docutils import SphinxDirective

from autograd_errors.rendering.strings import CHINESE, ENGLISH, ui
from autograd_errors.sphinxext.nodes import not_translatable, table

#: Where the site's catalogs and glossary live, beside the docs (conf.py's ``locale_dirs``).
LOCALES = Path(__file__).resolve().parents[3] / "locales"
#: The subdirectory of the site each translated language is built into.
SITE_DIRECTORY = {CHINESE: "zh_CN"}


def build_language(config: Any) -> str:
    """The catalog's language for this build: zh_CN for ``-D language=zh_CN``, else English."""
    language = getattr(config, "language", None) or "en"
    return CHINESE if language.startswith("zh") else ENGLISH


def add_templates(app: Sphinx, config: Config) -> None:
    config.templates_path.append(str(Path(__file__).parent / "templates"))


def theme_words(app: Sphinx, config: Config) -> None:
    """The theme's words that are settings (the navbar's "More", the search box's text, the
    copyright's holder), in the build's language. The theme's translated strings ("Collapse
    Sidebar", "Color mode"...) are in ``locales/zh_CN/LC_MESSAGES/sphinx.po``, which Sphinx
    reads before the theme's own catalog."""
    language = build_language(config)
    config.html_theme_options = {
        **config.html_theme_options,
        "header_dropdown_text": ui("theme.more", language),
        "search_bar_text": ui("theme.search_bar", language),
    }
    config.copyright = ui("theme.copyright", language)


def add_chinese_search_fix(app: Sphinx) -> None:
    """Sphinx 9.0.4's Chinese search needs a ``ChineseStemmer`` it does not define (see
    ``static/autograd-zh-search.js``); only the zh_CN build loads the definition."""
    if build_language(app.config) == CHINESE:
        app.add_js_file("autograd-zh-search.js")


def other_language_href(target_uri: str, language: str) -> str:
    """The relative link from the page at ``target_uri`` (``errors/x/y.html``) to the same
    page in the other language."""
    up = "../" * target_uri.count("/")
    if language == ENGLISH:
        return f"{up}{SITE_DIRECTORY[CHINESE]}/{target_uri}"
    return f"{up}../{target_uri}"


def language_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    language = build_language(app.config)
    other = CHINESE if language == ENGLISH else ENGLISH
    context["autograd_language_switch"] = {
        "href": other_language_href(app.builder.get_target_uri(pagename), language),
        "hreflang": "zh-CN" if other == CHINESE else "en",
        "label": ui("page.language", language),
        "title": ui("page.language_title", language),
    }


@cache
def _catalog(po_file: Path) -> dict[str, str]:
    from babel.messages.pofile import read_po

    if not po_file.is_file():
        return {}
    with po_file.open("rb") as handle:
        messages = read_po(handle)
    return {
        str(message.id): str(message.string)
        for message in messages
        if message.id and message.string and not message.fuzzy
    }


def translated_prose(text: str, document: str, language: str) -> str:
    """``text`` as the catalog of ``document`` (``errors/inplace/index``) translates it into
    ``language``; the English when it is not translated (yet)."""
    if language == ENGLISH:
        return text
    po_file = LOCALES / language / "LC_MESSAGES" / f"{document}.po"
    return _catalog(po_file).get(text, text)


def glossary_terms() -> list[dict[str, str]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    with (LOCALES / CHINESE / "glossary.toml").open("rb") as handle:
        terms: list[dict[str, str]] = tomllib.load(handle)["term"]
    return terms


class GlossaryDirective(SphinxDirective):
    """``.. autograd-glossary::``: the glossary's terms, English and Chinese, as a table."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(LOCALES / CHINESE / "glossary.toml"))
        language = build_language(self.config)
        rows: list[list[nodes.Node]] = [
            [
                nodes.Text(term["en"]),
                nodes.Text(term["zh"]),
                nodes.Text(term.get("notes", "")),
                nodes.Text(term.get("usage", "")),
            ]
            for term in glossary_terms()
        ]
        headers = [ui(f"page.glossary_{key}", language) for key in ("en", "zh", "notes", "usage")]
        glossary = table(headers, rows, [25, 20, 20, 35])
        glossary["classes"].append("autograd-glossary")
        return not_translatable([glossary])


def setup(app: Sphinx) -> None:
    app.connect("config-inited", add_templates)
    app.connect("config-inited", theme_words)
    app.connect("builder-inited", add_chinese_search_fix)
    app.connect("html-page-context", language_switch)
    app.add_directive("autograd-glossary", GlossaryDirective)
