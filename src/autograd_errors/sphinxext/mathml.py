"""Math rendered to MathML while the site is built: browsers draw MathML themselves, so pages
with formulas need no script and load nothing from outside the site (MathJax, Sphinx's default,
comes from a CDN)."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.application import Sphinx

NAME = "mathml"


def visit_math(translator: Any, node: nodes.Element) -> None:
    translator.body.append(convert(node.astext()))
    raise nodes.SkipNode


def visit_displaymath(translator: Any, node: nodes.Element) -> None:
    formula = convert(node.astext(), display="block")
    translator.body.append(f'<div class="math notranslate">{formula}</div>')
    raise nodes.SkipNode


def setup(app: Sphinx) -> None:
    app.add_html_math_renderer(NAME, (visit_math, None), (visit_displaymath, None))
