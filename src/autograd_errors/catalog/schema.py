"""The catalog's rules: TOML records made into entries, each checked as it loads.

A record that breaks a rule is refused with one line naming its file and the key
(:class:`CatalogError`): an id of lower-case words joined by hyphens, the known keys with their
types, the required ones, an exception class name, at least one wording and a current one (none
for a retired entry), unique variants and cause ids, release ranges that do not run backwards
nor overlap within a form, related entries that exist, links to PyTorch's documentation, a
translation whose keys and placeholders are the English ones (:mod:`.translations`). Rules that
need more than the record (its script, the recordings) are verification's
(:mod:`autograd_errors.verification.consistency`).
"""

from __future__ import annotations

from autograd_errors.catalog.model import (
    Catalog,
    Cause,
    Entry,
    Hint,
    NotAutogradKind,
    Retirement,
    Signs,
    Wording,
    english_texts,
)
from autograd_errors.catalog.releases import ReleaseRange
from autograd_errors.catalog.translations import TRANSLATED, TranslationError, placeholders
from autograd_errors.catalog.translations import parse as _parse_translation
from autograd_errors.messages.templates import TemplateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from autograd_errors.catalog.symptoms import SymptomMessage

_ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")
_EXCEPTION_ENDINGS = ("Error", "Warning", "Exception")


class CatalogError(ValueError):
    """A record that breaks the catalog's rules; the message names the file and the key."""


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
    "symptoms": list,
    "symptom_error": list,
    "symptom_message": list,
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
    "context": bool,
}
_HINT_KEYS = {"field": str, "prefix": str, "text": str}
_CAUSE_KEYS = {
    "id": str,
    "text": str,
    "fix": str,
    "sources": list,
    "since": str,
    "until": str,
    "signs": dict,
}
_SIGNS_KEYS = {
    "code": list,
    "files": list,
    "fields": dict,
    "forms": list,
    "required": bool,
    "unseen": str,
}
_RETIRED_KEYS = {"last_release": str, "replaced_by": str}
_SYMPTOM_ERROR_KEYS = {"exception": str, "contains": list, "code": str}
_SYMPTOM_MESSAGE_KEYS = {
    "program": str,
    "source": str,
    "exception": str,
    "contains": list,
    "pattern": str,
}
#: What a symptom phrase needs: enough literal text to be shown as a message.
_MIN_SYMPTOM_CHARS = 6


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


def build(
    records: dict[str, dict[str, Any]],
    anchors: dict[str, list[str]] | None = None,
    others: dict[str, dict[str, Any]] | None = None,
) -> Catalog:
    """The catalog from parsed records; ``anchors``, from a cache, spare parsing their
    templates; ``others``: the parsed files of :data:`OTHER_RECORDS`, by name."""
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
    others = others or {}
    kinds = not_autograd_kinds(others.get(NOT_AUTOGRAD, {}))
    return Catalog(entries, kinds, docs_pages(others.get(DOCS_PAGES, {})))


def build_lazily(
    record: Callable[[str], dict[str, Any]],
    anchors: dict[str, list[str]],
    searched: dict[str, list[str]],
    others: dict[str, dict[str, Any]],
    fallback: Callable[[str], dict[str, Any]],
) -> Catalog:
    """The catalog of records that passed :func:`build` before (the cache's), each entry built
    when first used from ``record(id)``; ``anchors``: each entry's wordings' anchors, one per
    wording; ``searched``: what a paste of an entry's messages holds (the anchors, and each with
    its capital lowered). A record that does not build is read again from ``fallback(id)``, its
    TOML: the TOML is the truth."""

    def make(stem: str) -> Entry:
        try:
            return _entry(stem, record(stem), anchors[stem])
        except Exception:  # noqa: BLE001 - whatever is wrong with a cached record
            return _entry(stem, fallback(stem))

    kinds = not_autograd_kinds(others.get(NOT_AUTOGRAD, {}))
    return Catalog.built_lazily(make, searched, kinds, docs_pages(others.get(DOCS_PAGES, {})))


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


