"""What the CLI prints: plain text for people, JSON objects for programs."""

from __future__ import annotations

import os

from autograd_errors.ui import ENGLISH
from autograd_errors.ui import text as ui

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    import autograd_errors.not_autograd as not_autograd
    from autograd_errors.catalog import Cause, Entry, Retirement, Wording
    from autograd_errors.frames import Frame
    from autograd_errors.matching import Explanation, Match, NearMiss

#: Where the reference site is published; ``--base-url`` or AUTOGRAD_ERRORS_BASE_URL override it.
DEFAULT_BASE_URL = "https://autograd-errors.readthedocs.io/en/latest/"


def base_url(given: str | None = None) -> str:
    """The site links point to: ``given`` (``--base-url``), else $AUTOGRAD_ERRORS_BASE_URL,
    else the published site."""
    return given or os.environ.get("AUTOGRAD_ERRORS_BASE_URL") or DEFAULT_BASE_URL


def page_url(base_url: str, entry: Entry, language: str = ENGLISH) -> str:
    """The entry's page on the site: the English one, or ``<base>/<language>/<path>``."""
    prefix = "" if language == ENGLISH else f"{language}/"
    return base_url.rstrip("/") + "/" + prefix + entry.path


#: The titles of the PyTorch documentation pages entries link to, by path under docs/stable/.
_DOCS_PAGES = {
    "notes/autograd": "Autograd mechanics",
    "notes/extending": "Extending PyTorch",
    "notes/extending.func": "Extending torch.func with autograd.Function",
    "notes/amp_examples": "Automatic mixed precision examples",
    "notes/ddp": "Distributed data parallel",
    "notes/modules": "Modules",
    "amp": "Automatic mixed precision",
    "autograd": "torch.autograd",
    "fsdp": "FullyShardedDataParallel",
    "tensor_view": "Tensor views",
    "func.ux_limitations": "torch.func: limitations",
    "checkpoint": "torch.utils.checkpoint",
}


def docs_label(url: str) -> str:
    """A short name for a link to PyTorch's documentation: the API it documents, or its page's
    title and section."""
    page, _, anchor = url.partition("#")
    path = page.split("/docs/stable/", 1)[-1].removesuffix(".html")
    stem = path.rsplit("/", 1)[-1]
    for name in (anchor, stem):
        if name.startswith("torch."):
            return name
    title = _DOCS_PAGES.get(path) or stem.replace("_", " ").capitalize()
    if not anchor:
        return title
    words = anchor.replace("-", " ")
    return f"{title}: {words[:1].upper()}{words[1:]}"


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


def match_json(
    match: Match, base_url: str, frame: Frame | None = None, language: str = ENGLISH
) -> dict[str, Any]:
    """A match, with what the text shows: what happened in this paste, why, the fix, the
    common causes, the user's own line. Keys and ids in English, texts in ``language``."""
    text = match.entry.text(language, fallback=True)
    return {
        "id": match.entry.id,
        "title": text.title,
        "exception": match.wording.exception,
        "match": match.kind,
        "score": match.score,
        "variant": match.wording.variant,
        "fields": match.fields,
        "path": match.entry.path,
        "url": page_url(base_url, match.entry, language),
        "in_your_paste": match.details(language),
        "user_frame": frame.as_json() if frame is not None else None,
        "why": text.cause,
        "fix": text.fix,
        "causes": [_cause_json(c) for c in text.causes],
        "docs": list(match.entry.docs),
    }


def _cause_json(cause: Cause) -> dict[str, Any]:
    return {
        "id": cause.id,
        "text": cause.text,
        "fix": cause.fix,
        "since": cause.releases.since,
        "until": cause.releases.until,
    }


def near_json(miss: NearMiss, language: str = ENGLISH) -> dict[str, Any]:
    title = miss.entry.text(language, fallback=True).title
    return {"id": miss.entry.id, "title": title, "score": miss.similarity}


def not_autograd_json(kind: not_autograd.Kind | None) -> dict[str, str] | None:
    return None if kind is None else {"kind": kind.name, "hint": kind.hint, "url": kind.url}


def entry_json(entry: Entry, base_url: str, language: str = ENGLISH) -> dict[str, Any]:
    """An entry as ``list --json`` gives it: a match's keys without the score."""
    return {
        "id": entry.id,
        "title": entry.text(language, fallback=True).title,
        "exception": entry.exception or None,  # a pitfall raises nothing
        "variant": None if entry.is_pitfall else entry.current.variant,
        "fields": {},
        "path": entry.path,
        "url": page_url(base_url, entry, language),
    }


