"""The browser's side of the site: the matcher's scripts, and the catalog they read."""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx

from autograd_errors.sphinxext.verification import site_catalog

_STATIC = Path(__file__).parent.parent / "browser" / "static"
#: The catalog as the browser's matcher reads it, in the site's ``_static``.
CATALOG_JSON = "autograd-catalog.json"
#: The same catalog as a script (``window.AutogradCatalogData``): what the pages load when they
#: are opened as files (``file://``), where they may not fetch.
CATALOG_JS = "autograd-catalog.js"
#: The paste and search pages' words in the build's language (``window.AutogradStrings``).
STRINGS_JS = "autograd-strings.js"


def add_static_files(app: Sphinx) -> None:
    app.config.html_static_path.append(str(_STATIC))


def write_strings(app: Sphinx) -> None:
    """The pages' script reads its words from here, before the catalog arrives (the words
    shown while matching, or when the catalog cannot be loaded)."""
    if app.builder.format != "html":
        return
    from autograd_errors.rendering.strings import export_strings
    from autograd_errors.sphinxext.languages import build_language

    strings = json.dumps(export_strings(build_language(app.config)), ensure_ascii=False)
    target = Path(app.outdir) / "_static" / STRINGS_JS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"window.AutogradStrings = {strings};\n", "utf-8")


def export_catalog(app: Sphinx, error: Exception | None) -> None:
    if error is not None or app.builder.format != "html":
        return
    from autograd_errors.browser import export

    target = Path(app.outdir) / "_static" / CATALOG_JSON
    target.parent.mkdir(parents=True, exist_ok=True)
    from autograd_errors.diagnosis import diagnosable_entries
    from autograd_errors.sphinxext.languages import build_language

    diagnosable = diagnosable_entries()
    data = export.catalog_json(site_catalog(), build_language(app.config), diagnosable)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    target.write_text(text, "utf-8")
    # JSON is a JavaScript expression (ECMAScript 2019 and later), so the script is the same text.
    (target.parent / CATALOG_JS).write_text(f"window.AutogradCatalogData = {text};\n", "utf-8")
