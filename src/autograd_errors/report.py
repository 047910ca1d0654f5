"""What the CLI prints: plain text for people, JSON objects for programs."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    import autograd_errors.not_autograd as not_autograd
    from autograd_errors.catalog import Entry
    from autograd_errors.frames import Frame
    from autograd_errors.matching import Explanation, Match, NearMiss

#: Where the reference site is published; ``--base-url`` or AUTOGRAD_ERRORS_BASE_URL override it.
DEFAULT_BASE_URL = "https://autograd-errors.readthedocs.io/en/latest/"


def base_url(given: str | None = None) -> str:
    """The site links point to: ``given`` (``--base-url``), else $AUTOGRAD_ERRORS_BASE_URL,
    else the published site."""
    return given or os.environ.get("AUTOGRAD_ERRORS_BASE_URL") or DEFAULT_BASE_URL


def page_url(base_url: str, entry: Entry) -> str:
    return base_url.rstrip("/") + "/" + entry.path


class Style:
    """ANSI styling, or none at all."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: IO[str] | None) -> Style:
        """Colour only on a terminal, and never with NO_COLOR set or TERM=dumb."""
        try:
            terminal = stream is not None and stream.isatty()
        except (AttributeError, ValueError):
            terminal = False
        return cls(terminal and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb")

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)


def text_width(stream: IO[str] | None) -> int:
    """The columns text is filled to: $COLUMNS when set, else the terminal's width, else 80."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit():
        width = int(columns)
    else:
        try:
            width = os.get_terminal_size(stream.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            width = 80
    return max(40, width) - 2


# JSON ---------------------------------------------------------------------------------------


def match_json(match: Match, base_url: str, frame: Frame | None = None) -> dict[str, Any]:
    """A match, with what the text shows: what happened in this paste, why, the fix, the
    common causes, the user's own line."""
    return {
        "id": match.entry.id,
        "title": match.entry.title,
        "exception": match.wording.exception,
        "match": match.kind,
        "score": match.score,
        "variant": match.wording.variant,
        "fields": match.fields,
        "path": match.entry.path,
        "url": page_url(base_url, match.entry),
        "in_your_paste": match.details(),
        "user_frame": frame.as_json() if frame is not None else None,
        "why": match.entry.cause,
        "fix": match.entry.fix,
        "causes": [{"id": c.id, "text": c.text, "fix": c.fix} for c in match.entry.causes],
        "docs": list(match.entry.docs),
    }


def near_json(miss: NearMiss) -> dict[str, Any]:
    return {"id": miss.entry.id, "title": miss.entry.title, "score": miss.similarity}


def not_autograd_json(kind: not_autograd.Kind | None) -> dict[str, str] | None:
    return None if kind is None else {"kind": kind.name, "hint": kind.hint, "url": kind.url}


def entry_json(entry: Entry, base_url: str) -> dict[str, Any]:
    """An entry as ``list --json`` gives it: a match's keys without the score."""
    return {
        "id": entry.id,
        "title": entry.title,
        "exception": entry.exception or None,  # a pitfall raises nothing
        "variant": None if entry.is_pitfall else entry.current.variant,
        "fields": {},
        "path": entry.path,
        "url": page_url(base_url, entry),
    }


def entry_detail_json(entry: Entry, base_url: str) -> dict[str, Any]:
    """An entry as ``show --json`` gives it: everything the catalog knows."""
    detail = entry_json(entry, base_url)
    detail.update(
        kind=entry.kind,
        section=entry.section,
        message=None if entry.is_pitfall else entry.current.template.render({}),
        cause=entry.cause,
        fix=entry.fix,
        related=list(entry.related),
        docs=list(entry.docs),
        causes=[
            {"id": c.id, "text": c.text, "fix": c.fix, "sources": list(c.sources)}
            for c in entry.causes
        ],
        retired=(
            {"last_release": entry.retired.last_release, "replaced_by": entry.retired.replaced_by}
            if entry.retired
            else None
        ),
        wordings=[
            {
                "variant": w.variant,
                "exception": w.exception,
                "message": w.message,
                "since": w.releases.since,
                "until": w.releases.until,
                "releases": w.releases.describe(),
                "source": w.source,
                "note": w.note,
            }
            for w in entry.wordings
        ],
    )
    return detail


# Text ---------------------------------------------------------------------------------------


def _paragraphs(text: str, width: int, indent: str) -> list[str]:
    """``text`` filled to ``width`` columns, paragraph by paragraph (textwrap costs an import)."""
    lines: list[str] = []
    for paragraph in text.split("\n\n"):
        line = indent
        for word in paragraph.split():
            if line != indent and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = indent
            line = f"{line} {word}" if line != indent else indent + word
        if line != indent:
            lines.append(line)
    return lines


