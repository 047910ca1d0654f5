"""The failure to diagnose: which exception of a chain is the catalog's, its entry, the values
its message carries, and where it was raised (this thread, another thread, a DataLoader
worker process).

The entry is the one the answer above the diagnosis names: the catalog's matcher reads the
exception as a paste of it. An error the catalog does not know may still be a known symptom
(``TypeError: ... 'NoneType'`` where a ``.grad`` is None): the probes' recognisers say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

_WORKER = "in DataLoader worker process "
_THREAD_FILES = ("/threading.py", "/concurrent/futures/thread.py")


@dataclass
class Failure:
    """An exception the catalog (or a recogniser) knows, and what its message says."""

    error: BaseException
    entry: str
    fields: dict[str, str] = field(default_factory=dict)
    thread: str | None = None  # the thread it was raised in, None for the main thread
    worker: str | None = None  # the DataLoader worker process it was raised in
    recognised: bool = False  # named by a recogniser: the catalog's matcher knows no message

    @property
    def message(self) -> str:
        return str(self.error)

    @property
    def elsewhere(self) -> bool:
        """Raised where an instrumented run of this process cannot see."""
        return self.thread is not None or self.worker is not None


def _chain(error: BaseException) -> list[BaseException]:
    """The exception and those it was raised from or during, the final one first."""
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return found


def _entry_of(text: str) -> tuple[str, dict[str, str]] | None:
    from autograd_errors.catalog import load
    from autograd_errors.matcher.matching import find_entries

    explanation = find_entries(text, load())
    if not explanation.matches or explanation.shared:
        return None
    match = explanation.matches[0]
    return match.entry.id, dict(match.fields)


def _thread_of(trace: TracebackType | None) -> str | None:
    """ "a thread" when the traceback went through a thread's ``run`` (an exception re-raised
    by ``concurrent.futures``), else None."""
    while trace is not None:
        filename = trace.tb_frame.f_code.co_filename.replace("\\", "/")
        if filename.endswith(_THREAD_FILES) and trace.tb_frame.f_code.co_name == "run":
            return "a thread"
        trace = trace.tb_next
    return None


def failure_of(
    error: BaseException,
    *,
    thread: str | None = None,
    recognise: Callable[[BaseException], tuple[str, dict[str, str]] | None] | None = None,
) -> Failure | None:
    """The failure ``error`` is, or None when neither the catalog nor ``recognise`` (the
    probes' recognisers, :func:`.registry.recognise`) knows it.

    ``thread``: the name of the thread it was raised in, when not the main one."""
    for candidate in _chain(error):
        found = _entry_of(f"{type(candidate).__name__}: {candidate}")
        if found is not None:
            entry, fields = found
            worker = None
            message = str(candidate)
            if _WORKER in message:
                worker = message.split(_WORKER, 1)[1].split(".", 1)[0]
            where = thread or _thread_of(candidate.__traceback__)
            return Failure(candidate, entry, fields, where, worker)
    if recognise is None:
        return None
    for candidate in _chain(error):
        recognised = recognise(candidate)
        if recognised is not None:
            entry, fields = recognised
            where = thread or _thread_of(candidate.__traceback__)
            return Failure(candidate, entry, fields, where, recognised=True)
    return None
