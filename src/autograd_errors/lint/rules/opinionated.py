"""AE9: opinionated rules, reported only when selected (``--select AE9``): they flag code that
works today but is one change away from a silent error."""

from __future__ import annotations

from collections.abc import Iterator

from autograd_errors.lint.declare import Hit, rule
from autograd_errors.lint.facts import (
    Facts,
)
from autograd_errors.lint.syntax import (
    dotted,
    short,
)


@rule("AE901")
def data_writes(facts: Facts) -> Iterator[Hit]:
    """Any in-place change through ``.data`` (``p.data.add_(...)``, ``p.data -= ...``,
    ``p.data[0] = ...``), which ``torch.no_grad()`` can always replace. An assignment
    ``p.data = t`` is left alone: it is the way to change a parameter's dtype or shape and keep
    the parameter, which nothing else does. Gradients (``p.grad.data``) are left alone too."""
    for scope in facts.scopes:
        for write in scope.writes:
            if write.through_data and not facts.is_gradient(write.tensor):
                yield Hit(write.node, {"name": dotted(write.tensor) or short(write.tensor)})