def entry_detail_json(entry: Entry, base_url: str, language: str = ENGLISH) -> dict[str, Any]:
    """An entry as ``show --json`` gives it: everything the catalog knows."""
    text = entry.text(language, fallback=True)
    detail = entry_json(entry, base_url, language)
    detail.update(
        kind=entry.kind,
        section=entry.section,
        message=None if entry.is_pitfall else entry.current.template.render({}),
        cause=text.cause,
        fix=text.fix,
        related=list(entry.related),
        docs=list(entry.docs),
        causes=[{**_cause_json(c), "sources": list(c.sources)} for c in text.causes],
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
                "releases": _releases(w, language),
                "source": w.source,
                "note": text.note(w.variant),
            }
            for w in entry.wordings
        ],
    )
    return detail


# Text ---------------------------------------------------------------------------------------


def _releases(wording: Wording, language: str) -> str:
    from autograd_errors.ui import releases_text

    return releases_text(wording.releases.since, wording.releases.until, language)


#: Punctuation a line must not start with (it stays with the character before), and punctuation
#: a line must not end with (it goes with the character after): Chinese typesetting's rules.
_NO_LINE_START = frozenset("，。、；：？！）》」』】”’%,.;:?!)]}")
_NO_LINE_END = frozenset("（《「『【“‘([{")


def _after(label: str) -> str:
    """What separates a label from its text: a space, except after Chinese punctuation
    (``修复：改成…``), which has its own space built in."""
    return "" if label.endswith(("：", "。", "，")) else " "


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: two for a wide (CJK) character, as wcwidth
    counts, one for the rest (ANSI escapes included, as before: they are short and rare)."""
    if text.isascii():
        return len(text)
    from unicodedata import east_asian_width  # only for text that needs it

    return sum(2 if east_asian_width(char) in "WF" else 1 for char in text)


def _pieces(word: str) -> list[str]:
    """A space-free run of text cut where a line may break: between wide characters, and
    between a wide character and a Latin run, keeping punctuation with its neighbour."""
    if word.isascii():
        return [word]
    pieces: list[str] = []

    def push(piece: str) -> None:
        if pieces and (piece[0] in _NO_LINE_START or pieces[-1][-1] in _NO_LINE_END):
            pieces[-1] += piece
        else:
            pieces.append(piece)

    latin = ""
    for char in word:
        if columns(char) == 1:
            latin += char
            continue
        if latin:
            push(latin)
            latin = ""
        push(char)
    if latin:
        push(latin)
    return pieces


def _paragraphs(text: str, width: int, indent: str, hanging: str | None = None) -> list[str]:
    """``text`` filled to ``width`` columns, paragraph by paragraph (textwrap costs an import,
    and counts a Chinese character as one column). Chinese text breaks between characters.
    ``hanging``: the indent of a paragraph's later lines (under a list item's text)."""
    lines: list[str] = []
    later = indent if hanging is None else hanging
    for paragraph in text.split("\n\n"):
        line, used = indent, columns(indent)
        for word in paragraph.split():
            for n, piece in enumerate(_pieces(word)):
                gap = " " if n == 0 and line not in (indent, later) else ""
                size = columns(piece)
                if line not in (indent, later) and used + len(gap) + size > width:
                    lines.append(line)
                    line, used, gap = later, columns(later), ""
                line += gap + piece
                used += len(gap) + size
        if line not in (indent, later):
            lines.append(line)
    return lines


def explanation_text(
    explanation: Explanation,
    base_url: str,
    style: Style,
    width: int,
    frame: Frame | None = None,
    language: str = ENGLISH,
) -> str:
    """Everything about each entry found in the paste (``explain --verbose``)."""
    matches = explanation.matches
    out: list[str] = []
    elsewhere = explanation.not_autograd
    if elsewhere is not None:
        heading = style.red(ui("cli.not_autograd", language))
        see = ui("cli.see", language)
        return f"{heading} ({elsewhere.name}): {elsewhere.hint} {see} {elsewhere.url}"
    if not matches:
        out.append(style.red(ui("cli.no_match", language)))
        if explanation.near_misses:
            out.append("")
            out.append(ui("cli.near_intro", language))
            for miss in explanation.near_misses:
                out.append(
                    f"  {style.bold(miss.entry.id)}  {miss.entry.current.template.render({})}"
                )
                url = page_url(base_url, miss.entry, language)
                out.append(style.dim(f"  {'':{len(miss.entry.id)}}  {url}"))
        out.append("")
        out.append(ui("cli.list_hint", language))
        return "\n".join(out)
    if explanation.shared:
        out.append(ui("cli.shared", language, count=len(matches)))
        out.append("")
    elif len(matches) > 1:
        out.append(ui("cli.several", language, count=len(matches)))
        out.append("")
    for number, match in enumerate(matches, 1):
        if number > 1:
            out.append("")
        label = f"[{number}] " if len(matches) > 1 else ""
        shown_frame = frame if number == 1 else None
        out += _match_lines(match, label, base_url, style, width, shown_frame, language)
    return "\n".join(out)


def _frame_lines(frame: Frame | None, style: Style, width: int, language: str) -> list[str]:
    """Where the paste points in the user's own code."""
    if frame is None:
        return []
    label = ui("cli.your_line", language)
    out = _paragraphs(f"{style.bold(label)}{_after(label)}{frame.file}:{frame.line}", width, "  ")
    return out + ([f"    {frame.code}"] if frame.code else [])


