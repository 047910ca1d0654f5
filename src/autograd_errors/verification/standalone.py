"""A gallery script on its own: what a downloaded script (or notebook, or ``show --repro``)
carries instead of the site's directives.

On the site, two directives in a script's text blocks make its page from the catalog:
``.. autograd-entry:: <id>`` under the title, ``.. autograd-entry-footer:: <id>`` at the end. A
downloaded script has no Sphinx to run them: it gets their text written out instead, from the
catalog, so that it reads on its own.
"""

from __future__ import annotations

from autograd_errors.rendering.urls import page_url
from autograd_errors.verification.gallery import ENTRY_DIRECTIVE, FOOTER_DIRECTIVE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog, Entry

_TEXT_WIDTH = 99


def _filled(text: str, indent: str = "", first: str = "") -> list[str]:
    """``text`` filled to the scripts' width, paragraph by paragraph, blank lines between."""
    import textwrap

    lines: list[str] = []
    for number, paragraph in enumerate(text.strip().split("\n\n")):
        if number:
            lines.append("")
        lines += textwrap.wrap(
            " ".join(paragraph.split()),
            _TEXT_WIDTH,
            initial_indent=first if number == 0 else indent,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


def message_lines(entry: Entry) -> list[str]:
    """What the entry's message looks like, as torch prints it (its current wording's real
    example), in reStructuredText; a pitfall says that it raises nothing."""
    if entry.is_pitfall:
        return ["A silent pitfall: nothing is raised, and the result is wrong or surprising."]
    wording = entry.current
    if entry.retired:
        lead = (
            f"The message, as torch printed it ({wording.releases.describe()}; last raised by "
            f"torch {entry.retired.last_release}, now {entry.retired.replaced_by})::"
        )
    else:
        lead = f"The message, as torch prints it ({wording.releases.describe()})::"
    example = wording.example or f"{wording.exception}: {wording.template.render({})}"
    return [*_filled(lead), "", *("    " + line for line in example.splitlines())]


def entry_header(entry: Entry, base_url: str) -> list[str]:
    """What ``.. autograd-entry::`` shows, as text: the message, why, the most common cause
    and its fix, the fix, and where the entry's page is."""
    lines = [*message_lines(entry), "", *_filled(entry.cause, first="**Why.** ")]
    if entry.causes:
        cause = entry.causes[0]
        lines += ["", *_filled(cause.text, first="**Most common cause.** ")]
        lines += ["", *_filled(cause.fix, first="**Its fix:** ")]
    lines += ["", *_filled(entry.fix, first="**Fix.** ")]
    if entry.docs:
        lines += ["", "In PyTorch's documentation:", "", *(f"- {link}" for link in entry.docs)]
    lines += ["", f"``{entry.id}`` in autograd-errors: {page_url(base_url, entry)}"]
    return lines


def entry_footer(entry: Entry, catalog: Catalog) -> list[str]:
    """What ``.. autograd-entry-footer::`` shows, as text: the message's wordings across torch
    releases, and the related entries."""
    lines: list[str] = []
    if entry.wordings:
        lines += _filled(
            "Every wording of this message autograd-errors recognises, and the torch releases "
            "that print it (``{name}`` marks a value torch fills in):"
        )
        lines.append("")
        for wording in entry.wordings:
            shown = f"{wording.exception}: {wording.template.render({})}"
            lines += _filled(
                f"``{wording.variant}``, {wording.releases.describe()}: ``{shown}``",
                indent="  ",
                first="- ",
            )
    if entry.related:
        if lines:
            lines.append("")
        lines.append("Related entries:")
        lines.append("")
        for other in entry.related:
            title = catalog[other].title if other in catalog else other
            lines += _filled(f"``{other}``: {title}", indent="  ", first="- ")
    return lines


def standalone(script: str, catalog: Catalog, base_url: str) -> str:
    """``script`` as a download gives it: its directives written out from the catalog (see
    :func:`entry_header`, :func:`entry_footer`), and its title, the entry's id on the site,
    in words. Text without directives comes back unchanged."""
    out: list[str] = []
    raw = False  # whether the docstring becomes a raw string
    for line in script.split("\n"):
        comment = "# " if line.startswith("# ") else ""
        name, _, entry_id = line[len(comment) :].strip().partition(":: ")
        if f"{name}::" not in (ENTRY_DIRECTIVE, FOOTER_DIRECTIVE) or entry_id not in catalog:
            out.append(line)
            continue
        entry = catalog[entry_id]
        if f"{name}::" == FOOTER_DIRECTIVE:  # in a comment block: any text goes
            out += [(comment + text).rstrip() for text in entry_footer(entry, catalog)]
            continue
        _retitle(out, entry)
        header = entry_header(entry, base_url)
        if any("\\" in text for text in header):  # a message with a backslash, in the docstring
            docstring = script[: script.find('"""', 3)]
            raw = script.startswith('"""') and "\\" not in docstring
            if not raw:
                header = [text.replace("\\", "\\\\") for text in header]
        out += [comment + text.replace('"""', '""\\"') for text in header]
    return ("r" if raw else "") + "\n".join(out)


def _retitle(out: list[str], entry: Entry) -> None:
    """The docstring's title, the entry's id, becomes its title in words."""
    for at in range(len(out) - 1):
        if out[at].strip() == entry.id and set(out[at + 1].strip()) == {"="}:
            out[at : at + 2] = [entry.title, "=" * len(entry.title)]
            return