def _symptom_message(at: str, table: dict[str, Any]) -> SymptomMessage:
    """A ``[[symptom_message]]``: its words (``contains``) or its ``pattern``, not both."""
    from autograd_errors.catalog.symptoms import SymptomMessage

    _checked(at, table, _SYMPTOM_MESSAGE_KEYS, {"program", "source"})
    if not table["source"].startswith("https://"):
        raise CatalogError(f"{at}: source must be an https:// link to where it is printed")
    contains = table.get("contains", [])
    pattern = table.get("pattern", "")
    if bool(contains) == bool(pattern):
        raise CatalogError(f"{at}: give its words (contains) or a pattern, one of them")
    if not all(isinstance(c, str) and len(c.strip()) >= _MIN_SYMPTOM_CHARS for c in contains):
        raise CatalogError(f"{at}: contains must be a list of phrases")
    if pattern:
        import re

        try:
            re.compile(pattern)
        except re.error as error:
            raise CatalogError(f"{at}: pattern: {error}") from None
    return SymptomMessage(
        table["program"], table["source"], table.get("exception", ""), tuple(contains), pattern
    )


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
        signs = _signs(f"{where}: common_cause {cause_id!r}: signs", table.get("signs", {}))
        causes.append(
            Cause(
                cause_id,
                table["text"].strip(),
                table["fix"].strip(),
                tuple(table.get("sources", [])),
                releases,
                signs,
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
    symptoms = record.get("symptoms", [])
    for symptom in symptoms:
        if not isinstance(symptom, str) or len(symptom.strip()) < _MIN_SYMPTOM_CHARS:
            raise CatalogError(f"{where}: symptoms: {symptom!r} is not a phrase")
        if "{" in symptom or "}" in symptom:
            raise CatalogError(f"{where}: symptoms: {symptom!r} holds a brace")
    symptom_errors = []
    for n, table in enumerate(record.get("symptom_error", [])):
        # Imported by the first record that has one, not at explain's start.
        from autograd_errors.catalog.symptoms import SymptomError

        at = f"{where}: symptom_error {n + 1}"
        _checked(at, table, _SYMPTOM_ERROR_KEYS, set(_SYMPTOM_ERROR_KEYS))
        contains = table["contains"]
        if not contains or not all(isinstance(c, str) and c.strip() for c in contains):
            raise CatalogError(f"{at}: contains must be a list of phrases")
        if not table["code"].startswith(".") or not table["code"][1:].isidentifier():
            raise CatalogError(f"{at}: code must be an attribute access, like '.grad'")
        symptom_errors.append(SymptomError(table["exception"], tuple(contains), table["code"]))
    symptom_messages = [
        _symptom_message(f"{where}: symptom_message {n + 1}", table)
        for n, table in enumerate(record.get("symptom_message", []))
    ]
    if symptom_messages and kind != "pitfall":
        raise CatalogError(f"{where}: symptom_message: only a pitfall has another program's words")
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
        symptoms=tuple(symptoms),
        symptom_errors=tuple(symptom_errors),
        symptom_messages=tuple(symptom_messages),
    )
    _check_signs(where, entry)
    english = english_texts(entry)
    for language in TRANSLATED:
        if language in record:
            try:
                translation = _parse_translation(language, record[language], english)
            except TranslationError as error:
                raise CatalogError(f"{where}: {error}") from None
            entry.translations[language] = translation
    return entry


def _signs(where: str, table: dict[str, Any]) -> Signs:
    """A cause's ``signs`` table: lists of non-empty strings, ``fields`` a table of them."""
    _checked(where, table, _SIGNS_KEYS, set())
    lists = {key: table.get(key, []) for key in ("code", "files", "forms")}
    fields = table.get("fields", {})
    for name, values in [*lists.items(), *((f"fields.{k}", v) for k, v in fields.items())]:
        if not isinstance(values, list) or not all(
            isinstance(v, str) and v.strip() for v in values
        ):
            raise CatalogError(f"{where}: {name} must be a list of non-empty strings")
        if len(set(values)) != len(values):
            raise CatalogError(f"{where}: {name} lists a sign twice")
    unseen = table.get("unseen", "").strip()
    if "unseen" in table and not unseen:
        raise CatalogError(f"{where}: unseen must say why no paste shows the cause")
    signs = Signs(
        lists["code"],
        lists["files"],
        fields,
        lists["forms"],
        table.get("required", False),
        unseen,
    )
    if signs.required and not signs:
        raise CatalogError(f"{where}: a required cause needs a sign to be shown by")
    if signs and unseen:
        raise CatalogError(f"{where}: a cause with signs is seen; unseen contradicts them")
    return signs


def _check_signs(where: str, entry: Entry) -> None:
    """A cause's forms are forms of its entry's wordings, its fields are fields they capture
    (``op`` where a wording captures a ``node``)."""
    if not any(cause.signs.forms or cause.signs.fields for cause in entry.causes):
        return
    forms = {wording.form for wording in entry.wordings}
    captured: set[str] = set()
    for wording in entry.wordings:  # from the message: parsing templates costs start-up
        names = {name.partition(":")[0] for name in placeholders(wording.message)}
        captured |= names | ({"op"} if "node" in names else set())
    for cause in entry.causes:
        at = f"{where}: common_cause {cause.id!r}: signs"
        for form in cause.signs.forms:
            if form not in forms:
                raise CatalogError(f"{at}: no wording of form {form!r}")
        for name in cause.signs.fields:
            if name not in captured:
                raise CatalogError(f"{at}: no wording captures a field {name!r}")


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
            context=table.get("context", False),
        )
    except TemplateError as error:
        raise CatalogError(f"{where}: {error}") from None


