"""The coverage page: how much of what torch can raise in the autograd area the catalog explains.

``.. autograd-coverage::``
    "Of N messages in that area, K have entries, and those cover X% of the threads counted",
    then every message of the inventory: the entries covering it (or none), the public threads
    counted as quoting it, and where the reference release raises it.

The data is ``data/inventory/messages.json``, written by ``tools/inventory.py`` (its docstring
says how the messages, their coverage and their counts are found); the page is made from it at
each build. ``autograd_errors_inventory`` in ``conf.py`` names another file, relative to the
configuration directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from autograd_errors import catalog as catalog_module
from autograd_errors.rendering.strings import ui

INVENTORY_SETTING = "autograd_errors_inventory"
DEFAULT_INVENTORY = "data/inventory/messages.json"
#: A message's template is shown up to this many characters (the full text is in the data).
SHOWN_CHARS = 160


class Summary:
    """The figures of the page's first sentence."""

    __slots__ = ("counted_threads", "covered", "covered_threads", "entries", "messages")

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.messages = len(records)
        self.covered = sum(1 for r in records if r["covered_by"])
        self.entries = len({c["entry"] for r in records for c in r["covered_by"]})
        # A thread may quote several messages (a message's C++ pieces, two messages in one
        # traceback): the share is of the counts, message by message, as the data keeps them.
        self.counted_threads: int = sum(int(r["threads"] or 0) for r in records)
        self.covered_threads: int = sum(int(r["threads"] or 0) for r in records if r["covered_by"])

    @property
    def percent(self) -> int:
        if not self.counted_threads:
            return 0
        return round(100 * self.covered_threads / self.counted_threads)


def read_inventory(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def ordered(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Most threads first; messages nobody counted last; then by where they are raised."""
    return sorted(
        records,
        key=lambda r: (r["threads"] is None, -(r["threads"] or 0), location(r), r["id"]),
    )


def location(record: dict[str, Any]) -> str:
    """Where the first release of the inventory that raises the message raises it."""
    release = min(record["locations"], key=_release_key)
    return str(record["locations"][release][0])


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


class CoverageDirective(SphinxDirective):
    has_content = False

    @property
    def language(self) -> str:
        language = getattr(self.config, "language", None) or "en"
        return "zh_CN" if language.startswith("zh") else "en"

    def run(self) -> list[nodes.Node]:
        path = Path(getattr(self.config, INVENTORY_SETTING))
        self.env.note_dependency(str(path))
        inventory = read_inventory(path)
        records: list[dict[str, Any]] = inventory["messages"]
        summary = Summary(records)
        releases = sorted(inventory["releases"], key=_release_key)
        language = self.language
        made: list[nodes.Node] = [
            nodes.paragraph(
                text=ui(
                    "coverage.summary",
                    language,
                    messages=summary.messages,
                    releases="torch " + ", ".join(releases),
                    covered=summary.covered,
                    entries=summary.entries,
                    percent=summary.percent,
                    threads=summary.counted_threads,
                    date=inventory.get("counted", {}).get("date") or "?",
                ),
                classes=["autograd-coverage-summary"],
            ),
            self._table(ordered(records), releases[0]),
        ]
        for made_node in made:
            for element in made_node.findall(nodes.TextElement):
                # Written in the build's language already: not for gettext (see nodes.py).
                if not isinstance(element, nodes.Inline):
                    element["translatable"] = False
        return made

    def _table(self, records: list[dict[str, Any]], reference: str) -> nodes.table:
        language = self.language
        entries = {entry.id: entry for entry in catalog_module.load()}
        headers = [ui(f"coverage.{column}", language) for column in _COLUMNS]
        table = nodes.table(classes=["autograd-coverage-table"])
        group = nodes.tgroup(cols=len(headers))
        table += group
        for width in (60, 15, 8, 27):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += _row([nodes.Text(header) for header in headers])
        body = nodes.tbody()
        group += body
        for record in records:
            template = record["template"].replace("\n", " ")
            if len(template) > SHOWN_CHARS:
                template = template[: SHOWN_CHARS - 1] + "\u2026"
            message = nodes.literal(text=template)
            covering = nodes.inline()
            ids = sorted({c["entry"] for c in record["covered_by"]})
            for index, entry_id in enumerate(ids):
                if index:
                    covering += nodes.Text(", ")
                covering += _entry_link(entries, entry_id)
            if not ids:
                covering += nodes.Text(ui("coverage.none", language))
            threads = "\u2013" if record["threads"] is None else str(record["threads"])
            where = location(record)
            if reference not in record["locations"]:
                where += " " + ui("coverage.only", language, release=min(record["locations"]))
            body += _row([message, covering, nodes.Text(threads), nodes.Text(where)])
        return table


_COLUMNS = ("message", "entry", "threads", "location")


def _entry_link(entries: dict[str, catalog_module.Entry], entry_id: str) -> nodes.Node:
    entry = entries.get(entry_id)
    if entry is None:  # the data predates a renamed entry: show the id it names
        return nodes.Text(entry_id)
    link = addnodes.pending_xref(
        "",
        refdomain="std",
        reftype="doc",
        reftarget=f"/{entry.path.removesuffix('.html')}",
        refexplicit=True,
        refwarn=True,
    )
    link += nodes.inline(text=entry_id)
    return link


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += cell
        entry += paragraph
        row += entry
    return row


def _resolve_inventory(app: Sphinx, config: Any) -> None:
    """The inventory's path, relative to the configuration directory, made absolute once."""
    setattr(config, INVENTORY_SETTING, str(Path(app.confdir) / getattr(config, INVENTORY_SETTING)))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value(INVENTORY_SETTING, DEFAULT_INVENTORY, "env", types=frozenset({str}))
    app.connect("config-inited", _resolve_inventory)
    app.add_directive("autograd-coverage", CoverageDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
