"""``translations status|stamp [ID ...]``: which translations are missing or stale, and stamping
them up to date (see :mod:`autograd_errors.catalog.translations`)."""

from __future__ import annotations

import os

from autograd_errors.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, print_text, refuse
from autograd_errors.cli.table import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Entry
    from autograd_errors.cli.table import Options

ACTIONS = ("status", "stamp")


def translations(options: Options) -> int:
    """``status``: 0 when every translation is there and up to date, else 1 (one line per
    missing or stale text). ``stamp [ID ...]``: record the hashes of the English texts the
    translations of these entries (default: all) were made from."""
    from autograd_errors import catalog

    action, wanted = options.args[0], options.args[1:]
    if action not in ACTIONS:
        raise UsageError(f"translations: unknown action {action!r} (actions: status, stamp)")
    directory = options.entries or catalog.ENTRIES_DIR
    if not os.path.isdir(directory):
        raise UsageError(f"translations: no directory {directory!r}", show_usage=False)
    try:
        loaded = catalog.load(directory, use_cache=False)
    except catalog.CatalogError as error:
        return refuse("translations", str(error))
    unknown = [entry_id for entry_id in wanted if entry_id not in loaded]
    if unknown:
        raise UsageError(f"translations: no entry {unknown[0]!r}", show_usage=False)
    entries = [loaded[entry_id] for entry_id in wanted] if wanted else list(loaded)
    if action == "status":
        return _status(entries)
    return _stamp(entries, directory)


def _status(entries: list[Entry]) -> int:
    from autograd_errors.catalog import stamps, translations

    lines: list[str] = []
    for language in translations.TRANSLATED:
        lines += [f"{language} {line}" for line in stamps.status_lines(entries, language)]
    if not lines:
        return print_text(f"{len(entries)} entries: every translation is up to date", EXIT_OK)
    lines.append(f"{len(lines)} texts to translate or to review, then stamp")
    return print_text("\n".join(lines), EXIT_NO_MATCH)


def _stamp(entries: list[Entry], directory: str) -> int:
    from autograd_errors.catalog import stamps, translations

    stamped = 0
    for entry in entries:
        path = os.path.join(directory, f"{entry.id}.toml")
        with open(path, encoding="utf-8", newline="") as handle:
            record = handle.read()
        updated = record
        for language in translations.TRANSLATED:
            if language in entry.translations:
                try:
                    updated = stamps.stamped(updated, entry, language)
                except translations.TranslationError as error:
                    refuse("translations", f"{entry.id}.toml: {error}")
                    return EXIT_USAGE
        if updated != record:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(updated)
            stamped += 1
    return print_text(f"stamped {stamped} of {len(entries)} entries", EXIT_OK)
