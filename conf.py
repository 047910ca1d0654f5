"""Sphinx configuration: `sphinx-build -c . docs _build/html` (see `make docs`)."""

from autograd_errors import __version__
from autograd_errors.catalog import PAGES_DIR
from autograd_errors.rendering.strings import ui
from autograd_errors.rendering.urls import DEFAULT_BASE_URL
from autograd_errors.verification.gallery import section_order

project = "autograd-errors"
author = "autograd-errors contributors"
copyright = ui("theme.copyright")  # the zh_CN build's own: autograd_errors.sphinxext.languages
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "autograd_errors.sphinxext",
]

root_doc = "index"
exclude_patterns = ["_build", f"{PAGES_DIR}/**/*.ipynb", f"{PAGES_DIR}/**/*.py"]
nitpicky = True
html_baseurl = DEFAULT_BASE_URL

GALLERY = "../gallery"
sphinx_gallery_conf = {
    "examples_dirs": GALLERY,
    "gallery_dirs": PAGES_DIR,
    "filename_pattern": r"\.py$",
    "subsection_order": [f"{GALLERY}/{section}" for section in section_order("gallery")],
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("autograd_errors.sphinxext.reset_example",),
    "reset_modules_order": "both",
    "image_scrapers": (),
    "write_computation_times": False,
    # No "Total running time of the script" line: its figures change at every build, and each
    # change would be a new message for the translations (locales/) to translate again.
    "min_reported_time": 10**9,
    "remove_config_comments": True,
    "download_all_examples": True,
    "show_signature": False,
    # Resolving names for backreferences reads attributes such as `y.grad`, which warns.
    "inspect_global_variables": False,
}

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 2

autodoc_member_order = "bysource"
autodoc_typehints = "description"
intersphinx_mapping = {}

# Formulas as MathML, made at build time: no MathJax from a CDN (autograd_errors.sphinxext.mathml).
html_math_renderer = "mathml"

html_theme = "pydata_sphinx_theme"
html_title = "autograd-errors"
html_static_path = ["docs/_static"]
html_css_files = ["autograd-errors.css"]
html_theme_options = {
    "navigation_with_keys": False,
    # The header on one line at 1400 px: the other pages under "More".
    "header_links_before_dropdown": 3,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    # The same page in the other language (autograd_errors.sphinxext.languages).
    "navbar_end": ["language-switcher", "theme-switcher", "navbar-icon-links"],
    "footer_end": [],
}
# No side navigation where it would be an empty column: the home page, the matrix (a wide
# table), the paste and search pages (the answer and the results take the width).
html_sidebars = {"index": [], "matrix": [], "explain": [], "search": []}
html_show_sourcelink = False

# Translations (issue 16): one gettext catalog per page, in locales/<language>/LC_MESSAGES.
# `make docs` builds English into _build/html and, with `-D language=zh_CN`, Chinese into
# _build/html/zh_CN; `make translations` regenerates the catalogs (see docs/contributing.md).
# What the autograd directives write comes from the catalog's own translations, not from here.
locale_dirs = ["../locales"]
gettext_compact = False

# Where "Wrong match or missing entry?" opens a new issue (autograd_errors.sphinxext.pages).
autograd_errors_repository = "https://github.com/autograd-errors/autograd-errors"
