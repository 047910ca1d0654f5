"""Sphinx glue: entry pages from the catalog, and a build that fails on drift.

While sphinx-gallery runs each gallery script, the verifier of :mod:`autograd_errors.verify`
observes it (``reset_example`` is sphinx-gallery's ``reset_modules`` hook, run before and after
every script). Each entry's verdict is stored beside its generated page; once the gallery is
built, any verdict but OK stops the build with the same report as ``check``.

sphinx-gallery skips scripts whose source did not change. A new torch release or a changed
catalog changes what a script must show, so both are part of a fingerprint; when it changes,
every script runs again.

Directives:

``.. autograd-entry:: ID``
    The top of an entry page: title, the message as torch printed it during this build, broken
    and fixed code side by side, cause, fix, and the ``explain`` command.
``.. autograd-entry-footer:: ID``
    The end of an entry page: the message's wordings across torch releases, related entries.
``.. autograd-index::``
    Every entry, by section, each listed by its message.
``.. autograd-matrix::``
    Every entry against every recorded torch release: the wording each release printed.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shlex
import textwrap
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from autograd_errors import __version__, gallery, observations, verify
from autograd_errors import catalog as catalog_module
from autograd_errors.catalog import Catalog, Entry

_STATE: dict[str, Any] = {"observers": {}}
_RESULT_SUFFIX = ".check.json"
_FINGERPRINT = ".autograd-errors-fingerprint"


def _catalog() -> Catalog:
    if "catalog" not in _STATE:
        _STATE["catalog"] = catalog_module.load(use_cache=False)
    return _STATE["catalog"]


def _result_file(srcdir: str | os.PathLike[str], entry: Entry) -> Path:
    """Where the build keeps an entry's verdict: beside its generated page."""
    return Path(srcdir) / Path(entry.path).with_suffix(_RESULT_SUFFIX)


# Verification during the gallery build ------------------------------------------------------


def reset_example(gallery_conf: dict[str, Any], fname: str, when: str) -> None:
    """sphinx-gallery's reset hook: a clean state before each script, a verdict after it."""
    if fname is None:
        return
    entry_id = Path(fname).stem
    if when == "before":
        verify.reset_torch_state()
        path = _script_path(gallery_conf, entry_id)
        observer = verify.Observer(path)
        _STATE["observers"][entry_id] = observer
        observer.start()
        return
    observer = _STATE["observers"].pop(entry_id, None)
    if observer is None:
        return
    observation = observer.stop()
    catalog = _catalog()
    if entry_id not in catalog:
        return
    entry = catalog[entry_id]
    result = verify.judge(entry, observation, catalog, verify.torch_version())
    target = _result_file(gallery_conf["src_dir"], entry)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result.as_dict(), indent=2), encoding="utf-8")


def _script_path(gallery_conf: dict[str, Any], entry_id: str) -> str:
    for script in gallery.scripts(_gallery_source(gallery_conf)):
        if script.entry_id == entry_id:
            return script.path
    raise ExtensionError(f"no gallery script for {entry_id!r}")


def _gallery_source(gallery_conf: dict[str, Any]) -> str:
    examples_dir = gallery_conf["examples_dirs"]
    if isinstance(examples_dir, list):
        (examples_dir,) = examples_dir
    return os.path.normpath(os.path.join(gallery_conf["src_dir"], examples_dir))


def fingerprint() -> str:
    """What a script's verdict depends on besides its own source."""
    digest = hashlib.sha256()
    digest.update(f"torch {verify.torch_version()} autograd-errors {__version__}".encode())
    for name in sorted(os.listdir(catalog_module.ENTRIES_DIR)):
        digest.update(name.encode())
        digest.update(Path(catalog_module.ENTRIES_DIR, name).read_bytes())
    for path in (verify.__file__, catalog_module.__file__, observations.__file__, __file__):
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def _invalidate_stale_runs(app: Sphinx) -> None:
    """Before sphinx-gallery runs: forget cached runs made with another torch or catalog."""
    pages = Path(app.srcdir) / catalog_module.PAGES_DIR
    stamp = pages / _FINGERPRINT
    current = fingerprint()
    if stamp.exists() and stamp.read_text() == current:
        return
    if pages.exists():
        for md5 in pages.rglob("*.md5"):
            md5.unlink()
        for result in pages.rglob(f"*{_RESULT_SUFFIX}"):
            result.unlink()
    pages.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current)


