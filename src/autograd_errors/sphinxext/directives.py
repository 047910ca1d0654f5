"""The directives of the entry pages, the index and the matrix.

``.. autograd-entry:: ID``
    The top of an entry page (its heading is the entry's title: :mod:`.pages`): the message as
    torch printed it during this build, cause and fix, broken and fixed code side by side, the
    common causes, the ``explain`` command, and "Wrong match or missing entry?".
``.. autograd-entry-footer:: ID``
    The end of an entry page: the message's wordings across torch releases, related entries.
``.. autograd-index::``
    Every entry, by section, each listed by its title, with its message on one line.
``.. autograd-matrix::``
    Every entry against every recorded torch release: the wording each release printed,
    abbreviated, with a legend.
"""

from __future__ import annotations

import os
import shlex
from html import escape
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from autograd_errors import catalog as catalog_module
from autograd_errors.catalog import PAGES_DIR, Entry
from autograd_errors.rendering.strings import ENGLISH, releases_text, ui, with_releases
from autograd_errors.rendering.urls import docs_label, page_url
from autograd_errors.sphinxext.languages import build_language, translated_prose
from autograd_errors.sphinxext.lint_pages import caught_lines
from autograd_errors.sphinxext.nodes import (
    changes,
    indent,
    not_translatable,
    rst_code,
    table,
    tagged_lines,
    text_node,
)
from autograd_errors.sphinxext.pages import (
    FEEDBACK_CLASS,
    ID_CLASS,
    entry_feedback_url,
    repository,
)
from autograd_errors.sphinxext.verification import (
    gallery_source,
    read_verdict,
    script_path,
    site_catalog,
    verdict_file,
)
from autograd_errors.verification import gallery
from autograd_errors.verification.environment import torch_version
from autograd_errors.verification.gallery import section_order, section_title
from autograd_errors.verification.recordings import Recording, load_recordings
from autograd_errors.verification.verdicts import Result, Status


class _Localized(SphinxDirective):
    """A directive that writes in the build's language. What it makes comes from the catalog
    and the UI strings, already in that language: Sphinx's gettext must not extract it."""

    @property
    def language(self) -> str:
        return build_language(self.config)

    def ui(self, key: str, **values: object) -> str:
        return ui(key, self.language, **values)


