"""AE9: opinionated rules, reported only when selected (``--select AE9``): they flag code that
works today but is one change away from a silent error."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from autograd_errors.lint.facts import Facts, dotted, short
from autograd_errors.lint.registry import Hit, rule


@rule("AE901")
def data_writes(facts: Facts) -> Iterator[Hit]:
    """Any change through ``.data``: an in-place write, or ``x.data = ...``."""
    for scope in facts.scopes:
        for write in scope.writes:
            if write.through_data and not facts.is_gradient(write.tensor):
                yield Hit(write.node, {"name": dotted(write.tensor) or short(write.tensor)})
        for node in scope.nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and target.attr == "data"
                        and not facts.is_gradient(target.value)
                    ):
                        name = dotted(target.value) or short(target.value)
                        yield Hit(node, {"name": name})
