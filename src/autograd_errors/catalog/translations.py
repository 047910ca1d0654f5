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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    import zlib  # here: a cold explain checks no stamp, and zlib is a shared library to load

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


def hint_key(field: str, prefix: str) -> str:
    """How a translation names the hint for ``field`` values starting with ``prefix``."""
    return f"{field}:{prefix}"


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
