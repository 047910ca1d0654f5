"""Where the gallery scripts are: one per entry, in ``gallery/<section>/<id>.py``.

In a checkout the gallery sits beside ``src/``; an installed package carries a copy inside
itself (``autograd_errors/gallery``), so that ``check`` runs from a wheel too.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog import Catalog, Entry

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: A line's tag is the comment at its end, after two spaces, ``#`` and a space: ``# broken``,
#: ``# fixed``, and for a common cause ``# cause: <id>`` on its trigger, ``# fix: <id>`` on
#: its fix.
TAG_MARK = "  # "
CAUSE_TAG, FIX_TAG = "cause", "fix"


class Script:
    """One gallery script: the entry it demonstrates and the section it sits in."""

    __slots__ = ("entry_id", "path", "section")

    def __init__(self, path: str) -> None:
        self.path = path
        self.entry_id = os.path.splitext(os.path.basename(path))[0]
        self.section = os.path.basename(os.path.dirname(path))

    def __repr__(self) -> str:
        return f"Script({self.section}/{self.entry_id})"


def line_tags(path: str) -> list[tuple[int, str, str]]:
    """The script's tagged lines: line number, tag, and the code before the tag. A line may
    carry several tags (``x += 1  # broken  # cause: manual-update``): one row each."""
    tagged = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            code, mark, comment = line.rstrip("\n").partition(TAG_MARK)
            if mark:
                tagged += [
                    (number, tag.strip(), code) for tag in comment.split(TAG_MARK) if tag.strip()
                ]
    return tagged


def gallery_dir() -> str:
    """The gallery that ships with the package, else the checkout's."""
    inside = os.path.join(_PACKAGE_DIR, "gallery")
    if os.path.isdir(inside):
        return inside
    beside = os.path.join(os.path.dirname(os.path.dirname(_PACKAGE_DIR)), "gallery")
    if os.path.isdir(beside):
        return beside
    raise FileNotFoundError(f"no gallery in {inside} or {beside}")


def scripts(directory: str | None = None) -> list[Script]:
    """Every script in the gallery's sections, sorted by section then id."""
    directory = directory or gallery_dir()
    found = []
    for section in sorted(os.listdir(directory)):
        section_dir = os.path.join(directory, section)
        if not os.path.isdir(section_dir) or section.startswith(("_", ".")):
            continue
        found += [
            Script(os.path.join(section_dir, name))
            for name in sorted(os.listdir(section_dir))
            if name.endswith(".py") and not name.startswith("_")
        ]
    return found


def correspondence_problems(catalog: Catalog, found: list[Script]) -> list[tuple[str, str]]:
    """Where catalog entries and gallery scripts fail to pair up one to one: pairs of the
    entry id and what is wrong with it."""
    problems: list[tuple[str, str]] = []
    by_id: dict[str, list[Script]] = {}
    for script in found:
        by_id.setdefault(script.entry_id, []).append(script)
    for entry_id, same in by_id.items():
        if len(same) > 1:
            places = ", ".join(f"{s.section}/{s.entry_id}.py" for s in same)
            problems.append((entry_id, f"{entry_id}: more than one gallery script ({places})"))
        if entry_id not in catalog:
            problems.append(
                (entry_id, f"{entry_id}: gallery script {same[0].path} has no catalog entry")
            )
    for entry in catalog:
        same = by_id.get(entry.id, [])
        if not same:
            problems.append(
                (entry.id, f"{entry.id}: no gallery script gallery/{entry.section}/{entry.id}.py")
            )
        elif same[0].section != entry.section:
            problems.append(
                (
                    entry.id,
                    f"{entry.id}: the catalog puts it in section {entry.section!r}, "
                    f"the gallery in {same[0].section!r}",
                )
            )
    return problems


def section_order(directory: str) -> list[str]:
    """Sections in the order the gallery shows them (``_order.txt``, one name a line)."""
    with open(os.path.join(directory, "_order.txt"), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def section_title(directory: str, section: str) -> str:
    """A section's title: the first line of its ``README.txt``."""
    with open(os.path.join(directory, section, "README.txt"), encoding="utf-8") as handle:
        return handle.readline().strip()


# A script on its own -------------------------------------------------------------------------
# On the site, two directives in a script's text blocks make its page from the catalog:
# ``.. autograd-entry:: <id>`` under the title, ``.. autograd-entry-footer:: <id>`` at the end.
# A downloaded script (or notebook, or ``show --repro``) has no Sphinx to run them: it gets
# their text written out instead, from the catalog, so that it reads on its own.

ENTRY_DIRECTIVE = ".. autograd-entry::"
FOOTER_DIRECTIVE = ".. autograd-entry-footer::"
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
    from autograd_errors.report import page_url

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