def _heading(entry: Entry, label: str, style: Style, width: int, language: str) -> list[str]:
    """The entry's title and id, on one line when they fit."""
    title = entry.text(language, fallback=True).title
    if columns(label) + columns(title) + len(entry.id) + 4 <= width:
        return [f"{label}{style.bold(title)}  {style.dim('(' + entry.id + ')')}"]
    lines = [style.bold(line) for line in _paragraphs(label + title, width, "")]
    return [*lines, style.dim(f"  ({entry.id})")]


def short_text(
    explanation: Explanation,
    base_url: str,
    style: Style,
    width: int,
    frame: Frame | None = None,
    more: str = "",
    language: str = ENGLISH,
) -> str:
    """The answer first, in a few lines: the user's own line, what happened in this paste, the
    most common cause and its fix, the link (and ``more``, what gives the rest). Other entries
    found in the paste get a line each. Empty for no match."""
    if not explanation.matches:
        return ""
    if explanation.shared:  # a fragment several entries hold: no winner to put first
        out = [ui("cli.shared", language, count=len(explanation.matches))]
        for match in explanation.matches:
            title = match.entry.text(language, fallback=True).title
            out.append(f"  {style.bold(title)}  {style.dim('(' + match.entry.id + ')')}")
            out.append(f"    {page_url(base_url, match.entry, language)}")
        return "\n".join(out)
    first, *others = explanation.matches
    entry = first.entry
    text = entry.text(language, fallback=True)
    out = _heading(entry, "", style, width, language)
    if first.kind != "exact":
        out.append(style.dim("  " + ui("cli.partial", language, percent=round(first.score * 100))))
    out += _frame_lines(frame, style, width, language)
    details = first.details(language)
    # What happened (the first sentence), then the most specific advice: a hint for the values
    # in this paste comes last in the details, after the entry's other sentences.
    for line in details[:1] + details[1:][-1:]:
        out += _paragraphs(line, width, "  ")
    fix = ui("cli.fix", language)
    fix_label = style.bold(fix) + _after(fix)
    if text.causes:
        likely = ui("cli.most_likely", language)
        likely_label = style.bold(likely) + _after(likely)
        out += _paragraphs(
            f"{likely_label}{_cause_sentence(text.causes[0], language)}", width, "  "
        )
        out += _paragraphs(f"{fix_label}{text.causes[0].fix}", width, "  ")
    else:
        out += _paragraphs(f"{fix_label}{text.fix}", width, "  ")
    out.append(_more_line(entry, base_url, style, language))  # a URL is not wrapped
    if more:
        out.append(style.dim(f"  {more}"))
    for other in others:
        title = other.entry.text(language, fallback=True).title
        also = ui("cli.also_in_paste", language)
        out.append(f"  {also}{_after(also)}{title}  {style.dim('(' + other.entry.id + ')')}")
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
    match: Match,
    label: str,
    base_url: str,
    style: Style,
    width: int,
    frame: Frame | None,
    language: str,
) -> list[str]:
    entry, wording = match.entry, match.wording
    out = _heading(entry, label, style, width, language)
    out += _frame_lines(frame, style, width, language)
    out += _paragraphs(f"{wording.exception}: {match.message}", width, "  ")
    coverage = (
        ""
        if match.kind == "exact"
        else " " + ui("cli.partial", language, percent=round(match.score * 100))
    )
    releases = _releases(wording, language)
    said = ui("cli.wording", language, variant=wording.variant, releases=releases)
    out.append(style.dim(f"  {said}{coverage}"))
    if entry.retired:
        out.append(style.dim(_retired_line(entry.retired, language)))
    if match.fields:
        shown = "  ".join(f"{name}={value}" for name, value in match.fields.items())
        fields = ui("cli.fields", language)
        out.append(style.dim(f"  {fields}{_after(fields)}{shown}"))
    details = match.details(language)
    if details:
        out.append("")
        out.append(style.bold("  " + ui("cli.in_your_paste", language)))
        for line in details:
            out += _paragraphs(line, width, "    ")
    out += _causes_lines(entry, style, width, language)
    out += _why_fix_lines(entry, style, width, language)
    out.append("")
    out.append(_more_line(entry, base_url, style, language))
    return out


