"""What a gallery script must be, read without running it: the rules of the "scripted" stage of
:mod:`.consistency`. Each takes a script's path and says what is wrong, as ``(line, problem)``
(``line`` None for the whole script).

>>> import pathlib, tempfile
>>> script = pathlib.Path(tempfile.mkdtemp(), "x.py")
>>> _ = script.write_text("import torch\\nimport pandas\\n")
>>> imports_beyond_torch(str(script))
[(None, 'imports pandas')]
"""

from __future__ import annotations

import ast
import sys

from autograd_errors.verification import gallery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Entry

#: What a script may import: what a downloaded script can count on.
_SCRIPT_IMPORTS = frozenset({"torch", "numpy", *sys.stdlib_module_names})

Problems = list[tuple["int | None", str]]


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def imports_beyond_torch(path: str) -> Problems:
    """A downloaded script needs nothing but torch, numpy and the standard library."""
    imported = set()
    for node in ast.walk(ast.parse(_read(path))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    return [(None, f"imports {name}") for name in sorted(imported - _SCRIPT_IMPORTS)]


def causes_tagged(path: str, entry: Entry) -> Problems:
    """Every common cause of ``entry`` has a trigger tagged ``# cause: <id>`` and a fix tagged
    ``# fix: <id>``; every such tag names one of its causes."""
    tagged, unknown = gallery.cause_tags(path, entry)
    found: Problems = [(None, problem) for problem in unknown]
    for cause in entry.causes:
        for kind in (gallery.CAUSE_TAG, gallery.FIX_TAG):
            if (kind, cause.id) not in tagged:
                found.append((None, f"no line is tagged '# {kind}: {cause.id}'"))
    return found


def _asserts(statement: ast.stmt) -> bool:
    """An ``assert``, or a ``torch.testing.assert_close``-style call."""
    if isinstance(statement, ast.Assert):
        return True
    for node in ast.walk(statement):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name.startswith("assert"):
                return True
    return False


def fixes_checked(path: str) -> Problems:
    """A fix that checks nothing shows nothing: each tagged fix (``# fixed``, ``# fix: <id>``)
    is followed by an assertion (of its gradients, where there are any) before the next repro
    (a module-level ``try``) and before the fix of another cell, so that each fix carries its
    own check."""
    source = _read(path)
    lines = source.splitlines()
    cells = [n for n, line in enumerate(lines, 1) if line.startswith("# %%")]

    def cell_of(number: int) -> int:
        return sum(start < number for start in cells)

    body = ast.parse(source).body
    fix_prefix = f"{gallery.FIX_TAG}: "
    fixes = sorted(
        {n for n, tag, _ in gallery.line_tags(path) if tag == "fixed" or tag.startswith(fix_prefix)}
    )
    unchecked: Problems = []
    for fixed in fixes:
        later_fix = next((f for f in fixes if f > fixed and cell_of(f) != cell_of(fixed)), None)
        end = later_fix or len(lines) + 1
        window = [s for s in body if (s.end_lineno or s.lineno) >= fixed and s.lineno < end]
        next_repro = next((i for i, s in enumerate(window) if isinstance(s, ast.Try)), None)
        if not any(_asserts(statement) for statement in window[:next_repro]):
            unchecked.append(
                (
                    fixed,
                    "the fix is followed by no assertion before the next repro or the next "
                    "cell's fix (add torch.testing.assert_close on the gradients, or an assert "
                    "of what the fix achieves)",
                )
            )
    return unchecked


def _is_underline(line: str) -> bool:
    marks = line[2:]
    return line.startswith("# ") and len(marks) >= 4 and len(set(marks)) == 1 and marks[0] in "-=~^"


def headings_open_text_cells(path: str) -> Problems:
    """A heading in a comment block right after code would stay a code comment on the page:
    sphinx-gallery turns a comment block into text only after a ``# %%`` line; without it the
    section (its heading and prose) is shown as code and never reaches the translations."""
    lines = _read(path).splitlines()
    misplaced: Problems = []
    for number, line in enumerate(lines):
        if _is_underline(line):
            start = number
            while start > 0 and lines[start - 1].startswith("#"):
                start -= 1
            if not lines[start].startswith("# %%"):
                misplaced.append((start + 1, "a heading after code, without '# %%' before it"))
    return misplaced
