"""``list`` and ``show ID``: the catalog's entries, as text or JSON; ``show --repro`` prints an
entry's gallery script, as the site's download gives it."""

from __future__ import annotations

import sys

from autograd_errors.cli.output import EXIT_OK, print_json, print_text
from autograd_errors.cli.table import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog
    from autograd_errors.cli.table import Options


def list_entries(options: Options) -> int:
    from autograd_errors.catalog import load
    from autograd_errors.rendering.urls import base_url

    entries = list(load())
    language = options.language
    if options.json:
        from autograd_errors.rendering.payloads import entry_json

        site = base_url(options.base_url)
        entries_json = [entry_json(entry, site, language) for entry in entries]
        return print_json({"entries": entries_json}, EXIT_OK)
    from autograd_errors.rendering.terminal import Style
    from autograd_errors.rendering.text import list_text

    return print_text(list_text(entries, Style.for_stream(sys.stdout), language), EXIT_OK)


def show(options: Options) -> int:
    from autograd_errors.catalog import load
    from autograd_errors.rendering.urls import base_url

    catalog = load()
    wanted = options.args[0]
    if wanted not in catalog:
        import difflib

        close = difflib.get_close_matches(wanted, catalog.ids, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; `list` shows every id"
        raise UsageError(f"no entry {wanted!r}{hint}", show_usage=False)
    entry = catalog[wanted]
    site, language = base_url(options.base_url), options.language
    if options.repro:
        if options.json:
            raise UsageError("--repro prints a script; it does not go with --json")
        return print_text(repro(entry.id, catalog, site), EXIT_OK)
    if options.json:
        from autograd_errors.rendering.payloads import entry_detail_json

        return print_json(entry_detail_json(entry, site, language), EXIT_OK)
    from autograd_errors.rendering.terminal import Style, text_width
    from autograd_errors.rendering.text import entry_text

    style, width = Style.for_stream(sys.stdout), text_width(sys.stdout)
    return print_text(entry_text(entry, site, style, width, language), EXIT_OK)


def repro(entry_id: str, catalog: Catalog, base_url: str) -> str:
    """The entry's gallery script, as bundled with the package (or beside it in a checkout),
    as the site's download gives it: with the entry's text where its page has directives."""
    from autograd_errors.verification import gallery
    from autograd_errors.verification.standalone import standalone

    for script in gallery.scripts():
        if script.entry_id == entry_id:
            with open(script.path, encoding="utf-8") as handle:
                return standalone(handle.read(), catalog, base_url).rstrip("\n")
    raise UsageError(f"no gallery script for {entry_id!r} in this installation", show_usage=False)
