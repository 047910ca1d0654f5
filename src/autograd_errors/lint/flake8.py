"""The flake8 plugin: the same rules, as ``AE`` codes in flake8's report.

Registered in ``pyproject.toml`` (``[project.entry-points."flake8.extension"] AE = ...``).
flake8 itself parses the file (a file that does not parse is its E999, not AE000), applies
``# noqa``, ``--select``, ``--ignore`` and ``--extend-select``; the opinionated rules (AE9) are
added to flake8's default ignore list, as flake8-bugbear does with its B9 rules, so that
``--extend-select AE9`` turns them on.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from autograd_errors.lint.checker import run_rules
from autograd_errors.lint.registry import OPINIONATED


def _installed_version() -> str:
    """The installed package's version, as flake8 --version lists it (the package's
    ``__init__`` is the layer above this one: it is not imported from here)."""
    from importlib import metadata

    try:
        return metadata.version("autograd-errors")
    except metadata.PackageNotFoundError:
        return "unknown"


class Plugin:
    """flake8's ``tree`` plugin: ``Plugin(tree, lines).run()`` yields ``(line, col, text,
    type)``, ``col`` counted in characters from 0."""

    name = "autograd-errors"
    version = _installed_version()
    #: The AE9 codes asked for with ``--select`` or ``--extend-select`` (``AE9``, ``AE901``):
    #: as in the command, ``--select AE`` alone does not turn the opinionated rules on.
    opinionated: tuple[str, ...] = ()

    def __init__(self, tree: ast.AST, lines: list[str] | None = None) -> None:
        self.tree = tree
        self.lines = lines or []

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.extend_default_ignore([OPINIONATED])

    @classmethod
    def parse_options(cls, options: Any) -> None:
        chosen = [
            *(getattr(options, "select", None) or ()),
            *(getattr(options, "extend_select", None) or ()),
        ]
        cls.opinionated = tuple(code for code in chosen if code.startswith(OPINIONATED))

    def run(self) -> Iterator[tuple[int, int, str, type[Plugin]]]:
        if not isinstance(self.tree, ast.Module):
            return
        # flake8 decides what else is reported (--select, --ignore, noqa comments).
        select = ["AE", *self.opinionated]
        for rule, line, offset, fields in run_rules(self.tree, select=select):
            text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
            column = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
            yield line, column, f"{rule.code} {rule.message(fields)}", type(self)
