"""The catalog: one TOML record per entry in ``autograd_errors/entries/``, loaded and checked.

A record holds every fact about one error that is not code: its wordings across torch releases
(message templates, release ranges, sources), why torch raises it, how to fix it, its section and
related entries. The CLI, the site, the JSON export and the tests all read it from here.

Importing :mod:`tomllib` and parsing the records costs more than the rest of ``explain``
together, so the parsed records are cached (with :mod:`marshal`, which the interpreter has loaded
anyway) in the user's cache directory, keyed by a checksum of the record files and the Python
version: the way Python caches bytecode. An unwritable cache only costs speed.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import zlib

from autograd_errors.releases import ReleaseRange
from autograd_errors.templates import Template, TemplateError
from autograd_errors.translations import (
    LANGUAGES,
    TRANSLATED,
    MissingTranslation,
    Translation,
    TranslationError,
    hint_key,
)
from autograd_errors.translations import parse as _parse_translation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

ENTRIES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "entries")
#: Where the site puts the entry pages, relative to its root.
PAGES_DIR = "errors"
_SCHEMA = 3
_ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")
_EXCEPTION_ENDINGS = ("Error", "Warning", "Exception")


class CatalogError(ValueError):
    """A record that breaks the catalog's rules; the message names the file and the key."""


# The record classes are hand-written ``__slots__`` classes, not dataclasses: importing
# ``dataclasses`` (and the ``inspect`` and ``re`` it pulls in) would cost ``explain`` a good part of
# its start-up, which must stay close to a bare interpreter's (see benchmarks/cold_start.py).


class Wording:
    """One way torch has worded an entry's message, and the releases that print it."""

    __slots__ = (
        "_template",
        "anchor",
        "example",
        "exception",
        "form",
        "message",
        "note",
        "releases",
        "source",
        "variant",
    )

    def __init__(
        self,
        variant: str,
        message: str,
        exception: str,
        releases: ReleaseRange,
        source: str,
        note: str = "",
        example: str = "",
        form: str = "main",
        anchor: str | None = None,
    ) -> None:
        self.variant = variant
        self.message = message
        self.exception = exception
        self.releases = releases
        self.source = source  # where this wording is documented: a PyTorch source or a thread
        self.note = note
        self.example = example  # one real instance, as printed, with its prefix
        # Wordings of one form are successive versions of one message, printed by one code
        # path; an entry whose error torch words differently in different situations (a
        # leaf, anomaly mode on) has a form for each.
        self.form = form
        # Parsing every template would cost explain most of its start-up; a wording whose
        # anchor (the text a match must start with) is known is parsed when it is first needed.
        self._template: Template | None = None
        if anchor is None:
            self._template = Template(message)
            anchor = self._template.anchor
        self.anchor = anchor

    @property
    def template(self) -> Template:
        if self._template is None:
            self._template = Template(self.message)
        return self._template

    def __repr__(self) -> str:
        return f"Wording({self.variant!r}, {self.message!r})"


class Hint:
    """Advice for a particular value of a captured field (``op`` starting with ``Relu``)."""

    __slots__ = ("field", "prefix", "text")

    def __init__(self, field: str, prefix: str, text: str) -> None:
        self.field = field
        self.prefix = prefix
        self.text = text


class Cause:
    """One common way users run into an entry, with its fix; an entry lists them most common
    first. The gallery script executes each: the lines tagged ``# cause: <id>`` must raise the
    entry's own message, the lines tagged ``# fix: <id>`` must run and check their gradients.

    ``releases``: the torch releases on which the cause leads to the entry's message (``since``
    and ``until`` in the record); elsewhere its trigger is not judged (torch stopped raising
    there, or raises another entry's message), and the pages say which releases it holds for."""

    __slots__ = ("fix", "id", "releases", "sources", "text")

    def __init__(
        self,
        id: str,
        text: str,
        fix: str,
        sources: tuple[str, ...] = (),
        releases: ReleaseRange | None = None,
    ) -> None:
        self.id = id
        self.text = text  # one line, in words
        self.fix = fix
        self.sources = sources  # threads where users hit it, or the PyTorch source of a claim
        self.releases = releases or ReleaseRange(None, None)

    def __repr__(self) -> str:
        return f"Cause({self.id!r})"


class Retirement:
    """For a message current torch no longer raises: the last release known to raise it."""

    __slots__ = ("last_release", "replaced_by")

    def __init__(self, last_release: str, replaced_by: str) -> None:
        self.last_release = last_release
        self.replaced_by = replaced_by


