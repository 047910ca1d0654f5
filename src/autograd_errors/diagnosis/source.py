"""The user's own code: which files are theirs, their lines, and what a statement names.

A culprit is always a line of the user's code: never a frame of torch, of an installed package
(site-packages, dist-packages), of Python's standard library, or of this package. Standard
library only; files are parsed with :mod:`ast` once each.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import site
import sys
import sysconfig

_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


@functools.cache
def _library_roots() -> tuple[str, ...]:
    roots: set[str] = set()
    paths = sysconfig.get_paths()
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(name):
            roots.add(paths[name])
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:  # a virtualenv's old site.py
        pass
    torch = sys.modules.get("torch")
    torch_file = getattr(torch, "__file__", None)
    if torch_file:
        roots.add(os.path.dirname(torch_file))
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # autograd_errors
    return tuple(os.path.join(os.path.realpath(root), "") for root in roots if root)


@functools.cache
def is_user_file(filename: str) -> bool:
    """Whether ``filename`` (a code object's ``co_filename``) is the user's own code."""
    if filename.startswith("<"):
        # Frozen modules and exec'd strings are not; an IPython cell is, when linecache has it.
        return not filename.startswith(("<frozen", "<string>")) and bool(
            linecache.getline(filename, 1)
        )
    path = os.path.realpath(filename)
    if any(marker in path for marker in _MARKERS):
        return False
    return not path.startswith(_library_roots())


def code_at(path: str, line: int) -> str:
    """The source of ``line`` in ``path``, stripped ("" when it cannot be read)."""
    return linecache.getline(path, line).strip()


@functools.lru_cache(maxsize=64)
def _tree(path: str, mtime: float) -> ast.Module | None:
    source = "".join(linecache.getlines(path))
    try:
        return ast.parse(source, path)
    except (SyntaxError, ValueError):
        return None


def tree(path: str) -> ast.Module | None:
    """The parsed module of ``path``, or None."""
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        mtime = 0.0
    return _tree(path, mtime)


def statement_at(path: str, line: int) -> ast.stmt | None:
    """The innermost statement that holds ``line``: a simple statement, or the header of a
    compound one."""
    module = tree(path)
    if module is None:
        return None
    found: ast.stmt | None = None
    body: list[ast.stmt] = module.body
    while True:
        for node in body:
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end:
                found = node
                inner = [
                    child
                    for name in ("body", "orelse", "finalbody", "handlers")
                    for child in getattr(node, name, [])
                    if isinstance(child, ast.stmt | ast.ExceptHandler)
                ]
                body = [
                    stmt
                    for child in inner
                    for stmt in ([child] if isinstance(child, ast.stmt) else child.body)
                ]
                break
        else:
            return found
        if not body:
            return found


def _mentions_no_grad(node: ast.AST) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)``."""
    for part in ast.walk(node):
        if isinstance(part, ast.Attribute | ast.Name):
            name = part.attr if isinstance(part, ast.Attribute) else part.id
            if name in ("no_grad", "inference_mode"):
                return True
        if isinstance(part, ast.Call) and (dotted_name(part.func) or "").endswith(
            "set_grad_enabled"
        ):
            return any(isinstance(arg, ast.Constant) and arg.value is False for arg in part.args)
    return False


def no_grad_line(path: str, line: int) -> int | None:
    """The line of the innermost ``with torch.no_grad():`` (or ``inference_mode``) whose body
    holds ``line``, or of such a decorator on the function that holds it; None if neither."""
    module = tree(path)
    if module is None:
        return None
    found: list[tuple[int, int]] = []  # (start of the body, line to report)
    for node in ast.walk(module):
        if isinstance(node, ast.With | ast.AsyncWith) and node.body:
            first, last = node.body[0].lineno, node.body[-1].end_lineno or node.lineno
            if first <= line <= last and any(
                _mentions_no_grad(item.context_expr) for item in node.items
            ):
                found.append((first, node.lineno))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first, last = node.body[0].lineno, node.end_lineno or node.lineno
            if first <= line <= last:
                found += [
                    (first, decorator.lineno)
                    for decorator in node.decorator_list
                    if _mentions_no_grad(decorator)
                ]
    best = max(found, default=None)  # the innermost: its body starts last
    return None if best is None else best[1]


def dotted_name(node: ast.AST) -> str | None:
    """``w``, ``self.fc.weight``: a name or a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
