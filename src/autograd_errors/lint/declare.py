"""How a check declares the code it emits: ``@rule("AE101")``, and the ``Hit`` it yields (where
the pattern is, and the values its message names). The rule families import this module; the
registry (:mod:`.registry`) joins what it collected to the rules' data."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from autograd_errors.lint.facts import Facts


class DeclarationError(Exception):
    """Two checks declare one code: a defect of the package."""


@dataclass(frozen=True)
class Hit:
    """Where a check found its pattern, and the values its message names."""

    node: ast.AST
    fields: dict[str, str] = field(default_factory=dict)


Check = Callable[[Facts], Iterable[Hit]]


#: Every declared check, by code.
checks: dict[str, Check] = {}


def rule(code: str) -> Callable[[Check], Check]:
    """Declare that the decorated check emits ``code``."""

    def register(check: Check) -> Check:
        if code in checks:
            raise DeclarationError(f"{code} is declared by two checks")
        checks[code] = check
        return check

    return register
