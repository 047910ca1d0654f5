"""The downloads read on their own: each script, notebook and zip the site offers carries its
entry's text (title, message, why, most common cause, fix) instead of the directives that make
its page (:func:`autograd_errors.verification.standalone.standalone`).

sphinx-gallery copies each script beside its page and makes the notebook and the zips from it;
Sphinx then copies them into ``_downloads``. The directives are written out there, in the
published copies, once the build has finished: the scripts beside the pages stay sphinx-gallery's
own, so its checksums (which decide what to run again) and Sphinx's record of what each page
depends on see no change, and every build, cached or not, publishes expanded files.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

from sphinx.application import Sphinx

from autograd_errors.catalog import PAGES_DIR, Catalog, load
from autograd_errors.rendering.urls import base_url
from autograd_errors.verification import standalone

_EXPANDED = (".py", ".ipynb")


class _Downloads:
    """The expanded script and notebook of each entry, made once per build."""

    def __init__(self, app: Sphinx) -> None:
        self.catalog: Catalog = load()
        self.base_url = app.config.html_baseurl or base_url()
        self.gallery_conf = app.config.sphinx_gallery_conf
        self.pages = Path(app.srcdir) / PAGES_DIR
        self._made: dict[str, bytes] = {}

    def expanded(self, name: str) -> bytes | None:
        """What the download called ``name`` (a path's last part decides) should hold, or
        None when it is no entry's script or notebook."""
        entry_id, suffix = os.path.splitext(os.path.basename(name))
        if suffix not in _EXPANDED or entry_id not in self.catalog:
            return None
        if f"{entry_id}{suffix}" not in self._made:
            section = self.catalog[entry_id].section
            script = (self.pages / section / f"{entry_id}.py").read_text(encoding="utf-8")
            text = standalone.standalone(script, self.catalog, self.base_url)
            self._made[f"{entry_id}.py"] = text.encode("utf-8")
            self._made[f"{entry_id}.ipynb"] = self._notebook(entry_id, text).encode("utf-8")
        return self._made[f"{entry_id}{suffix}"]

    def _notebook(self, entry_id: str, script: str) -> str:
        """The notebook sphinx-gallery makes of ``script``, as it saves one."""
        from sphinx_gallery.notebook import jupyter_notebook
        from sphinx_gallery.py_source_parser import split_code_and_text_blocks

        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / f"{entry_id}.py"
            path.write_text(script, encoding="utf-8")
            _, blocks = split_code_and_text_blocks(str(path))
        section_dir = self.pages / self.catalog[entry_id].section
        return json.dumps(jupyter_notebook(blocks, self.gallery_conf, section_dir), indent=2)


def expand_downloads(app: Sphinx, exception: BaseException | None) -> None:
    """``build-finished``: write the directives out in every published script, notebook and
    zip."""
    directory = Path(app.outdir) / "_downloads"
    if exception is not None or not directory.is_dir():
        return
    downloads = _Downloads(app)
    for path in sorted(directory.rglob("*")):
        if path.suffix in _EXPANDED:
            content = downloads.expanded(path.name)
            if content is not None and path.read_bytes() != content:
                path.write_bytes(content)
        elif path.suffix == ".zip":
            _expand_zip(path, downloads)


def _expand_zip(path: Path, downloads: _Downloads) -> None:
    with zipfile.ZipFile(path) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    replaced = [(info, downloads.expanded(info.filename) or data) for info, data in members]
    if replaced == members:
        return
    temporary = path.with_name(path.name + ".new")
    with zipfile.ZipFile(temporary, "w") as archive:
        for info, data in replaced:
            archive.writestr(info, data)
    os.replace(temporary, path)
