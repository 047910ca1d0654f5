"""What the site's pages get besides their directives: entry pages headed by their titles, and
the project's repository for the feedback links.

- Each entry page is headed by the entry's title in words, with its id small beside it
  (sphinx-gallery makes the heading from the script's first docstring line, the id). The
  heading is replaced in the page's source, so the side navigation, the gallery's thumbnails
  and the search results read the title; the id is added to the heading afterwards, so that
  those lists do not repeat it. sphinx-gallery's "Go to the end to download" note goes: the
  downloads are at the end of the page.
- The repository the feedback links open an issue on is ``autograd_errors_repository`` in
  ``conf.py``: the entry pages' links are made here, and the paste page's script reads it from
  the ``<meta name="autograd-errors-repository">`` every page carries.
"""

from __future__ import annotations

import re
import urllib.parse
from html import escape
from typing import Any

from docutils import nodes
from docutils.utils import column_width
from sphinx.application import Sphinx
from sphinx.errors import ConfigError

from autograd_errors.catalog import Entry
from autograd_errors.rendering.strings import ENGLISH
from autograd_errors.sphinxext.languages import build_language
from autograd_errors.sphinxext.nodes import rst_code
from autograd_errors.sphinxext.verification import site_catalog

#: The name of the ``conf.py`` setting, and of the ``<meta>`` that hands it to the scripts.
REPOSITORY_SETTING = "autograd_errors_repository"
REPOSITORY_META = "autograd-errors-repository"
#: The class of the id beside an entry page's title.
ID_CLASS = "autograd-id"
#: The class of the "Wrong match or missing entry?" line.
FEEDBACK_CLASS = "autograd-feedback"

# sphinx-gallery's note at the top of every example: an `only` block holding a note.
_DOWNLOAD_NOTE = re.compile(
    r"^\.\. only:: html\n\n(?:[ \t]+.*\n|\n)*?[ \t]+:class: sphx-glr-download-link-note\n"
    r"(?:[ \t]+.*\n|\n)*?(?=\S)",
    re.MULTILINE,
)
# The first section title of a page, underlined with `=`.
_TITLE = re.compile(r"^(?P<title>\S.*)\n(?P<rule>=+)\n", re.MULTILINE)


def entries_by_page() -> dict[str, Entry]:
    return {entry.path.removesuffix(".html"): entry for entry in site_catalog()}


def retitle_source(source: str, entry: Entry, language: str = ENGLISH) -> str:
    """An entry page's reStructuredText, as sphinx-gallery wrote it, headed by the entry's
    title (in the build's language) and without the download note."""
    source = _DOWNLOAD_NOTE.sub("", source, count=1)
    title = rst_code(entry.localized(language, fallback=True).title)
    rule = "=" * column_width(title)  # a Chinese character takes two columns
    return _TITLE.sub(lambda _: f"{title}\n{rule}\n", source, count=1)


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    entry = entries_by_page().get(docname)
    if entry is not None:
        source[0] = retitle_source(source[0], entry, build_language(app.config))


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """The id beside the title of an entry page's heading (after the title was collected),
    and the heading's anchor: the id, as before the title replaced it."""
    entry = entries_by_page().get(app.env.docname)
    if entry is None:
        return
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is not None:
            # The catalog's title, already in the build's language: not for gettext.
            title["translatable"] = False
            title += nodes.Text(" ")
            title += nodes.inline(text=entry.id, classes=[ID_CLASS])
        if entry.id not in section["ids"]:
            section["ids"].insert(0, entry.id)
        return


def repository(config: Any) -> str:
    url: str = getattr(config, REPOSITORY_SETTING)
    return url.rstrip("/")


def require_repository(app: Sphinx, config: Any) -> None:
    if not repository(config).startswith("https://"):
        raise ConfigError(
            f"set {REPOSITORY_SETTING} in conf.py to the project's repository "
            '(https://github.com/OWNER/NAME): the pages\' "Wrong match or missing entry?" '
            "links open an issue there"
        )


def new_issue_url(repository_url: str, title: str, body: str) -> str:
    """GitHub's form for a new issue, filled in: nothing is sent until the reader submits it."""
    query = urllib.parse.urlencode({"title": title, "body": body}, quote_via=urllib.parse.quote)
    return f"{repository_url}/issues/new?{query}"


def entry_feedback_url(repository_url: str, entry: Entry, page_url: str) -> str:
    return new_issue_url(
        repository_url,
        f"Wrong match or missing entry: {entry.id}",
        f"Entry: {entry.id} ({page_url})\n\n"
        "What torch printed (the message, or the whole traceback):\n\n```\n\n```\n\n"
        "What was wrong or missing:\n\n"
        "torch version: \n",
    )


def add_repository_meta(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    meta = f'<meta name="{REPOSITORY_META}" content="{escape(repository(app.config))}">\n'
    context["metatags"] = context.get("metatags", "") + meta


def setup(app: Sphinx) -> None:
    app.add_config_value(REPOSITORY_SETTING, "", "html", types=frozenset({str}))
    app.connect("config-inited", require_repository)
    app.connect("source-read", on_source_read)
    app.connect("doctree-read", on_doctree_read, priority=900)
    app.connect("html-page-context", add_repository_meta)
