"""Catalog entries and gallery scripts correspond one to one, in both directions."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from autograd_errors.verification import consistency, gallery

GALLERY = Path(__file__).parents[3] / "gallery"


def test_every_entry_has_a_script_and_every_script_an_entry(packaged_catalog):
    scripts = gallery.scripts(str(GALLERY))
    assert consistency.correspondence_problems(packaged_catalog, scripts) == []
    assert sorted(s.entry_id for s in scripts) == sorted(packaged_catalog.ids)


def test_a_script_without_an_entry_is_reported(packaged_catalog, tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    (copy / "graph" / "orphan-entry.py").write_text('"""\norphan-entry\n============\n"""\n')
    problems = consistency.correspondence_problems(packaged_catalog, gallery.scripts(str(copy)))
    assert problems == [
        (
            "orphan-entry",
            f"orphan-entry: gallery script {copy}/graph/orphan-entry.py has no catalog entry",
        )
    ]


def test_an_entry_without_a_script_is_reported(packaged_catalog, tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    (copy / "graph" / "no-grad-fn.py").unlink()
    problems = consistency.correspondence_problems(packaged_catalog, gallery.scripts(str(copy)))
    assert problems == [("no-grad-fn", "no-grad-fn: no gallery script gallery/graph/no-grad-fn.py")]


def test_a_script_in_the_wrong_section_is_reported(packaged_catalog, tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    (copy / "graph" / "no-grad-fn.py").rename(copy / "leaves" / "no-grad-fn.py")
    problems = consistency.correspondence_problems(packaged_catalog, gallery.scripts(str(copy)))
    assert problems == [
        (
            "no-grad-fn",
            "no-grad-fn: the catalog puts it in section 'graph', the gallery in 'leaves'",
        )
    ]


def test_sections_are_listed_in_order_and_titled(packaged_catalog):
    from autograd_errors.verification.gallery import section_order, section_title

    order = section_order(str(GALLERY))
    assert {entry.section for entry in packaged_catalog} <= set(order)
    assert sorted(order) == sorted(p.name for p in GALLERY.iterdir() if p.is_dir())
    for section in order:
        assert section_title(str(GALLERY), section)


def test_scripts_are_standalone():
    """A downloaded script needs nothing but torch (and the standard library)."""
    import ast
    import sys

    for script in gallery.scripts(str(GALLERY)):
        tree = ast.parse(Path(script.path).read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add((node.module or "").split(".")[0])
        assert imported <= {"torch", "numpy"} | set(sys.stdlib_module_names), script.path


def test_each_script_opens_with_its_id_and_entry_directive():
    for script in gallery.scripts(str(GALLERY)):
        docstring = ast_docstring(script.path)
        lines = docstring.strip().splitlines()
        assert lines[0] == script.entry_id
        assert f".. autograd-entry:: {script.entry_id}" in docstring
        assert f".. autograd-entry-footer:: {script.entry_id}" in Path(script.path).read_text()


def ast_docstring(path: str) -> str:
    import ast

    return ast.get_docstring(ast.parse(Path(path).read_text()), clean=False) or ""


def _fix_lines(path: str) -> list[int]:
    """Lines tagged as a fix: ``# fixed`` (the side-by-side pair) or ``# fix: <cause>``."""
    return sorted(
        {n for n, tag, _ in gallery.line_tags(path) if tag == "fixed" or tag.startswith("fix: ")}
    )


def test_a_line_may_carry_several_tags(tmp_path):
    script = tmp_path / "x.py"
    script.write_text("x = 1\nx += 1  # broken  # cause: manual-update\ny = 2  # fixed\n")
    assert gallery.line_tags(str(script)) == [
        (2, "broken", "x += 1"),
        (2, "cause: manual-update", "x += 1"),
        (3, "fixed", "y = 2"),
    ]


def _checks(statement: object) -> bool:
    """An ``assert``, or a ``torch.testing.assert_close``-style call."""
    import ast

    if isinstance(statement, ast.Assert):
        return True
    for node in ast.walk(statement):  # type: ignore[arg-type]
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name.startswith("assert"):
                return True
    return False


def test_every_fix_is_checked():
    """A fix that checks nothing shows nothing: each tagged fix is followed by an assertion (of
    its gradients, where there are any) before the next repro (a module-level ``try``) and
    before the fix of another cell, so that each fix carries its own check."""
    import ast

    unchecked = []
    for script in gallery.scripts(str(GALLERY)):
        source = Path(script.path).read_text(encoding="utf-8")
        lines = source.splitlines()
        cells = [n for n, line in enumerate(lines, 1) if line.startswith("# %%")]

        def cell_of(number: int, cells: list[int] = cells) -> int:
            return sum(start < number for start in cells)

        body = ast.parse(source).body
        fixes = _fix_lines(script.path)
        for fixed in fixes:
            later_fix = next((f for f in fixes if f > fixed and cell_of(f) != cell_of(fixed)), None)
            end = later_fix or len(lines) + 1
            window = [s for s in body if (s.end_lineno or s.lineno) >= fixed and s.lineno < end]
            next_repro = next((i for i, s in enumerate(window) if isinstance(s, ast.Try)), None)
            if not any(_checks(statement) for statement in window[:next_repro]):
                unchecked.append(f"{script.section}/{script.entry_id}.py:{fixed}")
    assert unchecked == [], (
        "fixes not followed by an assertion before the next repro or the next cell's fix (add "
        "torch.testing.assert_close on the gradients, or an assert of what the fix achieves): "
        f"{unchecked}"
    )


def test_every_heading_starts_a_text_cell():
    """A heading in a comment block right after code would stay a code comment on the page.

    sphinx-gallery turns a comment block into text only after a ``# %%`` line; without it the
    section (its heading and prose) is shown as code and never reaches the translations.
    """
    misplaced = []
    for script in sorted(GALLERY.glob("*/*.py")):
        lines = script.read_text().splitlines()
        for number, line in enumerate(lines):
            if re.fullmatch(r"# [-=~^]{4,}", line):
                start = number
                while start > 0 and lines[start - 1].startswith("#"):
                    start -= 1
                if not lines[start].startswith("# %%"):
                    misplaced.append(f"{script}:{start + 1}")
    assert misplaced == []
