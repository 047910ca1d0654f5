"""The catalog as the browser's matcher reads it (``_static/autograd-catalog.json``).

Templates are exported already parsed (as tokens: literal text and placeholders; the matcher
makes the whitespace-free parts it matches from them, as ``templates.py`` does), so the
JavaScript matcher (``static/autograd-matcher.js``) needs no template parser of its own; the
matching settings and the cleaning constants (line markers, closers, escape codes, control
characters) are exported from the Python constants, so both matchers run on the same numbers and
characters: the JavaScript copies none of them.
Only what the paste page shows is included: every visitor of that page downloads it.
"""

from __future__ import annotations

from autograd_errors.matcher import causes, frames, fuzzy, matching, symptoms, tracebacks
from autograd_errors.messages import normalize, templates
from autograd_errors.rendering import evidence
from autograd_errors.rendering.strings import ENGLISH, releases_text, with_releases

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any

    from autograd_errors.catalog.model import Catalog, Cause


def _token(token: str | templates.Placeholder) -> str | dict[str, Any]:
    if isinstance(token, str):
        return token
    return {"name": token.name, "kind": token.kind.name}


def _cause(cause: Cause, language: str) -> dict[str, Any]:
    """A common cause as the paste page shows it; its signs only where it has any (every
    visitor downloads them)."""
    exported: dict[str, Any] = {
        "id": cause.id,
        "text": with_releases(cause.text, cause.releases.since, cause.releases.until, language),
        "fix": cause.fix,
    }
    if cause.signs or cause.signs.required:
        exported["signs"] = {key: value for key, value in cause.signs.as_json().items() if value}
    return exported