class _EntryDirective(_Localized):
    required_arguments = 1
    has_content = False

    def entry(self) -> Entry:
        catalog = site_catalog()
        entry_id = self.arguments[0]
        if entry_id not in catalog:
            raise self.error(f"no catalog entry {entry_id!r}")
        self.env.note_dependency(os.path.join(catalog_module.ENTRIES_DIR, f"{entry_id}.toml"))
        return catalog[entry_id]

    def parse(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.section()  # a section may hold sections
        source = StringList(lines, source=f"autograd-entry {self.arguments[0]}")
        nested_parse_with_titles(self.state, source, container)
        children: list[nodes.Node] = container.children
        return not_translatable(children)


class EntryDirective(_EntryDirective):
    """The top of an entry page."""

    def run(self) -> list[nodes.Node]:
        entry = self.entry()
        text = entry.localized(self.language, fallback=True)
        result = self._verdict(entry)
        lines: list[str] = []
        if entry.is_pitfall:
            lines += [
                f".. admonition:: {self.ui('page.pitfall_title')}",
                "   :class: autograd-pitfall",
                "",
                f"   {self.ui('page.pitfall_body')}",
                "",
            ]
        elif entry.retired:
            last = entry.current
            caption = self.ui("page.retired_caption", release=entry.retired.last_release)
            lines += [
                ".. code-block:: text",
                f"   :caption: {caption}",
                "   :class: autograd-message",
                "",
                *indent(last.example or f"{last.exception}: {last.message}", 3),
                "",
                f"{self.ui('page.retired', release=entry.retired.last_release)} "
                f"{rst_code(entry.retired.replaced_by)}",
                "",
            ]
        elif result.status is Status.NEEDS_CUDA:
            current = entry.current
            lines += [
                f".. admonition:: {self.ui('page.cuda_title')}",
                "   :class: autograd-unverified",
                "",
                f"   {self.ui('page.cuda_body', source=current.source)}",
                "",
                ".. code-block:: text",
                f"   :caption: {self.ui('page.cuda_caption')}",
                "   :class: autograd-message",
                "",
                *indent(current.example or f"{current.exception}: {current.message}", 3),
                "",
            ]
        else:
            built_with = torch_version()
            lines += [
                ".. code-block:: text",
                f"   :caption: {self.ui('page.built_caption', version=built_with)}",
                "   :class: autograd-message",
                "",
                *indent(f"{entry.current.exception}: {result.message}", 3),
                "",
            ]
        # The answer first: what to do, then why, then the code.
        why, fix = ("what_happens", "what_to_do") if entry.is_pitfall else ("why", "fix")
        stop = "。" if self.language == "zh_CN" else "."
        lines += [
            ".. rst-class:: autograd-fix",
            "",
            f"**{self.ui('page.' + fix)}{stop}** {rst_code(text.fix)}",
            "",
            ".. rst-class:: autograd-why",
            "",
            f"**{self.ui('page.' + why)}{stop}** {rst_code(text.cause)}",
            "",
        ]
        if entry.docs:
            titles = site_catalog().docs_pages
            links = ", ".join(f"`{docs_label(url, titles)} <{url}>`__" for url in entry.docs)
            lines += [".. rst-class:: autograd-docs", "", f"{self.ui('page.docs')} {links}", ""]
        script = script_path(self.config.sphinx_gallery_conf, entry.id)
        broken, fixed = tagged_lines(script, "broken"), tagged_lines(script, "fixed")
        if broken and fixed:
            lines += [".. grid:: 1 1 2 2", "   :gutter: 2", ""]
            for label, code in (("broken", broken), ("fixed", fixed)):
                lines += [
                    f"   .. grid-item-card:: {self.ui('page.' + label)}",
                    f"      :class-card: autograd-{label}",
                    "",
                    "      .. code-block:: python",
                    "",
                    *indent(code, 9),
                    "",
                ]
        lines += cause_lines(entry, script, self.language)
        lines += caught_lines(entry.id, self.language)
        if not entry.is_pitfall:
            message = result.message or entry.current.template.render({})
            lines += [
                self.ui("page.terminal"),
                "",
                ".. code-block:: console",
                "",
                f"   $ python -m autograd_errors explain {shlex.quote(' '.join(message.split()))}",
                "",
            ]
        if entry.id in diagnosable():
            command = "``python -m autograd_errors run --diagnose train.py``"
            lines += [
                ".. rst-class:: autograd-diagnose",
                "",
                self.ui("page.diagnose", command=command, page=":doc:`/diagnose`"),
                "",
            ]
        return [*self.parse(lines), self._feedback(entry)]

    def _feedback(self, entry: Entry) -> nodes.Node:
        page = page_url(self.config.html_baseurl, entry, self.language)
        url = entry_feedback_url(repository(self.config), entry, page)
        paragraph = nodes.paragraph(classes=[FEEDBACK_CLASS])
        paragraph += nodes.Text(self.ui("page.feedback_question") + " ")
        paragraph += nodes.reference("", self.ui("page.feedback_link"), refuri=url)
        paragraph += nodes.Text(self.ui("page.feedback_after"))
        return not_translatable([paragraph])[0]

    def _verdict(self, entry: Entry) -> Result:
        stored = verdict_file(self.env.srcdir, entry)
        result = read_verdict(self.env.srcdir, entry)
        if result is None:
            raise self.error(f"{entry.id} was not verified in this build (no {stored.name})")
        self.env.note_dependency(str(stored))
        return result


class EntryFooterDirective(_EntryDirective):
    """The end of an entry page: its wordings across torch releases, and related entries."""

    def run(self) -> list[nodes.Node]:
        entry = self.entry()
        if entry.is_pitfall:
            return self.parse(self._related(entry))
        observed = self._observed_table(entry)
        text = entry.localized(self.language, fallback=True)
        lines = [
            self.ui("page.wordings_intro"),
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 14 18 68",
            "   :class: autograd-wordings",
            "",
            f"   * - {self.ui('page.variant')}",
            f"     - {self.ui('page.releases')}",
            f"     - {self.ui('page.message')}",
        ]
        for wording in entry.wordings:
            note = f" {rst_code(text.note(wording.variant))}" if wording.note else ""
            releases = releases_text(wording.releases.since, wording.releases.until, self.language)
            lines += [
                f"   * - ``{wording.variant}``",
                f"     - {releases}",
                f"     - ``{wording.exception}: {wording.template.render({})}``",
                "",
                f"       `{self.ui('page.source')} <{wording.source}>`__.{note}",
            ]
        lines.append("")
        return observed + self.parse(lines + self._related(entry))

    def _observed_table(self, entry: Entry) -> list[nodes.Node]:
        groups = release_groups(entry, _recordings(self.env))
        rows: list[list[nodes.Node]] = []
        previous: str | None = None
        to = " 至 " if self.language == "zh_CN" else " to "
        for releases, shown, status in groups:
            span = releases[0] if len(releases) == 1 else f"{releases[0]}{to}{releases[-1]}"
            if shown is None:
                text = {
                    None: self.ui("page.not_recorded"),
                    Status.NOT_APPLICABLE: self.ui("page.not_applicable"),
                    Status.NEEDS_CUDA: self.ui("page.not_run_cuda"),
                }.get(status, self.ui("page.raises_nothing"))
                rows.append([text_node(span), text_node(text, "autograd-quiet"), text_node("")])
                continue
            rows.append([text_node(span), *changes(previous, shown, self.language)])
            previous = shown
        if not rows:
            return []
        intro = nodes.paragraph(text=self.ui("page.observed_intro"))
        headers = [self.ui(f"page.{key}") for key in ("releases", "message", "changed")]
        return not_translatable([intro, table(headers, rows, [14, 60, 26])])

    def _related(self, entry: Entry) -> list[str]:
        if not entry.related:
            return []
        lines = [f".. rubric:: {self.ui('page.related')}", ""]
        catalog = site_catalog()
        for other_id in entry.related:
            # The page's title, which is the entry's (pages.retitle_source).
            lines.append(f"- :doc:`/{catalog[other_id].path.removesuffix('.html')}`")
        return [*lines, ""]


def diagnosable() -> frozenset[str]:
    """The entries a diagnosis traces: their pages link to "Diagnose your script"."""
    from autograd_errors.diagnosis import diagnosable_entries

    return frozenset(diagnosable_entries())


def release_groups(
    entry: Entry, recordings: list[Recording]
) -> list[tuple[list[str], str | None, Status | None]]:
    """The rows of an entry's per-release table: consecutive releases that printed the same
    thing share one. Each is (releases, message or None, status, or None for a release whose
    recording predates the entry)."""
    groups: list[tuple[list[str], str | None, Status | None]] = []
    for recording in recordings:
        observed = recording.entries.get(entry.id)
        message = recording.message(entry)
        shown = f"{entry.exception}: {message}" if message is not None else None
        status = Status(observed["status"]) if observed is not None else None
        if groups and groups[-1][1] == shown and groups[-1][2] == status:
            groups[-1][0].append(recording.release)
        else:
            groups.append(([recording.release], shown, status))
    return groups


def cause_lines(entry: Entry, script: str, language: str = "en") -> list[str]:
    """The entry's common causes, most common first, each with its fix and the script's lines
    that trigger and fix it (tagged ``# cause: <id>`` and ``# fix: <id>``)."""
    causes = entry.localized(language, fallback=True).causes
    if not causes:
        return []
    stop = "。" if language == "zh_CN" else "."
    lines = [
        f".. rubric:: {ui('page.causes', language)}",
        "",
        ui("page.causes_order", language),
        "",
    ]
    trigger_caption = ui("page.shows_it" if entry.is_pitfall else "page.raises_it", language)
    for cause in causes:
        sentence = with_releases(cause.text, cause.releases.since, cause.releases.until, language)
        lines += [f"#. {rst_code(sentence)}", ""]
        trigger = tagged_lines(script, f"{gallery.CAUSE_TAG}: {cause.id}")
        if trigger:
            lines += _code_block(trigger, trigger_caption)
        lines += [f"   **{ui('page.fix', language)}{stop}** {rst_code(cause.fix)}", ""]
        fixed = tagged_lines(script, f"{gallery.FIX_TAG}: {cause.id}")
        if fixed:
            lines += _code_block(fixed, ui("page.fixed", language))
        if cause.sources:
            links = ", ".join(f"`{n} <{url}>`__" for n, url in enumerate(cause.sources, 1))
            lines += [f"   {ui('page.sources', language)} {links}{stop}", ""]
    return lines


def _code_block(code: str, caption: str) -> list[str]:
    return [
        "   .. code-block:: python",
        f"      :caption: {caption}",
        "",
        *indent(code, 6),
        "",
    ]


def _recordings(env: Any) -> list[Recording]:
    recordings = load_recordings()
    for recording in recordings:
        env.note_dependency(recording.path)
    return recordings


#: What a matrix cell says when the release printed no wording of the entry, abbreviated.
STATUS_LABELS = {
    None: ("\u2013", "page.not_recorded"),
    Status.NOT_APPLICABLE: ("n/a", "page.matrix_not_applicable"),
    Status.RETIRED: ("ret", "page.matrix_retired"),
    Status.NEEDS_CUDA: ("cuda", "page.not_run_cuda"),
}


def abbreviation(variant: str) -> str:
    """A wording's short label in the matrix: the initials of its name (``anomaly-hint``:
    ``AH``; ``current``: ``C``)."""
    return "".join(word[:1] for word in variant.split("-")).upper()


class MatrixDirective(_Localized):
    """Entries against recorded releases: which wording each release printed, abbreviated,
    with a legend. The grid scrolls sideways in its own box; the first column stays put."""

    def run(self) -> list[nodes.Node]:
        catalog = site_catalog()
        recordings = _recordings(self.env)
        releases = [recording.release for recording in recordings]
        source = gallery_source(self.config.sphinx_gallery_conf)
        rows: list[list[nodes.Node]] = []
        shown: dict[str, str] = {}
        for section in section_order(source):
            for entry in catalog:
                if entry.section != section or entry.is_pitfall:
                    continue
                cells: list[nodes.Node] = [entry_link(entry, entry.id)]
                for recording in recordings:
                    label, meaning = matrix_label(recording, entry, self.language)
                    if shown.setdefault(label, meaning) != meaning:
                        raise self.error(f"two wordings abbreviated {label!r}: rename one")
                    cells.append(nodes.abbreviation(text=label, explanation=meaning))
                rows.append(cells)
        grid = table([self.ui("page.entry"), *releases], rows, [1] * (len(releases) + 1))
        grid["classes"] = ["autograd-matrix", "colwidths-auto"]
        return not_translatable([legend(shown), grid])


def matrix_label(recording: Recording, entry: Entry, language: str = ENGLISH) -> tuple[str, str]:
    """A matrix cell's abbreviated label, and what it stands for."""
    observed = recording.entries.get(entry.id)
    status = None if observed is None else Status(observed["status"])
    if observed is not None:
        events = recording.own_events(entry.id)
        events.sort(key=lambda event: event["exception"] != entry.exception)
        if events:
            variant = str(events[0]["variant"])
            return abbreviation(variant), ui("page.matrix_wording", language, variant=variant)
    if status in STATUS_LABELS:
        label, key = STATUS_LABELS[status]
        return label, ui(key, language)
    assert status is not None
    return status.value, status.value


def legend(shown: dict[str, str]) -> nodes.Node:
    """What each label of the matrix stands for, wordings first."""
    listing = nodes.definition_list(classes=["autograd-matrix-legend"])
    for label, meaning in sorted(shown.items(), key=lambda item: (item[0].islower(), item[0])):
        item = nodes.definition_list_item()
        item += nodes.term(text=label)
        definition = nodes.definition()
        definition += nodes.paragraph(text=meaning)
        item += definition
        listing += item
    return listing


class IndexDirective(_Localized):
    """Every entry, grouped by gallery section, listed by its title; an error's message follows
    on one line, cut to the width of the page (the whole of it in the line's tooltip)."""

    def run(self) -> list[nodes.Node]:
        catalog = site_catalog()
        source = gallery_source(self.config.sphinx_gallery_conf)
        by_section: dict[str, list[Entry]] = {}
        for entry in catalog:
            by_section.setdefault(entry.section, []).append(entry)
        sections: list[nodes.Node] = []
        for section in section_order(source):
            entries = by_section.get(section, [])
            if not entries:
                continue
            self.env.note_dependency(os.path.join(source, section, "README.txt"))
            title = translated_prose(
                section_title(source, section), f"{PAGES_DIR}/{section}/index", self.language
            )
            node = nodes.section()
            node += nodes.title(text=title)
            node["names"].append(nodes.fully_normalize_name(title))
            self.state.document.note_implicit_target(node, node)
            listing = nodes.bullet_list(classes=["autograd-index"])
            listing += [index_item(entry, self.language) for entry in entries]
            node += listing
            sections.append(node)
        return not_translatable(sections)


def entry_link(entry: Entry, text: str) -> addnodes.pending_xref:
    link = addnodes.pending_xref(
        "",
        refdomain="std",
        reftype="doc",
        reftarget=f"/{entry.path.removesuffix('.html')}",
        refexplicit=True,
        refwarn=True,
    )
    link += nodes.inline(text=text)
    return link


def index_item(entry: Entry, language: str) -> nodes.list_item:
    """An entry on the home page: its title and id, and the message it explains on one line."""
    item = nodes.list_item()
    # Not a paragraph: a paragraph of bold-looking text over a smaller line reads as a heading.
    heading = nodes.inline()
    heading += entry_link(entry, entry.localized(language, fallback=True).title)
    heading += nodes.Text(" ")
    heading += nodes.inline(text=entry.id, classes=[ID_CLASS])
    if entry.retired:
        retired = ui("page.retired_after", language, release=entry.retired.last_release)
        heading += text_node(f" {retired}")
    line = nodes.container(classes=["autograd-index-title"])
    line += heading
    item += line
    if not entry.is_pitfall:
        shown = escape(f"{entry.current.exception}: {entry.current.template.render({})}")
        item += nodes.raw(
            "",
            f'<div class="autograd-index-message" title="{shown}"><code>{shown}</code></div>',
            format="html",
        )
    return item
