"""The catalog's text in other languages (issue 16): a ``[zh_CN]`` table at the end of each record.

A record's translation sits beside its English, in the same file::

    [zh_CN]
    title = "..."
    cause = \"\"\"...\"\"\"
    fix = \"\"\"...\"\"\"
    details = ["..."]                 # the English details' length, order and {placeholders}
    [zh_CN.common_cause.<cause-id>]   # one per English [[common_cause]]
    text = "..."
    fix = "..."
    [zh_CN.hint."<field>:<prefix>"]   # one per English [[hint]]
    text = "..."
    [zh_CN.wording.<variant>]         # one per English [[wording]] that has a note
    note = "..."
    [zh_CN.source]                    # last: written by `translations stamp`
    "title" = "1a2b3c4d"              # a short hash of each English text translated

Each translated text is known by a key (``title``, ``details.0``, ``common_cause.<id>.text``,
``hint.<field>:<prefix>``, ``wording.<variant>.note``, ...); ``[zh_CN.source]`` holds, for each
key, a hash of the English text it was translated from. A translation whose English has changed
since is *stale*; an English text with no translation is *missing*; ``python -m autograd_errors
translations status`` lists both, and ``translations stamp`` records the hashes once a
translation is up to date.

This module is on the ``explain`` path (the catalog checks the tables when it loads): it imports
nothing but what the interpreter has loaded already.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]  # str.format's parser, built in
import zlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from autograd_errors.catalog import Cause, Entry, Hint

#: The languages the catalog is written in: English, and the translations.
LANGUAGES = ("en", "zh_CN")
#: The languages a record translates into, each a table named after it.
TRANSLATED = LANGUAGES[1:]
SOURCE_TABLE = "source"

_TOP_KEYS = {
    "title": str,
    "cause": str,
    "fix": str,
    "details": list,
    "common_cause": dict,
    "hint": dict,
    "wording": dict,
    SOURCE_TABLE: dict,
}


class TranslationError(ValueError):
    """A translation table that breaks the rules; the catalog reports it with the file name."""


class MissingTranslation(LookupError):
    """A text asked for in a language it is not translated into, where no fallback is allowed."""


class Translation:
    """One record's texts in one language, by key (see the module's docstring); ``source``: the
    hash of the English each was translated from."""

    __slots__ = ("language", "source", "texts")

    def __init__(self, language: str, texts: dict[str, str], source: dict[str, str]) -> None:
        self.language = language
        self.texts = texts
        self.source = source


def source_hash(text: str) -> str:
    """A short hash of an English text; reflowing it (whitespace) does not change it."""
    return f"{zlib.crc32(' '.join(text.split()).encode()):08x}"


def _wide(char: str) -> bool:
    # The CJK ideographs and punctuation, and the full-width forms: enough to tell where a
    # line break in a TOML string falls inside Chinese text (no unicodedata on this path).
    return "\u2e80" <= char <= "\u9fff" or "\uff00" <= char <= "\uffef"


def unwrapped(text: str) -> str:
    """``text`` with the single line breaks of a multi-line TOML string removed where they touch
    Chinese text (a reader would see a space there), and made spaces elsewhere; blank lines
    (paragraphs) stay."""
    paragraphs = []
    for paragraph in text.strip().split("\n\n"):
        lines = [line.strip() for line in paragraph.split("\n") if line.strip()]
        joined = lines[0] if lines else ""
        for line in lines[1:]:
            joined += ("" if _wide(joined[-1]) or _wide(line[0]) else " ") + line
        paragraphs.append(joined)
    return "\n\n".join(paragraphs)


def placeholders(text: str) -> list[str]:
    """The ``{names}`` of a format string, in order."""
    try:
        return [name for _, name, _, _ in _string.formatter_parser(text) if name is not None]
    except ValueError as error:
        raise TranslationError(f"{error} in {text!r}") from None


def english_texts(entry: Entry) -> dict[str, str]:
    """Every text of ``entry`` a translation translates, by key."""
    texts = {"title": entry.title, "cause": entry.cause, "fix": entry.fix}
    for n, sentence in enumerate(entry.details):
        texts[f"details.{n}"] = sentence
    for cause in entry.causes:
        texts[f"common_cause.{cause.id}.text"] = cause.text
        texts[f"common_cause.{cause.id}.fix"] = cause.fix
    for hint in entry.hints:
        texts[f"hint.{hint_key(hint)}"] = hint.text
    for wording in entry.wordings:
        if wording.note:
            texts[f"wording.{wording.variant}.note"] = wording.note
    return texts


def hint_key(hint: Hint) -> str:
    return f"{hint.field}:{hint.prefix}"


def parse(language: str, table: dict[str, Any], english: dict[str, str]) -> Translation:
    """The ``[<language>]`` table of a record whose English texts are ``english``; raises
    :class:`TranslationError` on an unknown key, cause, hint or wording, or on a detail whose
    ``{placeholders}`` differ from its English."""
    texts: dict[str, str] = {}
    for key, value in table.items():
        if key not in _TOP_KEYS:
            known = ", ".join(sorted(_TOP_KEYS))
            raise TranslationError(f"[{language}]: unknown key {key!r} (known: {known})")
        if not isinstance(value, _TOP_KEYS[key]):
            raise TranslationError(f"[{language}]: {key} must be a {_TOP_KEYS[key].__name__}")
    for key in ("title", "cause", "fix"):
        if key in table:
            texts[key] = unwrapped(table[key])
    if "details" in table:
        details = table["details"]
        count = sum(key.startswith("details.") for key in english)
        if len(details) != count or not all(isinstance(item, str) for item in details):
            raise TranslationError(
                f"[{language}]: details must be a list of {count} strings, as in English"
            )
        texts.update((f"details.{n}", unwrapped(sentence)) for n, sentence in enumerate(details))
    _sub_tables(language, table, "common_cause", ("text", "fix"), english, texts)
    _sub_tables(language, table, "hint", ("text",), english, texts)
    _sub_tables(language, table, "wording", ("note",), english, texts)
    for key, text in texts.items():
        if not key.startswith("details."):
            continue  # only the details are filled in (str.format_map); braces elsewhere are text
        if sorted(placeholders(text)) != sorted(placeholders(english[key])):
            raise TranslationError(
                f"[{language}]: {key}: placeholders {placeholders(text)} differ from the "
                f"English {placeholders(english[key])}"
            )
    source = table.get(SOURCE_TABLE, {})
    for key, value in source.items():
        if key not in english or not isinstance(value, str):
            raise TranslationError(
                f"[{language}.{SOURCE_TABLE}]: {key!r} is not a text of this entry with a hash "
                "(run `python -m autograd_errors translations stamp`)"
            )
    return Translation(language, texts, dict(source))


def _sub_tables(
    language: str,
    table: dict[str, Any],
    name: str,
    keys: tuple[str, ...],
    english: dict[str, str],
    texts: dict[str, str],
) -> None:
    """``[<language>.<name>.<id>]`` tables: each id must be one of the English record's."""
    for item_id, sub in table.get(name, {}).items():
        where = f"[{language}.{name}.{item_id}]"
        if not isinstance(sub, dict):
            raise TranslationError(f"{where} must be a table")
        for key, value in sub.items():
            full = f"{name}.{item_id}" + (f".{key}" if name != "hint" else "")
            if key not in keys or not isinstance(value, str):
                raise TranslationError(f"{where}: unknown key {key!r} (known: {', '.join(keys)})")
            if full not in english:
                what = {"common_cause": "common cause", "wording": "wording with a note"}
                raise TranslationError(
                    f"{where}: the entry has no {what.get(name, name)} {item_id!r}"
                )
            texts[full] = unwrapped(value)


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


