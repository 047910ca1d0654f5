"""The answer as text, for people: the short answer, everything (``explain --verbose``), an
entry (``show``), the list of entries (``list``); in any language of the reference, filled to a
terminal's width (:mod:`.terminal`).
"""

from __future__ import annotations

from autograd_errors.rendering.evidence import location, seen, seen_label
from autograd_errors.rendering.strings import ENGLISH, releases_text, ui, with_releases
from autograd_errors.rendering.terminal import after, columns, fill
from autograd_errors.rendering.urls import page_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from autograd_errors.catalog.model import Cause, Entry, Hint, Retirement
    from autograd_errors.matcher.causes import CauseChoice
    from autograd_errors.matcher.frames import Frame
    from autograd_errors.matcher.matching import Explanation, Match
    from autograd_errors.rendering.terminal import Style


def answer_text(
    explanation: Explanation,
    base_url: str,
    style: Style,
    width: int,
    *,
    language: str = ENGLISH,
    verbose: bool = False,
    more: str = "",
) -> str:
    """The answer, pointing at the user's own line in the paste: the short answer (then
    ``more``, what gives the rest), or, ``verbose`` or with no match, everything."""
    if verbose or not explanation.matches:
        return verbose_text(explanation, base_url, style, width, explanation.frame, language)
    return short_text(explanation, base_url, style, width, explanation.frame, more, language)


def verbose_text(
    explanation: Explanation,
    base_url: str,
    style: Style,
    width: int,
    frame: Frame | None = None,
    language: str = ENGLISH,
) -> str:
    """Everything about each entry found in the paste (``explain --verbose``); with no match,
    what the paste is instead: an error that is not autograd's, or the closest entries."""
    matches = explanation.matches
    out: list[str] = []
    elsewhere = explanation.not_autograd
    if elsewhere is not None:
        heading = style.red(ui("cli.not_autograd", language))
        see = ui("cli.see", language)
        hint = elsewhere.hint_in(language)
        return f"{heading} ({elsewhere.name}): {hint} {see} {elsewhere.url}"
    if not matches:
        out.append(style.red(ui("cli.no_match", language)))
        raiser = explanation.raised_by
        if raiser is not None:
            where = f"{raiser.file}:{raiser.line}"
            out += fill(ui("answer.raised_elsewhere", language, where=where), width, "")
        if explanation.context_only:
            out += fill(ui("answer.context_only", language), width, "")
            out += _frame_lines(explanation.frame, style, width, language, "answer.context_frame")
        if explanation.described:
            out += fill(ui("answer.described", language), width, "")
        if explanation.near_misses:
            out.append("")
            intro = (
                "answer.raised_near"
                if raiser
                else "answer.context_near"
                if explanation.context_only
                else "answer.described_near"
                if explanation.described
                else "cli.near_intro"
            )
            out.append(ui(intro, language))
            for miss in explanation.near_misses:
                entry = miss.entry
                said = (
                    entry.localized(language, fallback=True).title
                    if entry.is_pitfall
                    else entry.current.template.render({})
                )  # a pitfall has no message: its title says what it is
                out.append(f"  {style.bold(entry.id)}  {said}")
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


def _frame_lines(
    frame: Frame | None,
    style: Style,
    width: int,
    language: str,
    label_key: str = "answer.your_line",
) -> list[str]:
    """Where the paste points in the user's own code."""
    if frame is None:
        return []
    label = ui(label_key, language)
    out = fill(f"{style.bold(label)}{after(label)}{location(frame, language)}", width, "  ")
    return out + ([f"    {frame.code}"] if frame.code else [])