class Entry:
    """One error, warning or pitfall the reference explains."""

    __slots__ = (
        "cause",
        "causes",
        "details",
        "docs",
        "exception",
        "fix",
        "hints",
        "id",
        "kind",
        "needs",
        "related",
        "retired",
        "section",
        "title",
        "translations",
        "wordings",
    )

    def __init__(
        self,
        *,
        id: str,
        kind: str,
        title: str,
        exception: str,
        section: str,
        cause: str,
        fix: str,
        details: tuple[str, ...],
        hints: tuple[Hint, ...],
        causes: tuple[Cause, ...],
        related: tuple[str, ...],
        wordings: tuple[Wording, ...],
        retired: Retirement | None = None,
        needs: str | None = None,
        docs: tuple[str, ...] = (),
    ) -> None:
        self.id = id
        self.kind = kind  # "error" (raises or warns) or "pitfall" (silent)
        self.title = title
        self.exception = exception
        self.section = section
        self.cause = cause
        self.fix = fix
        self.details = details
        self.hints = hints
        self.causes = causes  # most common first
        self.related = related
        self.wordings = wordings
        self.retired = retired
        self.needs = needs  # hardware the repro needs ("cuda"), or None: any machine
        self.docs = docs  # the PyTorch documentation that explains the mechanism
        #: By language: the record's [zh_CN] table, checked (see :mod:`.translations`).
        self.translations: dict[str, Translation] = {}

    def __repr__(self) -> str:
        return f"Entry({self.id!r})"

    @property
    def path(self) -> str:
        """The entry's page, relative to the site root."""
        return f"{PAGES_DIR}/{self.section}/{self.id}.html"

    @property
    def is_pitfall(self) -> bool:
        return self.kind == "pitfall"

    @property
    def current(self) -> Wording:
        """The wording the newest torch prints (for a retired entry, the last one it printed)."""
        if not self.wordings:
            raise ValueError(f"{self.id} is a pitfall: it has no message")
        own = [w for w in self.wordings if w.exception == self.exception]
        return next((w for w in own if w.releases.current), own[0] if own else self.wordings[0])

    def wording(self, variant: str) -> Wording:
        return next(w for w in self.wordings if w.variant == variant)

    def text(self, language: str, *, fallback: bool = False) -> Localized:
        """The entry's texts in ``language`` ("en" or "zh_CN"); with ``fallback``, English
        stands in for a text not yet translated (see :class:`Localized`)."""
        return Localized(self, language, fallback=fallback)


def english_texts(entry: Entry) -> dict[str, str]:
    """Every text of ``entry`` a translation translates, by key."""
    texts = {"title": entry.title, "cause": entry.cause, "fix": entry.fix}
    for n, sentence in enumerate(entry.details):
        texts[f"details.{n}"] = sentence
    for cause in entry.causes:
        texts[f"common_cause.{cause.id}.text"] = cause.text
        texts[f"common_cause.{cause.id}.fix"] = cause.fix
    for hint in entry.hints:
        texts[f"hint.{hint_key(hint.field, hint.prefix)}"] = hint.text
    for wording in entry.wordings:
        if wording.note:
            texts[f"wording.{wording.variant}.note"] = wording.note
    return texts


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
        return tuple(
            Cause(
                cause.id,
                self._get(f"common_cause.{cause.id}.text", cause.text),
                self._get(f"common_cause.{cause.id}.fix", cause.fix),
                cause.sources,
                cause.releases,
            )
            for cause in self.entry.causes
        )

    @property
    def hints(self) -> tuple[Hint, ...]:
        hints = []
        for hint in self.entry.hints:
            key = f"hint.{hint_key(hint.field, hint.prefix)}"
            hints.append(Hint(hint.field, hint.prefix, self._get(key, hint.text)))
        return tuple(hints)

    def note(self, variant: str) -> str:
        """The note of the wording ``variant`` ("" when it has none)."""
        english = self.entry.wording(variant).note
        return self._get(f"wording.{variant}.note", english) if english else ""


class Catalog:
    """Every entry, ordered by id."""

    def __init__(self, entries: list[Entry]) -> None:
        self._entries = {entry.id: entry for entry in entries}

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def __getitem__(self, entry_id: str) -> Entry:
        return self._entries[entry_id]

    @property
    def ids(self) -> list[str]:
        return list(self._entries)


