"""Which translations are stale or missing, and stamping them up to date (``python -m
autograd_errors translations status|stamp``; see :mod:`.translations`)."""

from __future__ import annotations

from autograd_errors.catalog.model import english_texts
from autograd_errors.catalog.translations import SOURCE_TABLE, TranslationError, source_hash

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from autograd_errors.catalog.model import Entry


def problems(entry: Entry, language: str) -> list[tuple[str, str]]:
    """``(key, "missing" | "stale")`` for each English text of ``entry`` that has no translation
    into ``language``, or one made from another English text (or never stamped)."""
    translation = entry.translations.get(language)
    found = []
    for key, text in english_texts(entry).items():
        if translation is None or key not in translation.texts:
            found.append((key, "missing"))
        elif translation.source.get(key) != source_hash(text):
            found.append((key, "stale"))
    return found


def source_table(entry: Entry, language: str) -> str:
    """The ``[<language>.source]`` table that stamps ``entry``'s translation as up to date."""
    translation = entry.translations.get(language)
    english = english_texts(entry)
    lines = [f"[{language}.{SOURCE_TABLE}]"]
    for key in english:
        if translation is not None and key in translation.texts:
            lines.append(f'"{key}" = "{source_hash(english[key])}"')
    return "\n".join(lines) + "\n"


def stamped(record: str, entry: Entry, language: str) -> str:
    """The text of ``entry``'s record file with its ``[<language>.source]`` table rewritten (or
    added, at the end); the rest of the file is left as it is, byte for byte."""
    header = f"[{language}.{SOURCE_TABLE}]"
    lines = record.splitlines(keepends=True)
    start = next((n for n, line in enumerate(lines) if line.strip() == header), None)
    if start is None:
        body = record if record.endswith("\n") else record + "\n"
        return body + "\n" + source_table(entry, language)
    if any(line.lstrip().startswith("[") for line in lines[start + 1 :]):
        raise TranslationError(f"{header} must be the last table of the file")
    return "".join(lines[:start]) + source_table(entry, language)


def status_lines(entries: Iterable[Entry], language: str) -> list[str]:
    """``<id>: missing <key>`` / ``<id>: stale <key>``, one line per problem."""
    return [
        f"{entry.id}: {state} {key}"
        for entry in entries
        for key, state in problems(entry, language)
    ]