def _fail_on_bad_verdicts(app: Sphinx) -> None:
    """After sphinx-gallery ran: stop the build unless every entry is verified OK."""
    catalog = _catalog()
    problems = gallery.correspondence_problems(
        catalog, gallery.scripts(_gallery_source(app.config.sphinx_gallery_conf))
    )
    results = []
    for entry in catalog:
        stored = _result_file(app.srcdir, entry)
        if stored.exists():
            data = json.loads(stored.read_text(encoding="utf-8"))
            results.append(
                verify.Result(data["id"], data["status"], data["message"], data["detail"])
            )
        else:
            problems.append(f"{entry.id}: its gallery script was not run, so it is not verified")
    bad = [result for result in results if result.status not in verify.PASSING]
    if problems or bad:
        report = verify.report_text(results, verify.torch_version())
        raise ExtensionError(
            "entries failed verification against the installed torch:\n"
            + "\n".join(problems)
            + ("\n" if problems else "")
            + report
        )


# Directives ---------------------------------------------------------------------------------


def rst_code(text: str) -> str:
    """The catalog's prose as reStructuredText: its Markdown `code` becomes ``code``, and what
    reStructuredText would read as markup elsewhere (``*``, ``|``, a word ending in ``_``) is
    escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: all of it is text
        return _escape_markup(text).replace("`", "\\`")
    return "".join(
        _escape_markup(part) if i % 2 == 0 else f"``{part}``" for i, part in enumerate(parts)
    )


def _escape_markup(text: str) -> str:
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")
    return "".join(
        "\\_" if char == "_" and (i + 1 == len(text) or not text[i + 1].isalnum()) else char
        for i, char in enumerate(text)
    )


def _indent(text: str, spaces: int) -> list[str]:
    return [(" " * spaces + line) if line else "" for line in text.splitlines()]


def tagged_lines(path: str, tag: str) -> str:
    """The script's lines that end with ``# <tag>``, tag removed, dedented."""
    picked = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            code, _, comment = line.rstrip("\n").partition("  # ")
            if comment.strip() == tag:
                picked.append(code)
    return textwrap.dedent("\n".join(picked))