def _heading(entry: Entry, label: str, style: Style, width: int, language: str) -> list[str]:
    """The entry's title and id, on one line when they fit."""
    title = entry.localized(language, fallback=True).title
    if columns(label) + columns(title) + len(entry.id) + 4 <= width:
        return [f"{label}{style.bold(title)}  {style.dim('(' + entry.id + ')')}"]
    lines = [style.bold(line) for line in fill(label + title, width, "")]
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
    cause the paste supports (or the most common one) and what supports it, its fix, the link
    (and ``more``, what gives the rest). Other entries found in the paste get a line each.
    Empty for no match."""
    if not explanation.matches:
        return ""
    if explanation.shared:  # a fragment several entries hold: no winner to put first
        out = [ui("cli.shared", language, count=len(explanation.matches))]
        for match in explanation.matches:
            title = match.entry.localized(language, fallback=True).title
            out.append(f"  {style.bold(title)}  {style.dim('(' + match.entry.id + ')')}")
            out.append(f"    {page_url(base_url, match.entry, language)}")
        return "\n".join(out)
    first, *others = explanation.matches
    entry = first.entry
    text = entry.localized(language, fallback=True)
    out = _heading(entry, "", style, width, language)
    if first.kind != "exact":
        out.append(style.dim("  " + _how_found(first, language)))
    out += _frame_lines(frame, style, width, language)
    details = first.details(language)
    # What happened (the first sentence), then the most specific advice: a hint for the values
    # in this paste comes last in the details, after the entry's other sentences.
    for line in details[:1] + details[1:][-1:]:
        out += fill(line, width, "  ")
    fix = ui("answer.fix", language)
    fix_label = style.bold(fix) + after(fix)
    choice = first.cause
    if choice is not None:
        cause = choice.cause(text.causes)
        lead = ui("answer.most_likely" if choice.evidence else "answer.most_common", language)
        lead_label = style.bold(lead) + after(lead)
        out += fill(f"{lead_label}{_cause_sentence(cause, language)}", width, "  ")
        out += _seen_lines(choice, entry, frame, style, width, language, "  ")
        out += fill(f"{fix_label}{cause.fix}", width, "  ")
    elif not hinted(details, text.hints):
        out += fill(f"{fix_label}{text.fix}", width, "  ")
    # (No cause fits, and a hint for this paste's values is shown: the hint is the advice. The
    # entry's own fix speaks of other functions and values: 'linalg_lstsq' is not cdist.)
    out.append(_more_line(entry, base_url, style, language))  # a URL is not wrapped
    if more:
        out.append(style.dim(f"  {more}"))
    for other in others:
        title = other.entry.localized(language, fallback=True).title
        also = ui("cli.also_in_paste", language)
        out.append(f"  {also}{after(also)}{title}  {style.dim('(' + other.entry.id + ')')}")
    return "\n".join(out)


def hinted(details: Sequence[str], hints: Sequence[Hint]) -> bool:
    """Whether the details of a match hold a hint for the paste's values (as
    ``autograd-ui.js``'s ``hinted``)."""
    return any(hint.text in details for hint in hints)


def _how_found(match: Match, language: str) -> str:
    """How a match that is not exact was found: part of a wording, or a pitfall's symptom."""
    if match.kind == "symptom":
        return ui("answer.symptom", language, symptom=match.wording.message)
    return ui("answer.partial", language, percent=round(match.score * 100))


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
    if match.kind == "symptom":  # not a message of torch's: no wording, no releases
        out.append(style.dim("  " + _how_found(match, language)))
    else:
        out += fill(f"{wording.exception}: {match.message}", width, "  ")
        coverage = "" if match.kind == "exact" else " " + _how_found(match, language)
        releases = releases_text(wording.releases.since, wording.releases.until, language)
        said = ui("answer.wording", language, variant=wording.variant, releases=releases)
        out.append(style.dim(f"  {said}{coverage}"))
    if entry.retired:
        out.append(style.dim(_retired_line(entry.retired, language)))
    if match.fields:
        shown = "  ".join(f"{name}={value}" for name, value in match.fields.items())
        fields = ui("cli.fields", language)
        out.append(style.dim(f"  {fields}{after(fields)}{shown}"))
    details = match.details(language)
    if details:
        out.append("")
        out.append(style.bold("  " + ui("cli.in_your_paste", language)))
        for line in details:
            out += fill(line, width, "    ")
    out += _chosen_lines(match, frame, style, width, language)
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
    more = ui("answer.more", language)
    return f"  {style.bold(more)}{after(more)}{page_url(base_url, entry, language)}"