# The catalog's other records ---------------------------------------------------------------

#: The catalog's records that are not entries, in ``catalog/`` beside this module: the kinds of
#: error that are not autograd's, and the titles of the PyTorch documentation pages entries link
#: to (the names of their links on the entry pages).
NOT_AUTOGRAD, DOCS_PAGES = "not-autograd", "docs-pages"
OTHER_RECORDS = (NOT_AUTOGRAD, DOCS_PAGES)
_KIND_KEYS = {
    "name": str,
    "phrases": list,
    "hint": str,
    "url": str,
    **{language: dict for language in TRANSLATED},
}


def not_autograd_kinds(record: dict[str, Any]) -> list[NotAutogradKind]:
    """The ``[[kind]]`` tables of ``not-autograd.toml``, each with its hint's translations
    (``[kind.zh_CN] hint = "..."``)."""
    where = f"{NOT_AUTOGRAD}.toml"
    _checked(where, record, {"kind": list}, set())
    kinds: list[NotAutogradKind] = []
    for n, table in enumerate(record.get("kind", [])):
        at = f"{where}: kind {n + 1}"
        _checked(at, table, _KIND_KEYS, {"name", "phrases", "hint", "url"})
        phrases = table["phrases"]
        if not phrases or not all(isinstance(p, str) and p == p.lower() for p in phrases):
            raise CatalogError(f"{at}: phrases must be a list of lower-case strings")
        if any(kind.name == table["name"] for kind in kinds):
            raise CatalogError(f"{at}: the name {table['name']!r} is taken")
        hints = {"en": table["hint"]}
        for language in TRANSLATED:
            translated = table.get(language, {})
            if set(translated) - {"hint"} or not isinstance(translated.get("hint", ""), str):
                raise CatalogError(f"{at}: [{language}] holds a hint and nothing else")
            if "hint" in translated:
                hints[language] = " ".join(translated["hint"].split())
        kinds.append(NotAutogradKind(table["name"], phrases, hints, table["url"]))
    return kinds


def docs_pages(record: dict[str, Any]) -> dict[str, str]:
    """``docs-pages.toml``: a page's title by its path under ``docs/stable/``."""
    if not all(isinstance(title, str) for title in record.values()):
        raise CatalogError(f"{DOCS_PAGES}.toml: every title must be a string")
    return dict(record)