class Localized:
    """An entry's texts in one language. Without ``fallback``, a text not translated raises
    :class:`MissingTranslation`; with it, the English text stands in (the CLI and the site allow
    it, so that an entry added in English works at once; the tests require every translation)."""

    __slots__ = ("_texts", "entry", "fallback", "language")

    def __init__(self, entry: Entry, language: str, *, fallback: bool = False) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r} (known: {', '.join(LANGUAGES)})")
        self.entry = entry
        self.language = language
        self.fallback = fallback
        translation = entry.translations.get(language)
        self._texts = translation.texts if translation is not None else {}

    def _get(self, key: str, english: str) -> str:
        if self.language == "en":
            return english
        text = self._texts.get(key)
        if text is not None:
            return text
        if self.fallback:
            return english
        raise MissingTranslation(f"{self.entry.id}: {key} has no {self.language} translation")

    @property
    def title(self) -> str:
        return self._get("title", self.entry.title)

    @property
    def cause(self) -> str:
        return self._get("cause", self.entry.cause)

    @property
    def fix(self) -> str:
        return self._get("fix", self.entry.fix)

    @property
    def details(self) -> tuple[str, ...]:
        return tuple(self._get(f"details.{n}", s) for n, s in enumerate(self.entry.details))

    @property
    def causes(self) -> tuple[Cause, ...]:
        from autograd_errors.catalog import Cause

        return tuple(
            Cause(
                cause.id,
                self._get(f"common_cause.{cause.id}.text", cause.text),
                self._get(f"common_cause.{cause.id}.fix", cause.fix),
                cause.sources,
            )
            for cause in self.entry.causes
        )

    @property
    def hints(self) -> tuple[Hint, ...]:
        from autograd_errors.catalog import Hint

        return tuple(
            Hint(hint.field, hint.prefix, self._get(f"hint.{hint_key(hint)}", hint.text))
            for hint in self.entry.hints
        )

    def note(self, variant: str) -> str:
        """The note of the wording ``variant`` ("" when it has none)."""
        english = self.entry.wording(variant).note
        return self._get(f"wording.{variant}.note", english) if english else ""


def status_lines(entries: Iterable[Entry], language: str) -> list[str]:
    """``<id>: missing <key>`` / ``<id>: stale <key>``, one line per problem."""
    return [
        f"{entry.id}: {state} {key}"
        for entry in entries
        for key, state in problems(entry, language)
    ]