class _EntryDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def entry(self) -> Entry:
        catalog = _catalog()
        entry_id = self.arguments[0]
        if entry_id not in catalog:
            raise self.error(f"no catalog entry {entry_id!r}")
        self.env.note_dependency(os.path.join(catalog_module.ENTRIES_DIR, f"{entry_id}.toml"))
        return catalog[entry_id]

    def parse(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.section()  # a section may hold sections
        source = StringList(lines, source=f"autograd-entry {self.arguments[0]}")
        nested_parse_with_titles(self.state, source, container)
        return container.children


class EntryDirective(_EntryDirective):
    """The top of an entry page."""

    def run(self) -> list[nodes.Node]:
        entry = self.entry()
        result = self._verdict(entry)
        lines = [".. rst-class:: lead", "", f"**{rst_code(entry.title)}**", ""]
        if entry.is_pitfall:
            lines += [
                ".. admonition:: A silent pitfall",
                "   :class: autograd-pitfall",
                "",
                "   Torch raises nothing here: the code runs, and the result is not what it seems.",
                "   The demonstration below asserts the behaviour on the installed torch.",
                "",
            ]
        elif entry.retired:
            last = entry.current
            lines += [
                ".. code-block:: text",
                f"   :caption: What torch {entry.retired.last_release} printed (recorded; current"
                " torch no longer raises it)",
                "   :class: autograd-message",
                "",
                *_indent(last.example or f"{last.exception}: {last.message}", 3),
                "",
                f"**Retired.** Last raised by torch {entry.retired.last_release}. Now: "
                f"{rst_code(entry.retired.replaced_by)}",
                "",
            ]
        else:
            built_with = verify.torch_version()
            lines += [
                ".. code-block:: text",
                f"   :caption: What torch {built_with} printed when this page was built",
                "   :class: autograd-message",
                "",
                *_indent(f"{entry.current.exception}: {result['message']}", 3),
                "",
            ]
        script = _script_path(self.config.sphinx_gallery_conf, entry.id)
        broken, fixed = tagged_lines(script, "broken"), tagged_lines(script, "fixed")
        if broken and fixed:
            lines += [".. grid:: 1 1 2 2", "   :gutter: 2", ""]
            for label, code in (("Broken", broken), ("Fixed", fixed)):
                lines += [
                    f"   .. grid-item-card:: {label}",
                    f"      :class-card: autograd-{label.lower()}",
                    "",
                    "      .. code-block:: python",
                    "",
                    *_indent(code, 9),
                    "",
                ]
        why, fix = ("What happens", "What to do") if entry.is_pitfall else ("Why", "Fix")
        lines += [
            f"**{why}.** {rst_code(entry.cause)}",
            "",
            f"**{fix}.** {rst_code(entry.fix)}",
            "",
        ]
        if not entry.is_pitfall:
            message = result["message"] or entry.current.template.render({})
            lines += [
                "From a terminal, with any wording of the message:",
                "",
                ".. code-block:: console",
                "",
                f"   $ python -m autograd_errors explain {shlex.quote(message)}",
                "",
            ]
        return self.parse(lines)

    def _verdict(self, entry: Entry) -> dict[str, str]:
        stored = _result_file(self.env.srcdir, entry)
        if not stored.exists():
            raise self.error(f"{entry.id} was not verified in this build (no {stored.name})")
        self.env.note_dependency(str(stored))
        return json.loads(stored.read_text(encoding="utf-8"))


class EntryFooterDirective(_EntryDirective):
    """The end of an entry page: its wordings across torch releases, and related entries."""

    def run(self) -> list[nodes.Node]:
        entry = self.entry()
        if entry.is_pitfall:
            return self.parse(self._related(entry))
        observed = self._observed_table(entry)
        lines = [
            "Every wording of this message the reference recognises, and the torch releases that",
            "print it. ``{name}`` marks a value torch fills in.",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 14 18 68",
            "   :class: autograd-wordings",
            "",
            "   * - Variant",
            "     - Releases",
            "     - Message",
        ]
        for wording in entry.wordings:
            note = f" {rst_code(wording.note)}" if wording.note else ""
            lines += [
                f"   * - ``{wording.variant}``",
                f"     - {wording.releases.describe()}",
                f"     - ``{wording.exception}: {wording.template.render({})}``",
                "",
                f"       `Source <{wording.source}>`__.{note}",
            ]
        lines.append("")
        return observed + self.parse(lines + self._related(entry))

    def _observed_table(self, entry: Entry) -> list[nodes.Node]:
        # Consecutive releases that printed the same thing share a row.
        groups: list[tuple[list[str], str | None, str]] = []  # releases, message, status
        for recording in _recordings(self.env):
            observed = recording.entries.get(entry.id)
            if observed is None:
                continue
            message = recording.message(entry)
            shown = f"{entry.exception}: {message}" if message is not None else None
            status = observed["status"]
            if groups and groups[-1][1] == shown and groups[-1][2] == status:
                groups[-1][0].append(recording.release)
            else:
                groups.append(([recording.release], shown, status))
        rows: list[list[nodes.Node]] = []
        previous: str | None = None
        for releases, shown, status in groups:
            span = releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"
            if shown is None:
                text = (
                    "not applicable: the repro needs a newer torch"
                    if status == verify.NOT_APPLICABLE
                    else "raises nothing"
                )
                rows.append([_text(span), _text(text, "autograd-quiet"), _text("")])
                continue
            rows.append([_text(span), *_changes(previous, shown)])
            previous = shown
        if not rows:
            return []
        intro = nodes.paragraph(
            text="What each recorded torch release printed for the repro above, found by running "
            "it on that release; the words that changed from the row before are highlighted."
        )
        return [intro, _table(["Releases", "Message", "Changed"], rows, [14, 60, 26])]

    def _related(self, entry: Entry) -> list[str]:
        if not entry.related:
            return []
        lines = [".. rubric:: Related entries", ""]
        catalog = _catalog()
        for other_id in entry.related:
            other = catalog[other_id]
            page = other.path.removesuffix(".html")
            lines.append(f"- :doc:`{other.id} </{page}>`: {rst_code(other.title)}")
        return [*lines, ""]


def _recordings(env: Any) -> list[observations.Recording]:
    recordings = observations.load_recordings()
    for recording in recordings:
        env.note_dependency(recording.path)
    return recordings


def _text(text: str, *classes: str) -> nodes.Node:
    return nodes.inline(text=text, classes=list(classes))


def _changes(previous: str | None, current: str) -> list[nodes.Node]:
    """The message with the words new since ``previous`` marked, and a summary of the change."""
    message = nodes.literal(classes=["autograd-observed"])
    if previous is None:
        message += nodes.Text(current)
        return [message, _text("first recording", "autograd-quiet")]
    if previous == current:
        message += nodes.Text(current)
        return [message, _text("unchanged", "autograd-quiet")]
    old, new = previous.split(), current.split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        words = " ".join(new[j1:j2])
        if op == "equal":
            message += nodes.Text(words + " ")
            continue
        if j2 > j1:
            message += nodes.inline(text=words, classes=["autograd-changed"])
            message += nodes.Text(" ")
            added.append(words)
        if i2 > i1:
            removed.append(" ".join(old[i1:i2]))
    summary = nodes.inline()
    if removed:
        summary += nodes.Text("was: ")
        summary += nodes.literal(text=" … ".join(removed))
    if added:
        summary += nodes.Text(" now: " if removed else "added: ")
        summary += nodes.literal(text=" … ".join(added))
    return [message, summary]


def _table(headers: list[str], rows: list[list[nodes.Node]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["autograd-observed-table"])
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row([nodes.Text(header) for header in headers])
    body = nodes.tbody()
    group += body
    for cells in rows:
        body += _row(cells)
    return table


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += cell
        entry += paragraph
        row += entry
    return row


class MatrixDirective(SphinxDirective):
    """Entries against recorded releases: which wording each release printed."""

    def run(self) -> list[nodes.Node]:
        catalog = _catalog()
        recordings = _recordings(self.env)
        releases = [recording.release for recording in recordings]
        source = _gallery_source(self.config.sphinx_gallery_conf)
        rows: list[list[nodes.Node]] = []
        for section in section_order(source):
            for entry in catalog:
                if entry.section != section or entry.is_pitfall:
                    continue
                page = entry.path.removesuffix(".html")
                link = addnodes.pending_xref(
                    "",
                    refdomain="std",
                    reftype="doc",
                    reftarget=f"/{page}",
                    refexplicit=True,
                    refwarn=True,
                )
                link += nodes.literal(text=entry.id)
                cells: list[nodes.Node] = [link]
                for recording in recordings:
                    cells.append(_matrix_cell(recording, entry))
                rows.append(cells)
        widths = [20] + [max(6, 80 // max(len(releases), 1))] * len(releases)
        return [_table(["Entry", *releases], rows, widths)]


def _matrix_cell(recording: observations.Recording, entry: Entry) -> nodes.Node:
    observed = recording.entries.get(entry.id)
    if observed is None:
        return _text("·", "autograd-quiet")
    events = recording.own_events(entry.id)
    events.sort(key=lambda event: event["exception"] != entry.exception)
    if events:
        return _text(events[0]["variant"], "autograd-variant")
    labels = {verify.NOT_APPLICABLE: "n/a", verify.RETIRED: "retired"}
    return _text(labels.get(observed["status"], observed["status"]), "autograd-quiet")


class IndexDirective(SphinxDirective):
    """Every entry, grouped by gallery section, listed by its message."""

    def run(self) -> list[nodes.Node]:
        catalog = _catalog()
        conf = self.config.sphinx_gallery_conf
        source = _gallery_source(conf)
        lines: list[str] = []
        by_section: dict[str, list[Entry]] = {}
        for entry in catalog:
            by_section.setdefault(entry.section, []).append(entry)
        for section in section_order(source):
            entries = by_section.get(section, [])
            if not entries:
                continue
            self.env.note_dependency(os.path.join(source, section, "README.txt"))
            title = section_title(source, section)
            lines += [title, "-" * len(title), ""]
            for entry in entries:
                page = f":doc:`{entry.id} </{entry.path.removesuffix('.html')}>`"
                if entry.is_pitfall:
                    lines += [f"- {page} {rst_code(entry.title)}", ""]
                    continue
                shown = f"{entry.current.exception}: {entry.current.template.render({})}"
                retired = (
                    f" (retired after torch {entry.retired.last_release})" if entry.retired else ""
                )
                lines += [f"- {page} ``{shown}``{retired}", ""]
        container = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, source="autograd-index"), container)
        return container.children


def section_order(gallery_source: str) -> list[str]:
    """Sections in the order the gallery shows them (``_order.txt``, one name a line)."""
    with open(os.path.join(gallery_source, "_order.txt"), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def section_title(gallery_source: str, section: str) -> str:
    """A section's title: the first line of its ``README.txt``."""
    with open(os.path.join(gallery_source, section, "README.txt"), encoding="utf-8") as handle:
        return handle.readline().strip()


_STATIC = Path(__file__).with_name("static")
#: The catalog as the browser's matcher reads it, in the site's ``_static``.
CATALOG_JSON = "autograd-catalog.json"


def _add_static_files(app: Sphinx) -> None:
    app.config.html_static_path.append(str(_STATIC))


def _export_catalog(app: Sphinx, error: Exception | None) -> None:
    if error is not None or app.builder.format != "html":
        return
    from autograd_errors import export

    target = Path(app.outdir) / "_static" / CATALOG_JSON
    target.parent.mkdir(parents=True, exist_ok=True)
    data = export.catalog_json(_catalog())
    target.write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False), "utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _invalidate_stale_runs, priority=100)
    app.connect("builder-inited", _fail_on_bad_verdicts, priority=900)
    app.connect("builder-inited", _add_static_files)
    app.connect("build-finished", _export_catalog)
    app.add_js_file("autograd-matcher.js")
    app.add_js_file("autograd-ui.js")
    app.add_directive("autograd-entry", EntryDirective)
    app.add_directive("autograd-entry-footer", EntryFooterDirective)
    app.add_directive("autograd-index", IndexDirective)
    app.add_directive("autograd-matrix", MatrixDirective)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