def load(directory: str | None = None, *, use_cache: bool = True) -> Catalog:
    """Load and check every record in ``directory`` (the packaged entries by default)."""
    blobs = _read_records(directory or ENTRIES_DIR)
    checksum = _checksum(blobs)
    cache = _cache_file(checksum) if use_cache else None
    if cache:
        catalog = _from_cache(cache, checksum, [stem for stem, _ in blobs])
        if catalog is not None:
            return catalog
    records = {stem: _parse_toml(stem, blob) for stem, blob in blobs}
    catalog = _build(records)  # only records that pass every check are cached
    if cache:
        anchors = {entry.id: [w.anchor for w in entry.wordings] for entry in catalog}
        _write_cache(cache, checksum, {"records": records, "anchors": anchors})
    return catalog


def _read_records(directory: str) -> list[tuple[str, bytes]]:
    """``(id, bytes)`` of every record; hidden files (an editor's ``.#x.toml`` lock, say) and
    anything but a regular file are not records, and must not stop every command."""
    blobs = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.startswith(".") or not name.endswith(".toml") or not os.path.isfile(path):
            continue
        with open(path, "rb") as handle:
            blobs.append((name[: -len(".toml")], handle.read()))
    return blobs


def _checksum(blobs: list[tuple[str, bytes]]) -> str:
    crc = zlib.crc32(f"schema {_SCHEMA} python {sys.version_info[:2]}".encode())
    size = 0
    for stem, blob in blobs:
        crc = zlib.crc32(blob, zlib.crc32(stem.encode() + b"\0", crc))
        size += len(blob)
    return f"{crc:08x}-{size:x}-{len(blobs)}"


# The cache -----------------------------------------------------------------------------------
# A cache file is ``_MAGIC``, the CRC-32 of the payload, then the payload: the marshalled
# records. Anything wrong with it (a bit flipped, a truncated write, a file another user planted)
# costs one parse of the TOML, never a failure or a wrong answer.

_MAGIC = b"autograd-errors catalog cache\n"
_CACHE_PREFIX, _CACHE_SUFFIX = "catalog-", ".marshal"


def _cache_root() -> str | None:
    """Where the cache lives: ``$AUTOGRAD_ERRORS_CACHE_DIR`` (empty: no cache), else
    ``$XDG_CACHE_HOME/autograd-errors`` (only if absolute, as the XDG spec says), else
    ``~/.cache/autograd-errors`` (only with a real home directory)."""
    root = os.environ.get("AUTOGRAD_ERRORS_CACHE_DIR")
    if root is not None:
        return root or None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home) or home == os.sep:
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "autograd-errors")


def _cache_file(checksum: str) -> str | None:
    root = _cache_root()
    return os.path.join(root, f"{_CACHE_PREFIX}{checksum}{_CACHE_SUFFIX}") if root else None


def _trusted(status: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else: a cache file another user could write
    would let them choose what ``explain`` tells you."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - Windows has no owner to compare
        return True
    return status.st_uid == getuid() and not status.st_mode & 0o022


def _from_cache(cache: str, checksum: str, stems: list[str]) -> Catalog | None:
    try:
        if not _trusted(os.lstat(os.path.dirname(cache))):
            return None
        descriptor = os.open(cache, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(descriptor, "rb") as handle:
            if not _trusted(os.fstat(handle.fileno())):
                return None
            blob = handle.read()
    except OSError:
        return None
    header = len(_MAGIC) + 4
    if blob[: len(_MAGIC)] != _MAGIC or len(blob) < header:
        return None
    payload = blob[header:]
    if zlib.crc32(payload) != int.from_bytes(blob[len(_MAGIC) : header], "big"):
        return None
    try:
        data = marshal.loads(payload)
        if data["checksum"] != checksum or list(data["records"]) != stems:
            return None
        return _build(data["records"], data["anchors"])
    except Exception:  # noqa: BLE001 - whatever is wrong with a cache, the TOML is the truth
        return None


def _write_cache(cache: str, checksum: str, data: dict[str, Any]) -> None:
    """Write the cache atomically, and remove the files of earlier catalogs."""
    payload = marshal.dumps({"checksum": checksum, **data})
    directory = os.path.dirname(cache)
    temporary = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not _trusted(os.lstat(directory)):
            return
        with open(temporary, "wb") as handle:
            handle.write(_MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload)
        os.replace(temporary, cache)
        for name in os.listdir(directory):
            if name.startswith(_CACHE_PREFIX) and name != os.path.basename(cache):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, name))
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _parse_toml(stem: str, blob: bytes) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CatalogError(f"{stem}.toml: {error}") from None


