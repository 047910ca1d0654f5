"""The lint rules on the site (issue 26): a page per rule, the table of rules, and the "Caught
before it runs" part of the entry pages a rule prevents.

``.. autograd-lint-rule:: AE101``
    A rule's page (its heading is in ``docs/lint/ae101.md``): the message ``lint`` prints, the
    entry it prevents, why, code it flags beside the same code written correctly, when it stays
    silent, how to silence it on a line.
``.. autograd-lint-rules::``
    Every rule: code, title, the entry it prevents.

:func:`caught_lines` is the entry pages' part, called by ``directives.EntryDirective``.
Everything is written in the build's language from the rules' data (``lint/rules.toml``) and the
UI strings, so none of it reaches the gettext catalogs.
"""

from __future__ import annotations

import os

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from autograd_errors.lint import registry
from autograd_errors.lint.checker import check_source
from autograd_errors.lint.registry import OPINIONATED, Rule
from autograd_errors.rendering.strings import ui
from autograd_errors.sphinxext.languages import build_language
from autograd_errors.sphinxext.nodes import indent, not_translatable, rst_code
from autograd_errors.sphinxext.verification import site_catalog

#: What the table shows for a rule that prevents no entry (AE000): an en dash.
NO_ENTRY = "\u2013"


def _entry_link(rule: Rule, language: str) -> str:
    """A reference to the rule's entry page, by the entry's title."""
    catalog = site_catalog()
    if rule.entry is None or rule.entry not in catalog:
        return ""
    entry = catalog[rule.entry]
    title = entry.localized(language, fallback=True).title
    return f":doc:`{_escape(title)} </{entry.path.removesuffix('.html')}>`"


def _escape(title: str) -> str:
    """A title inside a :doc: reference: no ``<`` or backtick may end it early."""
    return title.replace("`", "").replace("<", "\\<")


def _stop(language: str) -> str:
    return "。" if language == "zh_CN" else "."


def caught_lines(entry_id: str, language: str = "en") -> list[str]:
    """reStructuredText for an entry page: the rules that catch its code before it runs, each
    with a link to its page. Nothing for an entry no rule prevents."""
    caught = [rule for rule in registry.active() if rule.entry == entry_id]
    if not caught:
        return []
    lines = [
        f".. rubric:: {ui('lint.caught', language)}",
        "",
        rst_code(ui("lint.caught_intro", language)),
        "",
    ]
    for rule in caught:
        text = rule.text(language)
        off = f" {ui('lint.off_short', language)}" if not rule.default else ""
        lines += [
            f"- :doc:`{rule.code} </{rule.page}>`: {rst_code(text.title)}{off}",
            "",
        ]
    return lines


class _LintDirective(SphinxDirective):
    @property
    def language(self) -> str:
        return build_language(self.config)

    def parse(self, lines: list[str], source: str) -> list[nodes.Node]:
        container = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, source=source), container)
        children: list[nodes.Node] = container.children
        return not_translatable(children)

    def note_data(self) -> None:
        self.env.note_dependency(registry.DATA)
        self.env.note_dependency(os.path.join(os.path.dirname(registry.DATA), "registry.py"))


class LintRuleDirective(_LintDirective):
    """One rule's page."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        code = self.arguments[0]
        rules = registry.rules()
        if code not in rules:
            raise self.error(f"no lint rule {code!r}")
        self.note_data()
        rule = rules[code]
        language = self.language
        text = rule.text(language)
        stop = _stop(language)
        lines: list[str] = []
        if not rule.default:
            body = ui("lint.off_body", language, prefix=OPINIONATED, code=code)
            lines += [
                f".. admonition:: {ui('lint.off_title', language)}",
                "   :class: autograd-lint-off",
                "",
                f"   {rst_code(body)}",
                "",
            ]
        # What the command prints for this page's own example: a real run of the rule.
        source = rule.flagged.strip("\n") or "def broken(:\n"
        select = [OPINIONATED] if not rule.default else None
        found = check_source(source.encode(), "example.py", select=select, language=language)
        printed = [finding.text() for finding in found if finding.code == code]
        if not printed:
            raise self.error(f"{code}: its flagged example is not flagged")
        lines += [
            ".. code-block:: text",
            f"   :caption: {ui('lint.prints', language)}",
            "   :class: autograd-message",
            "",
            f"   {printed[0]}",
            "",
        ]
        link = _entry_link(rule, language)
        if link:
            lines += [f"**{ui('lint.prevents', language)}** {link}", ""]
        # Plain paragraphs: rst-class would leave a pending node in a MyST page's eval-rst.
        lines += [f"**{ui('page.why', language)}{stop}** {rst_code(text.why)}", ""]
        if rule.flagged and rule.fine:
            lines += [".. grid:: 1 1 2 2", "   :gutter: 2", ""]
            for label, code_text, kind in (
                ("lint.flagged", rule.flagged, "broken"),
                ("lint.not_flagged", rule.fine, "fixed"),
            ):
                lines += [
                    f"   .. grid-item-card:: {ui(label, language)}",
                    f"      :class-card: autograd-{kind}",
                    "",
                    "      .. code-block:: python",
                    "",
                    *indent(code_text.strip("\n"), 9),
                    "",
                ]
        lines += [f".. rubric:: {ui('lint.silent', language)}", ""]
        lines += [item for sentence in text.silent for item in (f"- {rst_code(sentence)}", "")]
        if code != registry.PARSE_ERROR:
            lines += [rst_code(ui("lint.noqa", language, code=code)), ""]
        return self.parse(lines, f"autograd-lint-rule {code}")


class LintRulesDirective(_LintDirective):
    """The table of every rule."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.note_data()
        language = self.language
        lines = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 10 55 35",
            "   :class: autograd-lint-rules",
            "",
            f"   * - {ui('lint.code', language)}",
            f"     - {ui('lint.rule', language)}",
            f"     - {ui('lint.prevents', language)}",
        ]
        for rule in registry.rules().values():
            if rule.retired:
                continue
            off = f" {ui('lint.off_short', language)}" if not rule.default else ""
            lines += [
                f"   * - :doc:`{rule.code} </{rule.page}>`",
                f"     - {rst_code(rule.text(language).title)}{off}",
                f"     - {_entry_link(rule, language) or NO_ENTRY}",
            ]
        lines.append("")
        return self.parse(lines, "autograd-lint-rules")


def setup(app: Sphinx) -> None:
    app.add_directive("autograd-lint-rule", LintRuleDirective)
    app.add_directive("autograd-lint-rules", LintRulesDirective)