def _why_fix_lines(entry: Entry, style: Style, width: int, language: str) -> list[str]:
    text = entry.localized(language, fallback=True)
    out = ["", style.bold("  " + ui("cli.why", language))]
    out += fill(text.cause, width, "    ")
    out.append(style.bold("  " + ui("cli.fix_heading", language)))
    out += fill(text.fix, width, "    ")
    out += _docs_lines(entry, style, language)
    return out


def _docs_lines(entry: Entry, style: Style, language: str) -> list[str]:
    """The PyTorch documentation that explains the entry's mechanism (a URL is not wrapped)."""
    if not entry.docs:
        return []
    return [style.bold("  " + ui("cli.docs", language)), *(f"    {link}" for link in entry.docs)]


def _seen_lines(
    choice: CauseChoice,
    entry: Entry,
    frame: Frame | None,
    style: Style,
    width: int,
    language: str,
    indent: str,
) -> list[str]:
    """What in the paste supports the chosen cause (nothing without evidence)."""
    sentence = seen(choice, entry, frame, language)
    if not sentence:
        return []
    label = ui(seen_label(choice), language)
    return fill(f"{style.bold(label)}{after(label)}{sentence}", width, indent)


def _chosen_lines(
    match: Match, frame: Frame | None, style: Style, width: int, language: str
) -> list[str]:
    """``--verbose``: the cause the answer leads with, and why."""
    choice = match.cause
    if choice is None:
        return []
    cause = choice.cause(match.entry.localized(language, fallback=True).causes)
    lead = ui("answer.most_likely" if choice.evidence else "answer.most_common", language)
    out = [""]
    out += fill(f"{style.bold(lead)}{after(lead)}{_cause_sentence(cause, language)}", width, "  ")
    return out + _seen_lines(choice, match.entry, frame, style, width, language, "  ")


def _cause_sentence(cause: Cause, language: str) -> str:
    return with_releases(cause.text, cause.releases.since, cause.releases.until, language)


def _causes_lines(entry: Entry, style: Style, width: int, language: str) -> list[str]:
    """The entry's common causes, most common first, each with its fix."""
    causes = entry.localized(language, fallback=True).causes
    if not causes:
        return []
    out = ["", style.bold("  " + ui("cli.causes", language))]
    fix = ui("answer.fix", language)
    for number, cause in enumerate(causes, 1):
        sentence = _cause_sentence(cause, language)
        out += fill(f"{number}. {sentence}", width, "    ", hanging="       ")
        out += fill(f"{fix}{after(fix)}{cause.fix}", width, "       ")
    return out


def entry_text(
    entry: Entry, base_url: str, style: Style, width: int, language: str = ENGLISH
) -> str:
    out = _heading(entry, "", style, width, language)
    if entry.is_pitfall:
        out.append("  " + ui("cli.pitfall", language))
    else:
        out += fill(f"{entry.exception}: {entry.current.template.render({})}", width, "  ")
    if entry.retired:
        out.append(_retired_line(entry.retired, language))
    if entry.wordings:
        out.append("")
        out.append(style.bold("  " + ui("cli.wordings", language)))
    for wording in entry.wordings:
        releases = releases_text(wording.releases.since, wording.releases.until, language)
        out.append(f"    {wording.variant}: {releases}")
        out += fill(f"{wording.exception}: {wording.template.render({})}", width, "      ")
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
        f"{e.localized(language, fallback=True).title}" + (f"  {retired}" if e.retired else "")
        for e in entries
    )
