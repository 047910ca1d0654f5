"""The engine's calls: each surface diagnoses with one of them.

- :func:`diagnose_failure`: an exception that reached the top, and how to run the program
  again. Errors raised where the bug is are diagnosed from their own traceback; the others
  need an instrumented run, which :func:`autograd_errors.diagnosis.rerun.rerun` makes
  (``run --diagnose``, ``install(diagnose=True)``).
- :func:`diagnose_again`: an exception, and how to run the code that raised it again in this
  process (a test, a notebook cell): from its traceback when that is enough, else by calling
  it again, recorded (:func:`diagnose_call`);
- :func:`diagnose_call`: run a function again in this process, recorded, and diagnose what it
  raises (a notebook cell run again, a test run again); :func:`recorder_for` and
  :func:`diagnose` are its two halves, for a caller that runs the code itself.

Each returns a :class:`~.findings.Diagnosis`, or None for an error the catalog does not know
(then there is nothing to say). Nothing here prints.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from autograd_errors.diagnosis.findings import Diagnosis, Note, nothing

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.recorder import Recorder
    from autograd_errors.diagnosis.records import Recording
    from autograd_errors.diagnosis.rerun import Command


def registry() -> ModuleType:
    """:mod:`.registry`, with every family of probes registered in it."""
    import autograd_errors.diagnosis.probes  # importing them registers them
    import autograd_errors.diagnosis.registry

    return autograd_errors.diagnosis.registry


def diagnosable_entries() -> tuple[str, ...]:
    """The entries a diagnosis traces (those a probe is registered for), sorted: what the site
    links to "Diagnose your script" and the paste page says ``run --diagnose`` would name the
    line of. The registry is the one list: a new probe adds its entries here."""
    return tuple(sorted(registry().probes()))


def features_for(entry: str | None) -> frozenset[str]:
    """What must be recorded to diagnose ``entry`` (every feature for None); empty when its
    probe needs no recording, or there is no probe."""
    if entry is None:
        from autograd_errors.diagnosis.recorder import FEATURES

        return FEATURES
    found = registry().probe_for(entry)
    return found.records if found is not None else frozenset()


def recorder_for(entry: str | None = None) -> Recorder:
    """A :class:`~.recorder.Recorder` that records what diagnosing ``entry`` needs (all of it
    for None), to run code inside: ``with recorder_for(entry) as recording: ...``."""
    from autograd_errors.diagnosis.recorder import Recorder

    return Recorder(features_for(entry))


def failure_of(error: BaseException, *, thread: str | None = None) -> Failure | None:
    """The failure ``error`` is: an error of the catalog, or a symptom a probe's recogniser
    knows; None for anything else."""
    from autograd_errors.diagnosis.failure import failure_of as found_in

    return found_in(error, thread=thread, recognise=registry().recognise)


def diagnose(
    error: BaseException, recording: Recording | None = None, *, thread: str | None = None
) -> Diagnosis | None:
    """The diagnosis of ``error``, from its traceback and from ``recording`` (made while it
    happened) when there is one."""
    failure = failure_of(error, thread=thread)
    return None if failure is None else _probe(failure, recording)


def _probe(failure: Failure, recording: Recording | None) -> Diagnosis:
    found = registry().probe_for(failure.entry)
    diagnosis = (
        found(failure, recording)
        if found is not None
        else nothing(failure.entry, Note("diagnose.note.no_probe"))
    )
    if not failure.recognised:
        return diagnosis
    # The answer above the diagnosis had nothing to say: name the entry here.
    symptom = Note("diagnose.note.symptom", {"entry": failure.entry})
    return Diagnosis(
        diagnosis.entry, diagnosis.cause, diagnosis.culprits, (symptom, *diagnosis.notes)
    )


def diagnose_failure(
    error: BaseException, command: Command | None, *, thread: str | None = None
) -> Diagnosis | None:
    """The diagnosis of ``error``, which ended the program ``command`` runs (None: it cannot be
    run again): from its traceback when that is enough, else by running it again,
    instrumented."""
    failure = failure_of(error, thread=thread)
    if failure is None:
        return None
    found = registry().probe_for(failure.entry)
    if found is None or not found.records or failure.elsewhere:
        return _probe(failure, None)
    from autograd_errors.diagnosis.rerun import NESTED, rerun

    if os.environ.get(NESTED):
        return nothing(failure.entry, Note("diagnose.note.nested"))
    if command is None:
        return _probe(failure, None)
    return rerun(command, failure.entry)


def rerun_result(error: BaseException | None, entry: str, recording: Recording) -> Diagnosis:
    """In the instrumented run: the diagnosis of the error it ended with, which must be the
    entry the first run failed with."""
    if error is None:
        return nothing(entry, Note("diagnose.note.rerun_passed"))
    failure = failure_of(error)
    if failure is None or failure.entry != entry:
        what = failure.entry if failure is not None else type(error).__name__
        return nothing(entry, Note("diagnose.note.rerun_differed", {"error": what}))
    return _probe(failure, recording)


def diagnose_call(function: Callable[[], object], entry: str | None = None) -> Diagnosis | None:
    """Call ``function`` inside a recorder armed for ``entry`` (everything for None) and
    diagnose the exception it raises: the entry's, or any the catalog knows when ``entry`` is
    None. None when it raises nothing (or, without ``entry``, nothing the catalog knows)."""
    error: BaseException | None = None
    with recorder_for(entry) as recording:
        try:
            function()
        except Exception as raised:  # noqa: BLE001 - the code's error is what is diagnosed
            error = raised
    if entry is not None:
        return rerun_result(error, entry, recording)
    return None if error is None else diagnose(error, recording)


def diagnose_again(error: BaseException, again: Callable[[], object]) -> Diagnosis | None:
    """The diagnosis of ``error``, which ``again()`` raised in this process (a test's call, a
    notebook cell): from its traceback when that is enough, else by calling ``again()`` once
    more inside a recorder armed for the error's entry. None for an error the catalog does
    not know."""
    failure = failure_of(error)
    if failure is None:
        return None
    found = registry().probe_for(failure.entry)
    if found is None or not found.records or failure.elsewhere:
        return _probe(failure, None)
    from autograd_errors.diagnosis.rerun import NESTED

    if os.environ.get(NESTED):
        return nothing(failure.entry, Note("diagnose.note.nested"))
    return diagnose_call(again, failure.entry)
