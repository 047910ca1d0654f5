"""The answer and the entries as JSON objects, for programs (``--json``): keys and ids in
English, texts in the language asked for. docs/cli.md is their contract."""

from __future__ import annotations

from autograd_errors.rendering.strings import ENGLISH, releases_text
from autograd_errors.rendering.urls import page_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog.model import Cause, Entry, NotAutogradKind
    from autograd_errors.matcher.causes import CauseChoice
    from autograd_errors.matcher.frames import Frame
    from autograd_errors.matcher.matching import Explanation, Match, NearMiss


def answer_json(explanation: Explanation, base_url: str, language: str = ENGLISH) -> dict[str, Any]:
    """What ``explain --json`` prints: the matches (each with the user's own line in the
    exception it is in, and the cause the answer leads with), the near misses, the non-autograd
    error, the line of another library that raised the message in PyTorch's words, and whether
    the paste holds only lines torch prints beside an error (``context_only``) or quotes no
    message but describes a symptom, the near misses being the pages about it (``described``)."""
    return {
        "matches": [
            match_json(m, base_url, m.located.frame, language) for m in explanation.matches
        ],
        "near": [near_json(miss, language) for miss in explanation.near_misses],
        "not_autograd": not_autograd_json(explanation.not_autograd, language),
        "raised_by": None if explanation.raised_by is None else explanation.raised_by.as_json(),
        "context_only": explanation.context_only,
        "context_frame": (
            explanation.frame.as_json()
            if explanation.context_only and explanation.frame is not None
            else None
        ),
        "described": explanation.described,
    }


def match_json(
    match: Match, base_url: str, frame: Frame | None = None, language: str = ENGLISH
) -> dict[str, Any]:
    """A match, with what the text shows: what happened in this paste, why, the fix, the
    common causes, the one the answer leads with (``cause``), the user's own line."""
    text = match.entry.localized(language, fallback=True)
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
        "cause": choice_json(match.cause),
        "docs": list(match.entry.docs),
    }


def choice_json(choice: CauseChoice | None) -> dict[str, Any] | None:
    """The cause the answer leads with: its ``id``, its ``basis`` ("evidence", or
    "most-common" when the paste shows no sign of any cause) and the ``evidence``."""
    if choice is None:
        return None
    return {
        "id": choice.cause_id,
        "basis": choice.basis,
        "evidence": [found.as_json() for found in choice.evidence],
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
    title = miss.entry.localized(language, fallback=True).title
    return {"id": miss.entry.id, "title": title, "score": miss.similarity}


def not_autograd_json(
    kind: NotAutogradKind | None, language: str = ENGLISH
) -> dict[str, str] | None:
    if kind is None:
        return None
    return {"kind": kind.name, "hint": kind.hint_in(language), "url": kind.url}


def entry_json(entry: Entry, base_url: str, language: str = ENGLISH) -> dict[str, Any]:
    """An entry as ``list --json`` gives it: a match's keys without the score."""
    return {
        "id": entry.id,
        "title": entry.localized(language, fallback=True).title,
        "exception": entry.exception or None,  # a pitfall raises nothing
        "variant": None if entry.is_pitfall else entry.current.variant,
        "fields": {},
        "path": entry.path,
        "url": page_url(base_url, entry, language),
    }


def entry_detail_json(entry: Entry, base_url: str, language: str = ENGLISH) -> dict[str, Any]:
    """An entry as ``show --json`` gives it: everything the catalog knows."""
    text = entry.localized(language, fallback=True)
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
                "releases": releases_text(w.releases.since, w.releases.until, language),
                "source": w.source,
                "note": text.note(w.variant),
            }
            for w in entry.wordings
        ],
    )
    return detail
