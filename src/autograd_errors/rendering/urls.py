"""Where the answers point: the reference site's pages, and the names of the PyTorch
documentation pages entries link to.

>>> docs_label("https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors",
...            {"notes/autograd": "Autograd mechanics"})
'Autograd mechanics: Saved tensors'
"""

from __future__ import annotations

import os

from autograd_errors.rendering.strings import ENGLISH

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from autograd_errors.catalog.model import Entry

#: Where the reference site is published; ``--base-url`` or AUTOGRAD_ERRORS_BASE_URL override it.
DEFAULT_BASE_URL = "https://autograd-errors.readthedocs.io/en/latest/"


def base_url(given: str | None = None) -> str:
    """The site links point to: ``given`` (``--base-url``), else $AUTOGRAD_ERRORS_BASE_URL,
    else the published site."""
    return given or os.environ.get("AUTOGRAD_ERRORS_BASE_URL") or DEFAULT_BASE_URL


def page_url(base_url: str, entry: Entry, language: str = ENGLISH) -> str:
    """The entry's page on the site: the English one, or ``<base>/<language>/<path>``."""
    prefix = "" if language == ENGLISH else f"{language}/"
    return base_url.rstrip("/") + "/" + prefix + entry.path


def docs_label(url: str, titles: Mapping[str, str]) -> str:
    """A short name for a link to PyTorch's documentation: the API it documents, or its page's
    title (``titles``: the catalog's ``docs-pages`` record, by path under ``docs/stable/``) and
    section."""
    page, _, anchor = url.partition("#")
    path = page.split("/docs/stable/", 1)[-1].removesuffix(".html")
    stem = path.rsplit("/", 1)[-1]
    for name in (anchor, stem):
        if name.startswith("torch."):
            return name
    title = titles.get(path) or stem.replace("_", " ").capitalize()
    if not anchor:
        return title
    words = anchor.replace("-", " ")
    return f"{title}: {words[:1].upper()}{words[1:]}"