def catalog_json(
    catalog: Catalog, language: str = ENGLISH, diagnosable: Collection[str] = ()
) -> dict[str, Any]:
    """Everything the paste page needs, and nothing more: the texts in ``language`` (English
    where an entry is not translated yet), ids and keys in English; for each entry, whether
    ``run --diagnose`` would name the line (``diagnosable``: the ids a diagnosis traces, which
    the site passes from :func:`autograd_errors.diagnosis.diagnosable_entries`). The page's own
    words are not here but in ``autograd-strings.js`` (:mod:`.sphinxext.assets`)."""
    kinds = {
        kind.name: {
            "charset": kind.charset,
            "max_len": kind.max_len,
            "delimited": kind.delimited,
            "canonical": kind.canonical,
        }
        for kind in templates.KINDS.values()
    }
    index = fuzzy.index_of(catalog)
    entries = []
    for entry in catalog:
        if entry.is_pitfall:
            continue  # nothing to match
        text = entry.localized(language, fallback=True)
        entries.append(
            {
                "id": entry.id,
                "title": text.title,
                "exception": entry.exception,
                "path": entry.path,
                "cause": text.cause,
                "fix": text.fix,
                "details": list(text.details),
                "hints": [
                    {"field": h.field, "prefix": h.prefix, "text": h.text} for h in text.hints
                ],
                "retired": entry.retired.last_release if entry.retired else None,
                "causes": [_cause(cause, language) for cause in text.causes],
                "diagnosable": entry.id in diagnosable,
                "current": entry.current.variant,  # what the newest torch prints
                "wordings": [
                    {
                        "variant": w.variant,
                        "form": w.form,
                        "exception": w.exception,
                        "releases": releases_text(w.releases.since, w.releases.until, language),
                        # The matcher makes the parts it matches from these, as templates.py.
                        "tokens": [_token(t) for t in w.template.tokens],
                    }
                    for w in entry.wordings
                ],
            }
        )
    return {
        "language": language,
        "settings": {
            "kinds": kinds,
            "anchor_chars": templates.ANCHOR_CHARS,
            "min_truncated_chars": templates.MIN_TRUNCATED_CHARS,
            "max_occurrences": templates.MAX_OCCURRENCES,
            "max_chars": normalize.MAX_CHARS,
            "line_markers": list(normalize.LINE_MARKERS),
            "closers": normalize.CLOSERS,
            "anonymous_namespace": list(normalize.ANONYMOUS_NAMESPACE),
            "ansi_pattern": normalize.ANSI_PATTERN,
            "control_codes": list(normalize.CONTROL_CODES),
            "near_miss_limit": matching.NEAR_MISS_LIMIT,
            "context_wordings": [
                [entry.id, wording.variant]
                for entry in catalog
                for wording in entry.wordings
                if wording.context
            ],
            "fuzzy": {
                name.lower(): getattr(fuzzy, name)
                for name in (
                    "MAX_LINES",
                    "MAX_RAW_WORDS",
                    "MAX_WORDS",
                    "TYPO_MAX_LENGTH",
                    "TYPO_QUARTERS",
                    "TYPO_MIN_LENGTH",
                    "MAX_PASTE_GAP",
                    "MAX_WORDING_GAP",
                    "PLACEHOLDER_WORDS",
                    "INSERT_COST",
                    "MIN_SCORE",
                    "MIN_ANCHORS",
                    "PLAIN_CHAIN_ANCHORS",
                    "EVIDENCE_PERCENT",
                    "STRONG_SCORE",
                    "STRONG_EVIDENCE_PERCENT",
                    "PREFIX_ANCHORS",
                    "SLIVER_PERCENT",
                    "SHARED_PERCENT",
                    "MAX_PARTIAL",
                    "NEAR_MISS_PERCENT",
                    "NEAR_MISS_RARE_PERCENT",
                )
            }
            | {
                "traceback_lines": list(fuzzy.TRACEBACK_LINES),
                "triggered": fuzzy.TRIGGERED,
                "exception_endings": list(fuzzy.EXCEPTION_ENDINGS),
                "quotes": fuzzy.QUOTES,
                "foreign_exception": fuzzy.FOREIGN_EXCEPTION,
            },
            "final_stops": normalize.FINAL_STOPS,
            "symptoms": {
                "stopwords": list(symptoms.STOPWORDS),
                "max_words": symptoms.MAX_WORDS,
                "focus_percent": symptoms.FOCUS_PERCENT,
                "phrase_slack": symptoms.PHRASE_SLACK,
                "negations": list(symptoms.NEGATIONS),
                "negation_reach": symptoms.NEGATION_REACH,
                "sentence_ends": symptoms.SENTENCE_ENDS,
                "raising_lines": symptoms.RAISING_LINES,
                "told_quotes": symptoms.TOLD_QUOTES,
                "arrow": symptoms.ARROW,
            },
            "frames": {
                "library_parts": list(frames.LIBRARY_PARTS),
                "windows_stdlib": frames.WINDOWS_STDLIB,
                "launcher_folders": list(frames.LAUNCHER_FOLDERS),
                "launcher_code": frames.LAUNCHER_CODE,
                "warning_marker": frames.WARNING_MARKER,
                "typed_names": list(frames.TYPED_NAMES),
                "cell_file_parts": list(frames.CELL_FILE_PARTS),
                "max_digits": frames.MAX_DIGITS,
                "torch_parts": list(frames.TORCH_PARTS),
                "min_raised_literal": frames.MIN_RAISED_LITERAL,
                "traceback_marker": tracebacks.TRACEBACK_MARKER,
                "forward_marker": tracebacks.FORWARD_MARKER,
                "compile_marker": tracebacks.COMPILE_MARKER,
                "chain_markers": list(tracebacks.CHAIN_MARKERS),
                "group_markers": list(tracebacks.GROUP_MARKERS),
                "max_prefix": tracebacks.MAX_PREFIX,
            },
            "causes": {"weights": causes.WEIGHTS, "part_separator": causes.PART_SEPARATOR},
            "answer": {"form_words": evidence.FORM_WORDS},
            "not_autograd": [
                {
                    "kind": k.name,
                    "phrases": list(k.phrases),
                    "hint": k.hint_in(language),
                    "url": k.url,
                }
                for k in catalog.not_autograd
            ],
        },
        "entries": entries,
        # The silent pitfalls users describe or meet by Python's error (matcher/symptoms.py).
        "symptoms": _symptoms_json(catalog, language, diagnosable),
        # The words index of fuzzy.py, as built there: the browser does not recompute weights.
        # The wordings' word sequences it makes from their tokens, as fuzzy.py does.
        "words": {
            "weights": list(index.weights.items()),
            "common": sorted(index.common),
            "boilerplate": index.boilerplate,
            "unknown_weight": index.unknown_weight,
        },
    }


def _symptoms_json(
    catalog: Catalog, language: str, diagnosable: Collection[str]
) -> list[dict[str, Any]]:
    """The pitfalls with symptoms: what the paste page shows of them, and what finds them."""
    found = []
    for entry in catalog:
        if not (entry.symptoms or entry.symptom_errors or entry.symptom_messages):
            continue
        text = entry.localized(language, fallback=True)
        found.append(
            {
                "id": entry.id,
                "title": text.title,
                "exception": "",
                "path": entry.path,
                "cause": text.cause,
                "fix": text.fix,
                "details": list(text.details),
                "hints": [],
                "retired": None,
                # The answer leads with a common cause, as the command line's does.
                "causes": [_cause(cause, language) for cause in text.causes],
                "diagnosable": entry.id in diagnosable,
                "wordings": [],
                # What the symptom's stand-in wording says of releases: a pitfall has no
                # message of its own to date, so every release (as the Python matcher says).
                "releases": releases_text(None, None, language),
                # Matched in English, as the Python matcher does: users paste English.
                "phrases": [entry.title, *entry.symptoms],
                "errors": [
                    {"exception": e.exception, "contains": list(e.contains), "code": e.code}
                    for e in entry.symptom_errors
                ],
                # Other programs' words for the symptom (symptoms.by_message).
                "messages": [
                    {"contains": list(m.contains), "pattern": m.pattern, "message": m.message}
                    for m in entry.symptom_messages
                ],
            }
        )
    return found
