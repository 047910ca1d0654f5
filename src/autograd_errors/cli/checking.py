"""``check [ID ...]`` and ``record``: every entry's gallery script run on the installed torch
and judged; ``record`` writes what this release raised to ``data/observed/``."""

from __future__ import annotations

import contextlib
import os
import signal

from autograd_errors.cli.output import (
    EXIT_NO_MATCH,
    EXIT_OK,
    print_error,
    print_json,
    print_text,
    refuse,
)
from autograd_errors.cli.table import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType

    from autograd_errors.cli.table import Options
    from autograd_errors.verification.runner import RunStopped

#: The signals a caller gives up with, besides Ctrl-C: ``timeout``, a CI runner, a closed
#: terminal. Python would die of them at once, reporting nothing.
_GIVING_UP = ("SIGTERM", "SIGHUP")


class Terminated(KeyboardInterrupt):
    """A signal of :data:`_GIVING_UP`, raised where the run is, as Ctrl-C is: the run stops
    its script and reports what it reached; the exit code is the shell's for that signal."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.exit_code = 128 + number


def _interrupt_exit(interrupt: KeyboardInterrupt) -> tuple[str, int]:
    """The signal's name and the exit code of an interrupt: 130 for Ctrl-C."""
    if isinstance(interrupt, Terminated):
        return str(interrupt), interrupt.exit_code
    return "Ctrl-C (SIGINT)", 130


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """While the scripts run: :data:`_GIVING_UP` raise :class:`Terminated`."""

    def raise_terminated(number: int, _frame: FrameType | None) -> None:
        raise Terminated(number)

    previous = {}
    for name in _GIVING_UP:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            previous[number] = signal.signal(number, raise_terminated)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def check(options: Options) -> int:
    """0 when every entry passes, else 1."""
    from autograd_errors.catalog import load
    from autograd_errors.verification import runner
    from autograd_errors.verification.environment import TorchUnavailable, import_torch

    try:
        version = _torch_version(import_torch)
        catalog = load()
    except TorchUnavailable as error:
        return refuse("check", str(error))
    except KeyboardInterrupt:  # importing torch takes a second or two: Ctrl-C often lands there
        return _stopped_before("check", "nothing checked")
    unknown = [entry_id for entry_id in options.args if entry_id not in catalog]
    if unknown:
        raise UsageError(f"check: no entry {unknown[0]!r}", show_usage=False)
    timeout = _timeout(options)
    only = options.args or None
    try:
        with _stopped_by_signals():
            results = runner.check_noting(catalog, None, only, timeout, _slow("check", timeout))
    except runner.RunStopped as stopped:
        return _print_stopped(stopped, version, options.json)
    code = EXIT_NO_MATCH if any(result.status.failing for result in results) else EXIT_OK
    if options.json:
        return print_json({"torch": version, "results": [r.as_dict() for r in results]}, code)
    return print_text(runner.report_text(results, version), code)


def _print_stopped(stopped: RunStopped, version: str, json: bool) -> int:
    """The report of a check that a signal ended: the verdicts reached, then what was not
    judged; the exit code says the signal (130 for Ctrl-C, 143 for SIGTERM)."""
    from autograd_errors.verification import runner

    name, code = _interrupt_exit(stopped.interrupt)
    results = stopped.results
    if json:
        not_judged = {"signal": name, "running": stopped.running, "not_run": stopped.not_run}
        value = {"torch": version, "results": [r.as_dict() for r in results]}
        return print_json({**value, "stopped": not_judged}, code)
    line = runner.stopped_line(stopped, name)
    return print_text(runner.report_text(results, version, stopped=line), code)


def record(options: Options) -> int:
    """Write what the installed torch raises, per entry; 1 when an entry fails."""
    from autograd_errors.catalog import load
    from autograd_errors.verification import gallery, recordings, runner
    from autograd_errors.verification.environment import TorchUnavailable, import_torch

    try:
        version = _torch_version(import_torch)
    except TorchUnavailable as error:
        return refuse("record", str(error))
    except KeyboardInterrupt:
        return _stopped_before("record", "nothing written")
    if recordings.is_pre_release(version):
        return refuse(
            "record",
            f"torch {version} is a development build or a pre-release; recordings are of "
            "releases (install one, e.g. with `pip install torch==X.Y.Z`)",
        )
    directory = options.output or recordings.default_directory()
    if directory is None:
        return refuse("record", "this is an installed package, not a checkout: give --output DIR")
    # Where the user meant, now: a relative --output is relative to this directory.
    path = recordings.recording_path(os.path.abspath(directory), version)
    shown = recordings.recording_path(directory, version)
    problem = recordings.output_problem(path)
    if problem:
        return refuse("record", problem)
    try:
        entries = load()
    except KeyboardInterrupt:
        return _stopped_before("record", f"nothing written ({shown} is unchanged)")
    try:
        with _stopped_by_signals():
            judged = runner.run_all(
                entries, gallery.scripts(), _timeout(options), _slow("record", _timeout(options))
            )
    except runner.RunStopped as stopped:
        name, code = _interrupt_exit(stopped.interrupt)
        print_error(
            f"autograd-errors record: stopped by {name} while {stopped.running} ran; "
            f"nothing written ({shown} is unchanged)\n"
        )
        return code
    try:
        recordings.write_recording(path, recordings.recording_data(entries, judged, version))
    except OSError as error:
        return refuse("record", f"cannot write {shown}: {error.strerror or error}")
    counts: dict[str, int] = {}
    for result, _ in judged:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    summary = ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    code = EXIT_NO_MATCH if any(result.status.failing for result, _ in judged) else EXIT_OK
    return print_text(f"torch {version}: {summary}; written to {shown}", code)


def _torch_version(import_torch: Callable[[], str]) -> str:
    """``import_torch()``, with Ctrl-C held until it returns: raised inside torch's import, a
    KeyboardInterrupt can land in one of its bare ``except:`` and be lost, and the command
    went on to run every script as if nothing had been pressed."""
    pressed: list[int] = []
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return import_torch()  # Ctrl-C ignored (a background job) or handled by the caller
    try:
        previous = signal.signal(signal.SIGINT, lambda number, _: pressed.append(number))
    except ValueError:  # not the main thread: signals are not ours to hold
        return import_torch()
    try:
        version = import_torch()
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt
    return version


def _stopped_before(command: str, outcome: str) -> int:
    """Ctrl-C before the first script ran (while torch was imported): one line, exit 130."""
    print_error(
        f"autograd-errors {command}: stopped by Ctrl-C (SIGINT) before any script ran; {outcome}\n"
    )
    return 130


def _slow(command: str, timeout: float) -> Callable[[str, float], None]:
    """What says on stderr which script holds ``command`` up: the report comes only at the
    end, and a caller that gives up before the script's timeout would otherwise have
    nothing (the fault report's F05: a hanging script, killed after two minutes, 0 bytes)."""

    def notice(path: str, seconds: float) -> None:
        entry_id = os.path.splitext(os.path.basename(path))[0]
        print_error(
            f"autograd-errors {command}: {entry_id} ({path}) is still running after "
            f"{seconds:g} s; it is stopped at {timeout:g} s (--timeout)\n"
        )

    return notice


def _timeout(options: Options) -> float:
    from autograd_errors.verification.isolation import DEFAULT_TIMEOUT

    return float(options.timeout) if options.timeout else DEFAULT_TIMEOUT
