"""The catalog: one TOML record per entry in ``autograd_errors/entries/``, loaded and checked;
and its other records (``catalog/*.toml``).

Owns: the record model (:mod:`.model`), the rules a record must follow as it loads
(:mod:`.schema`), the cache of parsed records (:mod:`.cache`), loading (:mod:`.loader`), torch
release numbers and ranges (:mod:`.releases`), the records' translations (:mod:`.translations`)
and their stamps (:mod:`.stamps`).

May import: the standard library and :mod:`autograd_errors.messages` (a wording's message is a
template). It is on the explain path: nothing here imports :mod:`re`, :mod:`typing`, ``json``
or ``tomllib`` at import time (``tomllib`` only when the cache misses).

This module only hands on the names the rest of the package uses.
"""

from autograd_errors.catalog.loader import ENTRIES_DIR, load
from autograd_errors.catalog.model import (
    PAGES_DIR,
    Catalog,
    Cause,
    Entry,
    Hint,
    Localized,
    NotAutogradKind,
    Retirement,
    Signs,
    Wording,
    english_texts,
)
from autograd_errors.catalog.schema import DOCS_PREFIXES, KINDS, NEEDS, CatalogError, form_overlaps

__all__ = [
    "DOCS_PREFIXES",
    "ENTRIES_DIR",
    "KINDS",
    "NEEDS",
    "PAGES_DIR",
    "Catalog",
    "CatalogError",
    "Cause",
    "Entry",
    "Hint",
    "Localized",
    "NotAutogradKind",
    "Retirement",
    "Signs",
    "SymptomError",
    "SymptomMessage",
    "Wording",
    "english_texts",
    "form_overlaps",
    "load",
]


def __getattr__(name: str) -> object:
    """The symptom records, imported when asked for: an exact match's entry needs none."""
    if name in ("SymptomError", "SymptomMessage"):
        from autograd_errors.catalog import symptoms

        return getattr(symptoms, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