_ENTRY_KEYS = {
    "kind": str,
    "title": str,
    "exception": str,
    "section": str,
    "cause": str,
    "fix": str,
    "details": list,
    "related": list,
    "docs": list,
    "wording": list,
    "hint": list,
    "common_cause": list,
    "retired": dict,
    "needs": str,
    **{language: dict for language in TRANSLATED},
}
#: What an entry's repro may need beyond a CPU (``needs = "cuda"``).
NEEDS = ("cuda",)
_REQUIRED = {"title", "exception", "section", "cause", "fix", "wording"}
#: A pitfall raises nothing: it has no exception and no wordings, only its demonstration.
_REQUIRED_FOR_PITFALL = {"title", "section", "cause", "fix"}
KINDS = ("error", "pitfall")
#: Where an entry's ``docs`` links may point: PyTorch's own documentation.
DOCS_PREFIXES = ("https://docs.pytorch.org/", "https://pytorch.org/")
_WORDING_KEYS = {
    "variant": str,
    "message": str,
    "exception": str,
    "since": str,
    "until": str,
    "source": str,
    "note": str,
    "example": str,
    "form": str,
}
_HINT_KEYS = {"field": str, "prefix": str, "text": str}
_CAUSE_KEYS = {
    "id": str,
    "text": str,
    "fix": str,
    "sources": list,
    "since": str,
    "until": str,
}
_RETIRED_KEYS = {"last_release": str, "replaced_by": str}


def form_overlaps(entry: Entry) -> list[str]:
    """Wordings of one form whose release ranges overlap: one release, two versions of one
    message, which cannot be."""
    problems = []
    by_form: dict[str, list[Wording]] = {}
    for wording in entry.wordings:
        by_form.setdefault(wording.form, []).append(wording)
    for form, wordings in by_form.items():
        for i, first in enumerate(wordings):
            for second in wordings[i + 1 :]:
                if first.releases.overlaps(second.releases):
                    problems.append(
                        f"{entry.id}.toml: wordings {first.variant!r} and {second.variant!r} of "
                        f"form {form!r} claim the same releases"
                    )
    return problems


def _build(
    records: dict[str, dict[str, Any]], anchors: dict[str, list[str]] | None = None
) -> Catalog:
    """Entries from parsed records; ``anchors``, from a cache, spare parsing their templates."""
    entries = [_entry(stem, record, (anchors or {}).get(stem)) for stem, record in records.items()]
    known = {entry.id for entry in entries}
    for entry in entries:
        overlapping = form_overlaps(entry)
        if overlapping:
            raise CatalogError(overlapping[0])
        for other in entry.related:
            if other not in known:
                raise CatalogError(f"{entry.id}.toml: related: no entry {other!r}")
            if other == entry.id:
                raise CatalogError(f"{entry.id}.toml: related: an entry is not related to itself")
    entries.sort(key=lambda entry: entry.id)
    return Catalog(entries)


def _checked(
    where: str, table: dict[str, Any], keys: Mapping[str, type], required: set[str]
) -> None:
    for key, value in table.items():
        if key not in keys:
            raise CatalogError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(keys))})")
        if not isinstance(value, keys[key]):
            raise CatalogError(f"{where}: {key} must be a {keys[key].__name__}")
    missing = required - table.keys()
    if missing:
        raise CatalogError(f"{where}: missing {', '.join(sorted(missing))}")


def _entry(stem: str, record: dict[str, Any], anchors: list[str] | None = None) -> Entry:
    where = f"{stem}.toml"
    if not stem or not set(stem) <= _ID_CHARS or "--" in stem or stem[0] == "-" or stem[-1] == "-":
        raise CatalogError(f"{where}: an entry id is lower-case words joined by hyphens")
    kind = record.get("kind", "error")
    if kind not in KINDS:
        raise CatalogError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if kind == "pitfall":
        _checked(where, record, _ENTRY_KEYS, _REQUIRED_FOR_PITFALL)
        for key in ("exception", "wording", "retired"):
            if key in record:
                raise CatalogError(f"{where}: a pitfall raises nothing, so it has no {key}")
        return _entry_from(stem, record, kind, exception="", wordings=(), retired=None)
    _checked(where, record, _ENTRY_KEYS, _REQUIRED)
    exception = record["exception"]
    if not (exception.isidentifier() and exception[0].isupper()) or not exception.endswith(
        _EXCEPTION_ENDINGS
    ):
        raise CatalogError(f"{where}: exception {exception!r} is not an exception class name")
    wordings = tuple(
        _wording(f"{where}: wording {n + 1}", exception, table, anchors[n] if anchors else None)
        for n, table in enumerate(record["wording"])
    )
    if not wordings:
        raise CatalogError(f"{where}: an entry needs at least one wording")
    variants = [w.variant for w in wordings]
    if len(set(variants)) != len(variants):
        raise CatalogError(f"{where}: wording variants must be unique, got {variants}")
    retired = None
    if "retired" in record:
        _checked(f"{where}: retired", record["retired"], _RETIRED_KEYS, set(_RETIRED_KEYS))
        retired = Retirement(**record["retired"])
        if any(w.releases.current for w in wordings):
            raise CatalogError(f"{where}: a retired entry cannot have a current wording")
    elif not any(w.releases.current and w.exception == exception for w in wordings):
        raise CatalogError(f"{where}: no current {exception} wording (no wording without until)")
    return _entry_from(stem, record, kind, exception=exception, wordings=wordings, retired=retired)


