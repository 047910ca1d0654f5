"""Diagnosis: the line of the user's own code where an autograd error started (issue 23).

The answer explains a message; a diagnosis finds the bug: the ``out += identity`` that changed a
tensor autograd had saved, the ``self.hx = out`` that carried last step's graph into this one,
the ``.detach()`` that cut the graph. It watches the program through torch's own hooks (a
``TorchFunctionMode``, nodes' ``metadata`` and post-hooks, version counters), matches what it
recorded against the values the message gives, and returns findings as data
(:class:`~.findings.Diagnosis`: the entry, the common cause the evidence supports, the culprit
lines with the part each played). It prints nothing;
:mod:`autograd_errors.rendering.diagnosis` says it in words, for every surface.

This subpackage owns: the recorder (:mod:`.recorder`), the probes (:mod:`.probes`, one module
per family of entries, registered with :func:`.registry.probe`), the instrumented re-run
(:mod:`.rerun`, :mod:`.child`) and the wiring of ``run --diagnose`` (:mod:`.session`).

It may import the standard library and the rest of this package; torch only lazily, inside the
recorder and the probes, once the program under diagnosis has imported it. Nothing on the
``explain`` path imports it (that path imports only the standard library).

The calls the surfaces make (:mod:`.engine`):

- :func:`diagnose_failure` ``(error, command)``: the diagnosis of a program's failure, running
  it again instrumented when its traceback is not enough;
- :func:`diagnose_again` ``(error, again)``: the diagnosis of what ``again()`` raised in this
  process, calling it once more, recorded, when the traceback is not enough (pytest's test,
  IPython's cell);
- :func:`diagnose_call` ``(function, entry)``: call it again in this process, recorded, and
  diagnose what it raises (a notebook cell, a test); :func:`recorder_for` ``(entry)`` and
  :func:`diagnose` ``(error, recording)`` are its two halves;
- :func:`diagnosable_entries` ``()``: the entries a probe traces (the site's links);
- :meth:`Command.of_this_process`: how to run this interpreter's program again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autograd_errors.diagnosis.engine import (
        diagnosable_entries,
        diagnose,
        diagnose_again,
        diagnose_call,
        diagnose_failure,
        features_for,
        recorder_for,
    )
    from autograd_errors.diagnosis.findings import Culprit, Diagnosis, Note
    from autograd_errors.diagnosis.rerun import Command

__all__ = [
    "Command",
    "Culprit",
    "Diagnosis",
    "Note",
    "diagnosable_entries",
    "diagnose",
    "diagnose_again",
    "diagnose_call",
    "diagnose_failure",
    "features_for",
    "recorder_for",
]

_HOMES = {
    "Command": "rerun",
    "Culprit": "findings",
    "Diagnosis": "findings",
    "Note": "findings",
    "diagnosable_entries": "engine",
    "diagnose": "engine",
    "diagnose_again": "engine",
    "diagnose_call": "engine",
    "diagnose_failure": "engine",
    "features_for": "engine",
    "recorder_for": "engine",
}


def __getattr__(name: str) -> Any:
    """The public names, imported when first used: ``run`` imports :mod:`.session` to read
    its options, and should pay for nothing else when it does not diagnose."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
