"""The browser's side of the site: the matcher's scripts, and the catalog they read."""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx

from autograd_errors.sphinxext.verification import site_catalog

_STATIC = Path(__file__).parent.parent / "static"
#: The catalog as the browser's matcher reads it, in the site's ``_static``.
CATALOG_JSON = "autograd-catalog.json"


def add_static_files(app: Sphinx) -> None:
    app.config.html_static_path.append(str(_STATIC))


def export_catalog(app: Sphinx, error: Exception | None) -> None:
    if error is not None or app.builder.format != "html":
        return
    from autograd_errors import export

    target = Path(app.outdir) / "_static" / CATALOG_JSON
    target.parent.mkdir(parents=True, exist_ok=True)
    from autograd_errors.sphinxext.languages import build_language

    data = export.catalog_json(site_catalog(), build_language(app.config))
    target.write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False), "utf-8")
