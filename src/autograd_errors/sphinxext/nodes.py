"""The reStructuredText and docutils nodes the directives build: catalog prose as markup, a
script's tagged lines, and tables."""

from __future__ import annotations

import difflib
import textwrap

from docutils import nodes

from autograd_errors.rendering.strings import ui
from autograd_errors.verification.gallery import line_tags


def not_translatable(made: list[nodes.Node]) -> list[nodes.Node]:
    """Mark every text of ``made`` as not for gettext: Sphinx extracts (and, in a translated
    build, replaces) a text element's text unless its ``translatable`` is false. What the
    directives make is written in the build's language already, from the catalog's own
    translations and the UI strings, so it must not reach the .po files."""
    for node in made:
        if not isinstance(node, nodes.Element):
            continue
        for element in node.findall(nodes.TextElement):
            # Inline elements are never extracted; and Sphinx unwraps an inline that has a
            # "translatable" attribute (RemoveTranslatableInline), losing its classes.
            if not isinstance(element, nodes.Inline):
                element["translatable"] = False
    return made


def rst_code(text: str) -> str:
    """The catalog's prose as reStructuredText: its Markdown `code` becomes ``code``, and what
    reStructuredText would read as markup elsewhere (``*``, ``|``, a word ending in ``_``) is
    escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: all of it is text
        return _escape_markup(text).replace("`", "\\`")
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(_escape_markup(part))
            continue
        # A literal glued to a word (`.detach()`ed, Chinese text, `x`（…）) needs
        # reStructuredText's escaped space: docutils ends and starts inline markup only next to
        # whitespace or certain punctuation.
        before = "" if _may_precede_markup(parts[i - 1][-1:]) else "\\ "
        after = "" if _may_follow_markup(parts[i + 1][:1]) else "\\ "
        out.append(f"{before}``{part}``{after}")
    return "".join(out)


def _may_precede_markup(char: str) -> bool:
    from docutils.utils import punctuation_chars

    return not char or char.isspace() or char in punctuation_chars.openers + "'\"-/:<([{"


def _may_follow_markup(char: str) -> bool:
    from docutils.utils import punctuation_chars

    allowed = punctuation_chars.closing_delimiters + punctuation_chars.closers
    return not char or char.isspace() or char in allowed + punctuation_chars.delimiters


def _escape_markup(text: str) -> str:
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")
    return "".join(
        "\\_" if char == "_" and (i + 1 == len(text) or not text[i + 1].isalnum()) else char
        for i, char in enumerate(text)
    )


def indent(text: str, spaces: int) -> list[str]:
    return [(" " * spaces + line) if line else "" for line in text.splitlines()]


def tagged_lines(path: str, tag: str) -> str:
    """The script's lines that end with ``# <tag>``, tag removed, dedented."""
    return textwrap.dedent("\n".join(code for _, found, code in line_tags(path) if found == tag))


def text_node(text: str, *classes: str) -> nodes.Node:
    return nodes.inline(text=text, classes=list(classes))


def changes(previous: str | None, current: str, language: str = "en") -> list[nodes.Node]:
    """The message with the words new since ``previous`` marked, and a summary of the change."""
    message = nodes.literal(classes=["autograd-observed"])
    if previous is None:
        message += nodes.Text(current)
        return [message, text_node(ui("page.first_recording", language), "autograd-quiet")]
    if previous == current:
        message += nodes.Text(current)
        return [message, text_node(ui("page.unchanged", language), "autograd-quiet")]
    old, new = previous.split(), current.split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        words = " ".join(new[j1:j2])
        if op == "equal":
            message += nodes.Text(words + " ")
            continue
        if j2 > j1:
            message += nodes.inline(text=words, classes=["autograd-changed"])
            message += nodes.Text(" ")
            added.append(words)
        if i2 > i1:
            removed.append(" ".join(old[i1:i2]))
    summary = nodes.inline()
    if removed:
        summary += nodes.Text(ui("page.was", language) + " ")
        summary += nodes.literal(text=" … ".join(removed))
    if added:
        summary += nodes.Text(" " + ui("page.now" if removed else "page.added", language) + " ")
        summary += nodes.literal(text=" … ".join(added))
    return [message, summary]


def table(headers: list[str], rows: list[list[nodes.Node]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["autograd-observed-table"])
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row([nodes.Text(header) for header in headers])
    body = nodes.tbody()
    group += body
    for cells in rows:
        body += _row(cells)
    return table


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += cell
        entry += paragraph
        row += entry
    return row