def explanation_text(
    explanation: Explanation,
    base_url: str,
    style: Style,
    width: int,
    frame: Frame | None = None,
) -> str:
    """Everything about each entry found in the paste (``explain --verbose``)."""
    matches = explanation.matches
    out: list[str] = []
    elsewhere = explanation.not_autograd
    if elsewhere is not None:
        heading = style.red("Not an autograd error")
        return f"{heading} ({elsewhere.name}): {elsewhere.hint} See {elsewhere.url}"
    if not matches:
        out.append(style.red("No entry matches this text."))
        if explanation.near_misses:
            out.append("")
            out.append("Not matches, but the closest entries (their wording differs):")
            for miss in explanation.near_misses:
                out.append(
                    f"  {style.bold(miss.entry.id)}  {miss.entry.current.template.render({})}"
                )
                out.append(
                    style.dim(f"  {'':{len(miss.entry.id)}}  {page_url(base_url, miss.entry)}")
                )
        out.append("")
        out.append("`autograd-errors list` shows every entry.")
        return "\n".join(out)
    if explanation.shared:
        out.append(f"{len(matches)} entries share this part of a message; none stands out.")
        out.append("")
    elif len(matches) > 1:
        out.append(f"{len(matches)} entries in this paste, the final exception first.")
        out.append("")
    for number, match in enumerate(matches, 1):
        if number > 1:
            out.append("")
        label = f"[{number}] " if len(matches) > 1 else ""
        out += _match_lines(match, label, base_url, style, width, frame if number == 1 else None)
    return "\n".join(out)


def _frame_lines(frame: Frame | None, style: Style, width: int) -> list[str]:
    """Where the paste points in the user's own code."""
    if frame is None:
        return []
    out = _paragraphs(f"{style.bold('Your line:')} {frame.file}:{frame.line}", width, "  ")
    return out + ([f"    {frame.code}"] if frame.code else [])


def _heading(entry: Entry, label: str, style: Style, width: int) -> list[str]:
    """The entry's title and id, on one line when they fit."""
    if len(label) + len(entry.title) + len(entry.id) + 4 <= width:
        return [f"{label}{style.bold(entry.title)}  {style.dim('(' + entry.id + ')')}"]
    lines = [style.bold(line) for line in _paragraphs(label + entry.title, width, "")]
    return [*lines, style.dim(f"  ({entry.id})")]


def short_text(
    explanation: Explanation,
    base_url: str,
    style: Style,
    width: int,
    frame: Frame | None = None,
    more: str = "",
) -> str:
    """The answer first, in a few lines: the user's own line, what happened in this paste, the
    most common cause and its fix, the link (and ``more``, what gives the rest). Other entries
    found in the paste get a line each. Empty for no match."""
    if not explanation.matches:
        return ""
    if explanation.shared:  # a fragment several entries hold: no winner to put first
        out = [f"{len(explanation.matches)} entries share this part of a message; none stands out."]
        for match in explanation.matches:
            out.append(
                f"  {style.bold(match.entry.title)}  {style.dim('(' + match.entry.id + ')')}"
            )
            out.append(f"    {page_url(base_url, match.entry)}")
        return "\n".join(out)
    first, *others = explanation.matches
    entry = first.entry
    out = _heading(entry, "", style, width)
    if first.kind != "exact":
        out.append(style.dim(f"  Matched part of the wording ({round(first.score * 100)}% of it)."))
    out += _frame_lines(frame, style, width)
    details = first.details()
    # What happened (the first sentence), then the most specific advice: a hint for the values
    # in this paste comes last in the details, after the entry's other sentences.
    for line in details[:1] + details[1:][-1:]:
        out += _paragraphs(line, width, "  ")
    if entry.causes:
        out += _paragraphs(f"{style.bold('Most likely:')} {entry.causes[0].text}", width, "  ")
        out += _paragraphs(f"{style.bold('Fix:')} {entry.causes[0].fix}", width, "  ")
    else:
        out += _paragraphs(f"{style.bold('Fix:')} {entry.fix}", width, "  ")
    out.append(f"  {style.bold('More:')} {page_url(base_url, entry)}")  # a URL is not wrapped
    if more:
        out.append(style.dim(f"  {more}"))
    for other in others:
        out.append(
            f"  Also in this paste: {other.entry.title}  {style.dim('(' + other.entry.id + ')')}"
        )
    return "\n".join(out)


def default_text(
    explanation: Explanation, base_url: str, style: Style, width: int, more: str = ""
) -> str:
    """What ``explain`` prints without ``--verbose``: the short answer (pointing at the user's
    own line in the paste), or, with no match, what the paste is instead."""
    if not explanation.matches:
        return explanation_text(explanation, base_url, style, width)
    from autograd_errors.frames import user_frame

    frame = user_frame(explanation.text)
    return short_text(explanation, base_url, style, width, frame, more)


