"""The catalog as the browser's matcher reads it (``_static/autograd-catalog.json``).

Templates are exported already parsed (as tokens: literal text and placeholders, and as the
whitespace-free parts matching uses), so the JavaScript matcher (``static/autograd-matcher.js``)
needs no template parser of its own; the matching settings and the cleaning constants (line
markers, closers, escape codes, control characters) are exported from the Python constants, so
both matchers run on the same numbers and characters: the JavaScript copies none of them.
Only what the paste page shows is included: every visitor of that page downloads it.
"""

from __future__ import annotations

from autograd_errors import matching, normalize, templates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog import Catalog


def _part(part: str | templates.Placeholder) -> str | dict[str, Any]:
    if isinstance(part, str):
        return part
    return {"name": part.name, "kind": part.kind.name, "ends_at_break": part.ends_at_break}


def catalog_json(catalog: Catalog) -> dict[str, Any]:
    """Everything the paste page needs, and nothing more."""
    kinds = {
        kind.name: {
            "charset": kind.charset,
            "max_len": kind.max_len,
            "delimited": kind.delimited,
            "canonical": kind.canonical,
        }
        for kind in templates.KINDS.values()
    }
    entries = []
    for entry in catalog:
        if entry.is_pitfall:
            continue  # nothing to match
        entries.append(
            {
                "id": entry.id,
                "title": entry.title,
                "exception": entry.exception,
                "path": entry.path,
                "cause": entry.cause,
                "fix": entry.fix,
                "details": list(entry.details),
                "hints": [
                    {"field": h.field, "prefix": h.prefix, "text": h.text} for h in entry.hints
                ],
                "retired": entry.retired.last_release if entry.retired else None,
                "wordings": [
                    {
                        "variant": w.variant,
                        "exception": w.exception,
                        "releases": w.releases.describe(),
                        "tokens": [_part(t) for t in w.template.tokens],
                        "parts": [_part(p) for p in w.template.parts],
                    }
                    for w in entry.wordings
                ],
            }
        )
    return {
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
            "near_miss_similarity": matching.NEAR_MISS_SIMILARITY,
            "near_miss_tail": matching.NEAR_MISS_TAIL,
            "punctuation": matching.PUNCTUATION,
        },
        "entries": entries,
    }
