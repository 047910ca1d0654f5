"""The checks, one module per family of codes (the ranges: ``docs/contributing.md``). Importing
this package registers every check with :func:`autograd_errors.lint.registry.rule`; a new family
is one more name here."""

from autograd_errors.lint.rules import (
    false_fixes,
    graphs,
    inplace,
    modules,
    opinionated,
    training,
)

__all__ = ["false_fixes", "graphs", "inplace", "modules", "opinionated", "training"]
