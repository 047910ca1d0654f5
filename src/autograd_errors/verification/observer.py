"""Observe one run of a gallery script: what its module-level code caught, every warning, and
which of its module-level lines ran.

A gallery script triggers its entry's error inside a module-level ``try`` (warnings: inside
``warnings.catch_warnings``), prints it, then runs the fixes, which check their gradients.
Scripts stay plain, standalone Python; what they raise is observed from outside, with a trace
function on the script's module frame and a hook on the warnings machinery. The same observer
runs under ``python -m autograd_errors check`` and under sphinx-gallery while the site builds;
:mod:`.judge` judges what it saw. What it changes in the interpreter while it watches (the trace
function, the warnings machinery, the output streams) is given back by
:class:`~autograd_errors.interpreter.patches.Patches`.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import sys
import traceback
import warnings

from autograd_errors.interpreter.patches import Patches
from autograd_errors.verification.native_warnings import NativeStderr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any


class Event:
    """An exception the script caught at module level, or a warning it triggered."""

    __slots__ = ("exception", "kind", "line", "message", "statement")

    def __init__(
        self,
        kind: str,
        exception: str,
        message: str,
        line: int | None,
        statement: int | None = None,
    ) -> None:
        self.kind = kind  # "exception", "warning", or "crash" (an exception nothing caught)
        self.exception = exception
        self.message = message
        self.line = line  # the script's line the event is attributed to, if any
        # The module-level line that was running: for a warning raised deep inside torch, the
        # script's statement that led there.
        self.statement = statement if statement is not None else line

    def text(self) -> str:
        return f"{self.exception}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "exception": self.exception,
            "message": self.message,
            "line": self.line,
            "statement": self.statement,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """The inverse of :meth:`as_dict`."""
        return cls(
            data["kind"], data["exception"], data["message"], data["line"], data["statement"]
        )


class Observation:
    """What one run of a gallery script did."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self.events: list[Event] = []
        self.crash: str | None = None  # the traceback of an exception the script did not catch
        self.crash_event: Event | None = None  # that exception, as an event
        # Lines of module-level ``try`` blocks that caught nothing:
        self.silent_repros: list[int] = []
        self.executed: set[int] = set()  # module-level lines that ran

    def as_dict(self) -> dict[str, Any]:
        """As JSON holds it: what a script's own process hands back (:mod:`.isolation`)."""
        return {
            "path": self.path,
            "events": [event.as_dict() for event in self.events],
            "crash": self.crash,
            "crash_event": self.crash_event.as_dict() if self.crash_event else None,
            "silent_repros": self.silent_repros,
            "executed": sorted(self.executed),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observation:
        """The inverse of :meth:`as_dict`."""
        observation = cls(data["path"])
        observation.events = [Event.from_dict(event) for event in data["events"]]
        observation.crash = data["crash"]
        crash_event = data["crash_event"]
        observation.crash_event = Event.from_dict(crash_event) if crash_event else None
        observation.silent_repros = list(data["silent_repros"])
        observation.executed = set(data["executed"])
        return observation


class Observer:
    """Records what a script's module-level code catches, and every warning, while active."""

    def __init__(self, path: str) -> None:
        self.observation = Observation(path)
        self._pending: tuple[Event, BaseException] | None = None
        self._patches = Patches()
        self._statement: int | None = None
        self._native = NativeStderr()

    def start(self) -> None:
        original = warnings._showwarnmsg  # type: ignore[attr-defined]

        def show(message: warnings.WarningMessage) -> None:
            self._read_native()
            line = message.lineno if self._is_script(message.filename) else None
            event = Event(
                "warning", message.category.__name__, str(message.message), line, self._statement
            )
            self.observation.events.append(event)
            original(message)

        self._patches.set(warnings, "_showwarnmsg", show)
        self._patches.trace(self._trace)
        self._native.start()

    def stop(self) -> Observation:
        self._patches.restore()
        self._native_events(self._native.stop())
        self._flush_pending(caught=False)
        self.observation.silent_repros = _silent_repros(self.observation)
        return self.observation

    def record_crash(self, error: BaseException) -> None:
        self._pending = None
        self._set_crash(error, None)

    def _set_crash(self, error: BaseException, line: int | None) -> None:
        if self.observation.crash is not None:
            return
        self.observation.crash = "".join(traceback.format_exception(error)).rstrip()
        self.observation.crash_event = Event("crash", type(error).__name__, str(error), line)

    def _is_script(self, filename: str) -> bool:
        return os.path.abspath(filename) == self.observation.path

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_name == "<module>" and self._is_script(frame.f_code.co_filename):
            return self._trace_script
        return None

    def _trace_script(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "exception":
            self._flush_pending(caught=False)
            _, error, _ = arg
            self._pending = (
                Event("exception", type(error).__name__, str(error), frame.f_lineno),
                error,
            )
        elif event == "line":
            self._flush_pending(caught=True)
            self._read_native()
            self._statement = frame.f_lineno
            self.observation.executed.add(frame.f_lineno)
        elif event == "return":
            self._flush_pending(caught=False)
            self._read_native()
        return self._trace_script

    def _read_native(self) -> None:
        self._native_events(self._native.messages())

    def _native_events(self, messages: list[str]) -> None:
        """torch's C++ warnings written to descriptor 2 (:mod:`.native_warnings`), as warnings
        of the statement that was running: a ``UserWarning`` is what c10 makes of them where a
        Python call waits."""
        for message in messages:
            event = Event("warning", "UserWarning", message, None, self._statement)
            self.observation.events.append(event)

    def _flush_pending(self, caught: bool) -> None:
        if self._pending is None:
            return
        event, error = self._pending
        self._pending = None
        if caught:
            self.observation.events.append(event)
        else:
            self._set_crash(error, event.line)


def module_blocks(path: str) -> list[ast.stmt]:
    """The script's module-level statements, or none when it cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as handle:
            return ast.parse(handle.read()).body
    except (OSError, SyntaxError, ValueError):
        return []


def _silent_repros(observation: Observation) -> list[int]:
    """Module-level ``try`` blocks of the script in which no exception was caught."""
    caught_lines = {e.line for e in observation.events if e.kind == "exception"}
    silent = []
    for node in module_blocks(observation.path):
        if isinstance(node, ast.Try) and node.handlers:
            first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
            if first not in observation.executed:
                continue  # never reached: the script stopped earlier
            if not any(line is not None and first <= line <= last for line in caught_lines):
                silent.append(node.lineno)
    return silent


def reset_torch_state(*, collect: bool = False) -> None:
    """Give the next script the state a script starts with: seeds at 0, and, where scripts run
    one after another in one process (the site build's sphinx-gallery), what the last one left.

    Anomaly mode, grad mode, the default dtype and device, seeds and Ctrl-C's handler go back
    to their defaults, and every warn-once registry is emptied, so a warning one script showed
    shows again in the next. ``check`` and ``record`` run each script in a process of its own
    (:mod:`.isolation`), which nothing a script does outlives. With ``collect`` (the site
    build, where the last script's objects are still there), a process group it left is
    destroyed and its garbage collected (:func:`_end_process_groups`).
    """
    import random
    import signal
    import threading

    import torch

    torch.autograd.set_detect_anomaly(False)
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    if hasattr(torch, "set_default_device"):  # torch 2.0 and later
        torch.set_default_device(None)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if collect:
        _end_process_groups(torch)
    torch.use_deterministic_algorithms(False)
    torch.set_warn_always(True)
    torch.manual_seed(0)
    random.seed(0)
    try:
        import numpy

        numpy.random.seed(0)
    except ImportError:
        pass
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for module in list(sys.modules.values()):
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()


def _end_process_groups(torch: Any) -> None:
    """A default process group a script left (it failed before its ``destroy_process_group``)
    destroyed, and what it left in reference cycles (a DDP model's ``Reducer`` holding a
    ``ProcessGroupGloo``) collected, here. Left, the next script's ``init_process_group``
    fails with "default process group twice", and a rank that script forks runs their C++
    destructors in its own garbage collection, where they deadlock (a gloo condition
    variable whose threads stayed in the parent)."""
    import gc

    distributed = getattr(torch, "distributed", None)
    if distributed is not None and distributed.is_available() and distributed.is_initialized():
        with contextlib.suppress(Exception):
            distributed.destroy_process_group()
    gc.collect()


def run_script(path: str, *, interrupts: bool = True) -> Observation:
    """Run one gallery script in this interpreter, as ``python script.py`` would.

    An exception the script raises, ``sys.exit()`` included, is a result (its crash); Ctrl-C
    is not: ``KeyboardInterrupt`` stops the whole run. Without ``interrupts`` (a script's own
    process, which Ctrl-C never reaches), a ``KeyboardInterrupt`` is the script's crash too."""
    results: tuple[type[BaseException], ...] = (
        (Exception, SystemExit) if interrupts else (BaseException,)
    )
    reset_torch_state()
    with open(path, encoding="utf-8") as handle:
        code = compile(handle.read(), os.path.abspath(path), "exec")
    namespace = {"__name__": "__main__", "__file__": os.path.abspath(path)}
    observer = Observer(path)
    # What the script prints is its page's business; check's report is the verdicts. torch's
    # C++ side (DDP's reducer, gloo) writes its warnings to file descriptor 2 directly.
    with Patches() as patches:
        with contextlib.suppress(AttributeError, OSError, ValueError):  # None, or closed
            sys.stderr.flush()  # before descriptor 2 goes elsewhere
        patches.descriptor(2, os.devnull)
        patches.set(sys, "stdout", io.StringIO())
        patches.set(sys, "stderr", io.StringIO())
        observer.start()
        try:
            exec(code, namespace)
        except results as error:  # a failing script is a result
            observer.record_crash(error)
        finally:
            observation = observer.stop()
    return observation
