"""The catalog as the browser's matcher reads it (``_static/autograd-catalog.json``).

Templates are exported already parsed (as tokens: literal text and placeholders, and as the
whitespace-free parts matching uses), so the JavaScript matcher (``static/autograd-matcher.js``)
needs no template parser of its own; the matching settings and the cleaning constants (line
markers, closers, escape codes, control characters) are exported from the Python constants, so
both matchers run on the same numbers and characters: the JavaScript copies none of them.
Only what the paste page shows is included: every visitor of that page downloads it.
"""

from __future__ import annotations

from autograd_errors.matcher import fuzzy, matching
from autograd_errors.messages import normalize, templates
from autograd_errors.rendering.strings import ENGLISH, releases_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any

    from autograd_errors.catalog.model import Catalog


def _part(part: str | templates.Placeholder) -> str | dict[str, Any]:
    if isinstance(part, str):
        return part
    return {"name": part.name, "kind": part.kind.name, "ends_at_break": part.ends_at_break}


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
                "diagnosable": entry.id in diagnosable,
                "wordings": [
                    {
                        "variant": w.variant,
                        "exception": w.exception,
                        "releases": releases_text(w.releases.since, w.releases.until, language),
                        "tokens": [_part(t) for t in w.template.tokens],
                        "parts": [_part(p) for p in w.template.parts],
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
                    "SHARED_PERCENT",
                    "MAX_PARTIAL",
                    "NEAR_MISS_PERCENT",
                    "NEAR_MISS_WEIGHT",
                )
            },
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
        # The words index of fuzzy.py, as built there: the browser does not recompute weights.
        "words": {
            "weights": list(index.weights.items()),
            "common": sorted(index.common),
            "boilerplate": index.boilerplate,
            "wordings": [[entry.id, wording.variant] for entry, wording in index.wordings],
            "sequences": index.sequences,
        },
    }