def _entry_from(
    stem: str,
    record: dict[str, Any],
    kind: str,
    *,
    exception: str,
    wordings: tuple[Wording, ...],
    retired: Retirement | None,
) -> Entry:
    where = f"{stem}.toml"
    hints = []
    for n, table in enumerate(record.get("hint", [])):
        _checked(f"{where}: hint {n + 1}", table, _HINT_KEYS, set(_HINT_KEYS))
        hints.append(Hint(**table))
    causes: list[Cause] = []
    for n, table in enumerate(record.get("common_cause", [])):
        _checked(f"{where}: common_cause {n + 1}", table, _CAUSE_KEYS, {"id", "text", "fix"})
        if not all(isinstance(item, str) for item in table.get("sources", [])):
            raise CatalogError(f"{where}: common_cause {n + 1}: sources must be a list of strings")
        cause_id = table["id"]
        if not set(cause_id) <= _ID_CHARS or any(c.id == cause_id for c in causes):
            raise CatalogError(
                f"{where}: common_cause {n + 1}: id {cause_id!r} must be unique lower-case words "
                "joined by hyphens"
            )
        try:
            releases = ReleaseRange(table.get("since"), table.get("until"))
        except ValueError as error:
            raise CatalogError(f"{where}: common_cause {n + 1}: {error}") from None
        causes.append(
            Cause(
                cause_id,
                table["text"].strip(),
                table["fix"].strip(),
                tuple(table.get("sources", [])),
                releases,
            )
        )
    for name, items in (
        ("details", record.get("details", [])),
        ("related", record.get("related", [])),
    ):
        if not all(isinstance(item, str) for item in items):
            raise CatalogError(f"{where}: {name} must be a list of strings")
    docs = record.get("docs", [])
    for link in docs:
        if not (isinstance(link, str) and link.startswith(DOCS_PREFIXES)) or link != "".join(
            link.split()
        ):
            raise CatalogError(
                f"{where}: docs: {link!r} is not a link to PyTorch's documentation "
                f"({' or '.join(p + '...' for p in DOCS_PREFIXES)})"
            )
    if len(set(docs)) != len(docs):
        raise CatalogError(f"{where}: docs: a link is listed twice")
    needs = record.get("needs")
    if needs is not None and needs not in NEEDS:
        raise CatalogError(f"{where}: needs {needs!r} is not one of {', '.join(NEEDS)}")
    entry = Entry(
        id=stem,
        kind=kind,
        title=record["title"],
        exception=exception,
        section=record["section"],
        cause=record["cause"].strip(),
        fix=record["fix"].strip(),
        details=tuple(record.get("details", [])),
        hints=tuple(hints),
        causes=tuple(causes),
        related=tuple(record.get("related", [])),
        wordings=wordings,
        retired=retired,
        needs=needs,
        docs=tuple(docs),
    )
    english = english_texts(entry)
    for language in TRANSLATED:
        if language in record:
            try:
                translation = _parse_translation(language, record[language], english)
            except TranslationError as error:
                raise CatalogError(f"{where}: {error}") from None
            entry.translations[language] = translation
    return entry


def _wording(
    where: str, exception: str, table: dict[str, Any], anchor: str | None = None
) -> Wording:
    _checked(where, table, _WORDING_KEYS, {"variant", "message", "source"})
    try:
        releases = ReleaseRange(table.get("since"), table.get("until"))
    except ValueError as error:
        raise CatalogError(f"{where}: {error}") from None
    try:
        return Wording(
            variant=table["variant"],
            message=table["message"],
            exception=table.get("exception", exception),
            releases=releases,
            source=table["source"],
            note=table.get("note", ""),
            example=table.get("example", ""),
            form=table.get("form", "main"),
            anchor=anchor,
        )
    except TemplateError as error:
        raise CatalogError(f"{where}: {error}") from None