def _retired_line(retired: Retirement, language: str) -> str:
    return "  " + ui(
        "cli.retired", language, release=retired.last_release, replaced_by=retired.replaced_by
    )


def _more_line(entry: Entry, base_url: str, style: Style, language: str) -> str:
    more = ui("cli.more", language)
    return f"  {style.bold(more)}{_after(more)}{page_url(base_url, entry, language)}"


def _why_fix_lines(entry: Entry, style: Style, width: int, language: str) -> list[str]:
    text = entry.text(language, fallback=True)
    out = ["", style.bold("  " + ui("cli.why", language))]
    out += _paragraphs(text.cause, width, "    ")
    out.append(style.bold("  " + ui("cli.fix_heading", language)))
    out += _paragraphs(text.fix, width, "    ")
    out += _docs_lines(entry, style, language)
    return out


def _docs_lines(entry: Entry, style: Style, language: str) -> list[str]:
    """The PyTorch documentation that explains the entry's mechanism (a URL is not wrapped)."""
    if not entry.docs:
        return []
    return [style.bold("  " + ui("cli.docs", language)), *(f"    {link}" for link in entry.docs)]


def _cause_sentence(cause: Cause, language: str) -> str:
    from autograd_errors.ui import with_releases

    return with_releases(cause.text, cause.releases.since, cause.releases.until, language)


def _causes_lines(entry: Entry, style: Style, width: int, language: str) -> list[str]:
    """The entry's common causes, most common first, each with its fix."""
    causes = entry.text(language, fallback=True).causes
    if not causes:
        return []
    out = ["", style.bold("  " + ui("cli.causes", language))]
    fix = ui("cli.fix", language)
    for number, cause in enumerate(causes, 1):
        sentence = _cause_sentence(cause, language)
        out += _paragraphs(f"{number}. {sentence}", width, "    ", hanging="       ")
        out += _paragraphs(f"{fix}{_after(fix)}{cause.fix}", width, "       ")
    return out


def entry_text(
    entry: Entry, base_url: str, style: Style, width: int, language: str = ENGLISH
) -> str:
    out = _heading(entry, "", style, width, language)
    if entry.is_pitfall:
        out.append("  " + ui("cli.pitfall", language))
    else:
        out += _paragraphs(f"{entry.exception}: {entry.current.template.render({})}", width, "  ")
    if entry.retired:
        out.append(_retired_line(entry.retired, language))
    if entry.wordings:
        out.append("")
        out.append(style.bold("  " + ui("cli.wordings", language)))
    for wording in entry.wordings:
        out.append(f"    {wording.variant}: {_releases(wording, language)}")
        out += _paragraphs(f"{wording.exception}: {wording.template.render({})}", width, "      ")
    out += _causes_lines(entry, style, width, language)
    out += _why_fix_lines(entry, style, width, language)
    if entry.related:
        out.append(style.bold("  " + ui("cli.related", language)))
        out.append("    " + ", ".join(entry.related))
    out.append("")
    out.append(_more_line(entry, base_url, style, language))
    return "\n".join(out)


def list_text(entries: list[Entry], style: Style, language: str = ENGLISH) -> str:
    id_width = max((len(e.id) for e in entries), default=0)
    pitfall = ui("cli.pitfall_kind", language)
    kinds = {e.id: e.exception or pitfall for e in entries}
    type_width = max(map(columns, kinds.values()), default=0)
    retired = ui("cli.retired_tag", language)
    return "\n".join(
        f"{style.bold(e.id.ljust(id_width))}  "
        f"{kinds[e.id]}{' ' * (type_width - columns(kinds[e.id]))}  "
        f"{e.text(language, fallback=True).title}" + (f"  {retired}" if e.retired else "")
        for e in entries
    )