def short_html(explanation: Explanation, base_url: str) -> str:
    """:func:`short_text` as an HTML fragment for a notebook, with the whole explanation one
    click away; with no match, what the paste is instead."""
    from html import escape

    if not explanation.matches:
        plain_text = explanation_text(explanation, base_url, Style(False), 88)
        return f'<div class="autograd-errors"><pre>{escape(plain_text)}</pre></div>'
    plain = short_text(explanation, base_url, Style(False), 10_000).splitlines()
    entry = explanation.matches[0].entry
    url = escape(page_url(base_url, entry), quote=True)
    body = "".join(f"<div>{escape(line.strip())}</div>" for line in plain[1:] if line.strip())
    more = escape(explanation_text(explanation, base_url, Style(False), 88))
    return (
        '<div class="autograd-errors">'
        f'<strong><a href="{url}" target="_blank" rel="noopener">{escape(entry.title)}</a></strong>'
        f" <code>{escape(entry.id)}</code>{body}"
        f"<details><summary>More</summary><pre>{more}</pre></details></div>"
    )


def _match_lines(
    match: Match, label: str, base_url: str, style: Style, width: int, frame: Frame | None
) -> list[str]:
    entry, wording = match.entry, match.wording
    out = _heading(entry, label, style, width) + _frame_lines(frame, style, width)
    out += _paragraphs(f"{wording.exception}: {match.message}", width, "  ")
    coverage = (
        ""
        if match.kind == "exact"
        else f" Matched part of the wording ({round(match.score * 100)}% of it)."
    )
    out.append(
        style.dim(
            f"  Wording '{wording.variant}', printed by {wording.releases.describe()}.{coverage}"
        )
    )
    if entry.retired:
        out.append(
            style.dim(
                f"  Retired: last raised by torch {entry.retired.last_release}; "
                f"now {entry.retired.replaced_by}"
            )
        )
    if match.fields:
        shown = "  ".join(f"{name}={value}" for name, value in match.fields.items())
        out.append(style.dim(f"  Fields: {shown}"))
    details = match.details()
    if details:
        out.append("")
        out.append(style.bold("  In your paste"))
        for line in details:
            out += _paragraphs(line, width, "    ")
    out += _causes_lines(entry, style, width)
    out.append("")
    out.append(style.bold("  Why"))
    out += _paragraphs(entry.cause, width, "    ")
    out.append(style.bold("  Fix"))
    out += _paragraphs(entry.fix, width, "    ")
    out += _docs_lines(entry, style)
    out.append("")
    out.append(f"  {style.bold('More:')} {page_url(base_url, entry)}")
    return out


def _docs_lines(entry: Entry, style: Style) -> list[str]:
    """The PyTorch documentation that explains the entry's mechanism (a URL is not wrapped)."""
    if not entry.docs:
        return []
    return [style.bold("  PyTorch documentation"), *(f"    {link}" for link in entry.docs)]


def _causes_lines(entry: Entry, style: Style, width: int) -> list[str]:
    """The entry's common causes, most common first, each with its fix."""
    if not entry.causes:
        return []
    out = ["", style.bold("  Common causes, most common first")]
    for number, cause in enumerate(entry.causes, 1):
        out += _paragraphs(f"{number}. {cause.text}", width, "    ")
        out += _paragraphs(f"Fix: {cause.fix}", width, "       ")
    return out


def entry_text(entry: Entry, base_url: str, style: Style, width: int) -> str:
    out = _heading(entry, "", style, width)
    if entry.is_pitfall:
        out.append("  A silent pitfall: nothing is raised.")
    else:
        out += _paragraphs(f"{entry.exception}: {entry.current.template.render({})}", width, "  ")
    if entry.retired:
        out.append(
            f"  Retired: last raised by torch {entry.retired.last_release}; "
            f"now {entry.retired.replaced_by}"
        )
    if entry.wordings:
        out.append("")
        out.append(style.bold("  Wordings"))
    for wording in entry.wordings:
        out.append(f"    {wording.variant}: {wording.releases.describe()}")
        out += _paragraphs(f"{wording.exception}: {wording.template.render({})}", width, "      ")
    out += _causes_lines(entry, style, width)
    out.append("")
    out.append(style.bold("  Why"))
    out += _paragraphs(entry.cause, width, "    ")
    out.append(style.bold("  Fix"))
    out += _paragraphs(entry.fix, width, "    ")
    out += _docs_lines(entry, style)
    if entry.related:
        out.append(style.bold("  Related"))
        out.append("    " + ", ".join(entry.related))
    out.append("")
    out.append(f"  {style.bold('More:')} {page_url(base_url, entry)}")
    return "\n".join(out)


def list_text(entries: list[Entry], style: Style) -> str:
    id_width = max((len(e.id) for e in entries), default=0)
    kinds = {e.id: e.exception or "(pitfall)" for e in entries}
    type_width = max(map(len, kinds.values()), default=0)
    return "\n".join(
        f"{style.bold(e.id.ljust(id_width))}  {kinds[e.id].ljust(type_width)}  {e.title}"
        + ("  [retired]" if e.retired else "")
        for e in entries
    )
