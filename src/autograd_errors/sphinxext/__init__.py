"""Sphinx glue: entry pages from the catalog, and a build that fails on drift.

- :mod:`.verification`: while sphinx-gallery runs each gallery script, the observer of
  :mod:`autograd_errors.verification.observer` watches it (``reset_example`` is sphinx-gallery's
  ``reset_modules`` hook), and the verdict is stored beside the generated page; any verdict but
  a passing one stops the build with the same report as ``check``.
- :mod:`.directives`: ``autograd-entry``, ``autograd-entry-footer``, ``autograd-index`` and
  ``autograd-matrix``.
- :mod:`.nodes`: the docutils nodes and reStructuredText those directives build.
- :mod:`.assets`: the browser's matcher, and the catalog it reads, in the site's ``_static``.
- :mod:`.mathml`: formulas as MathML, written at build time (no script, no CDN).
- :mod:`.downloads`: the scripts, notebooks and zips offered for download carry their entry's
  text, not the directives.
- :mod:`.pages`: entry pages headed by their titles, and the repository of the feedback links
  (``autograd_errors_repository`` in ``conf.py``).
- :mod:`.languages`: the zh_CN site: the language switcher, the theme's words, the glossary.
- :mod:`.paste_forms`: the paste boxes (the paste page's, the home page's) in the build's
  language.
- :mod:`.lint_pages`: the lint rules' pages, their table, and the entry pages' "Caught before
  it runs".
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from autograd_errors import __version__
from autograd_errors.sphinxext import (
    assets,
    directives,
    downloads,
    languages,
    lint_pages,
    mathml,
    pages,
    paste_forms,
    verification,
)
from autograd_errors.sphinxext.verification import fingerprint, reset_example

__all__ = ["fingerprint", "reset_example", "setup"]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", verification.invalidate_stale_runs, priority=100)
    app.connect("builder-inited", verification.fail_on_bad_verdicts, priority=900)
    app.connect("builder-inited", assets.add_static_files)
    app.connect("builder-inited", assets.write_strings)
    app.connect("build-finished", assets.export_catalog)
    app.connect("build-finished", downloads.expand_downloads)
    mathml.setup(app)
    pages.setup(app)
    languages.setup(app)
    app.setup_extension("autograd_errors.sphinxext.coverage")  # the coverage page
    app.add_js_file(assets.STRINGS_JS)
    app.add_js_file("autograd-matcher.js")
    app.add_js_file("autograd-ui.js")
    app.add_directive("autograd-entry", directives.EntryDirective)
    app.add_directive("autograd-entry-footer", directives.EntryFooterDirective)
    app.add_directive("autograd-index", directives.IndexDirective)
    app.add_directive("autograd-matrix", directives.MatrixDirective)
    app.add_directive("autograd-paste-form", paste_forms.PasteFormDirective)
    lint_pages.setup(app)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
