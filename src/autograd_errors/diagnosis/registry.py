"""One registry of probes: a probe is a function of a :class:`~.failure.Failure` (and of the
:class:`~.recorder.Recording` of an instrumented run, when it needs one) that returns a
:class:`~.findings.Diagnosis`. Each family module of :mod:`.probes` registers its own with
:func:`probe`, naming the entries it diagnoses and what it needs recorded; :func:`recogniser`
registers a function that names the entry of an error the catalog's matcher does not know.

Registering is all a new probe takes: nothing else lists them. The registry imports no probe
(they import it): :func:`autograd_errors.diagnosis.engine.registry` imports the package of probes,
which registers them all, and returns this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.findings import Diagnosis

    ProbeFunction = Callable[[Failure, Any], Diagnosis]
    Recogniser = Callable[[BaseException], "tuple[str, dict[str, str]] | None"]


@dataclass(frozen=True)
class Probe:
    """A registered probe: the entries it diagnoses and the features it needs recorded (none:
    it reads the failure's own traceback, and needs no instrumented run)."""

    entries: tuple[str, ...]
    function: ProbeFunction
    records: frozenset[str]

    def __call__(self, failure: Failure, recording: Any = None) -> Diagnosis:
        return self.function(failure, recording)


_PROBES: dict[str, Probe] = {}
_RECOGNISERS: list[Recogniser] = []


def probe(*entries: str, records: Iterable[str] = ()) -> Callable[[ProbeFunction], ProbeFunction]:
    """Register the decorated function as the probe of ``entries``."""

    def register(function: ProbeFunction) -> ProbeFunction:
        registered = Probe(tuple(entries), function, frozenset(records))
        for entry in entries:
            if entry in _PROBES:
                raise ValueError(f"two probes for {entry!r}")
            _PROBES[entry] = registered
        return function

    return register


def recogniser(function: Recogniser) -> Recogniser:
    """Register a function that names the entry of an error the catalog does not match."""
    _RECOGNISERS.append(function)
    return function


def probe_for(entry: str) -> Probe | None:
    """The probe registered for ``entry``, or None."""
    return _PROBES.get(entry)


def probes() -> dict[str, Probe]:
    """Every registered probe, by entry."""
    return dict(_PROBES)


def recognise(error: BaseException) -> tuple[str, dict[str, str]] | None:
    """The entry (and its values) a recogniser finds in ``error``, or None."""
    for function in _RECOGNISERS:
        found = function(error)
        if found is not None:
            return found
    return None
