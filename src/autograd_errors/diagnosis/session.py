"""``run --diagnose [--report FILE] [--lang en|zh]``: the part of the runner that diagnoses.

The runner parses these options with :func:`run_options`, calls :meth:`RunDiagnosis.start`
before the program runs, :meth:`RunDiagnosis.failed` after printing the traceback and answer
of its uncaught exception, and :meth:`RunDiagnosis.finish` last. An exception in another
thread is diagnosed as the thread's hook reports it. The diagnosis goes to standard error under
the answer; the program's exit code, output and traceback are left as they are.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autograd_errors.diagnosis.findings import Diagnosis
    from autograd_errors.diagnosis.rerun import Command


def run_options(argv: list[str]) -> tuple[RunDiagnosis | None, str | None, bool, list[str]]:
    """``--diagnose``, ``--report FILE`` and ``--lang`` before the program: the diagnosis asked
    for, the language given, whether ``--`` came before the program (then it is a script,
    whatever its name), and the command line from the program on. ``ValueError`` with one line
    for a bad option."""
    diagnose, report, language = False, None, None
    rest = list(argv)
    while rest and rest[0].startswith("--") and rest[0] != "--":
        option, equals, value = rest.pop(0).partition("=")
        if option == "--diagnose" and not equals:
            diagnose = True
            continue
        if option not in ("--report", "--lang"):
            rest.insert(0, option + equals + value)
            break
        if not equals:
            value = rest.pop(0) if rest and not rest[0].startswith("-") else ""
        if not value:
            raise ValueError(f"{option} needs {'a file' if option == '--report' else 'en or zh'}")
        if option == "--report":
            report = value
        else:
            from autograd_errors.rendering.strings import parse_lang

            language = parse_lang(value)
    after_dashes = bool(rest) and rest[0] == "--"
    if after_dashes:
        rest.pop(0)
    if report is not None and not diagnose:
        raise ValueError("--report goes with --diagnose")
    if report is not None:
        directory = os.path.dirname(os.path.abspath(report))
        if os.path.isdir(report) or not os.access(directory, os.W_OK | os.X_OK):
            raise ValueError(f"--report: cannot write {report!r}")
    if not diagnose:
        return None, language, after_dashes, rest
    if language is None:
        from autograd_errors.rendering.strings import language_from_environment

        return RunDiagnosis(report, language_from_environment(os.environ)), None, after_dashes, rest
    return RunDiagnosis(report, language), language, after_dashes, rest


class RunDiagnosis:
    """Diagnoses the failures of one run of a program, and writes its report."""

    def __init__(self, report: str | None, language: str) -> None:
        self.report = report
        self.language = language
        self.command: Command | None = None
        self.diagnosis: Diagnosis | None = None

    def start(self, target: str, args: list[str], module: bool) -> None:
        """Before the program runs: remember how to run it again; watch its threads."""
        from autograd_errors.diagnosis.rerun import Command

        self.command = Command(target, tuple(args), module, os.getcwd())
        if "threading" in sys.modules:
            self._watch_threads(sys.modules["threading"])
        else:  # hooks.install() chains threading's hook when it is imported: chain after it
            import threading

            self._watch_threads(threading)

    def _watch_threads(self, threading: Any) -> None:
        previous = threading.excepthook

        def excepthook(args: Any) -> None:
            previous(args)
            if args.exc_value is not None:
                name = getattr(args.thread, "name", None) or "a thread"
                self._show(args.exc_value, thread=f"thread {name!r}")

        threading.excepthook = excepthook

    def failed(self, error: BaseException) -> None:
        """The program's uncaught exception, once its traceback and answer are printed."""
        self._show(error)

    def _show(self, error: BaseException, *, thread: str | None = None) -> None:
        command = None if thread else self.command
        diagnosis = show_diagnosis(error, command, self.language, thread=thread)
        if diagnosis is not None and self.diagnosis is None:
            self.diagnosis = diagnosis

    def finish(self) -> None:
        """Write the report: the first failure's diagnosis, or none (``entry`` null)."""
        if self.report is None:
            return
        from autograd_errors.diagnosis.findings import Diagnosis
        from autograd_errors.interpreter.files import write_json

        try:
            write_json(self.report, (self.diagnosis or Diagnosis(None)).report())
        except OSError as error:  # the disk filled up while the program ran: say it, once
            reason = error.strerror or error
            print(f"autograd-errors: cannot write {self.report}: {reason}", file=sys.stderr)


def show_diagnosis(
    error: BaseException, command: Command | None, language: str, *, thread: str | None = None
) -> Diagnosis | None:
    """Diagnose ``error``, which ended the program ``command`` runs (None: it cannot be run
    again), and write on standard error the answer, leading with the cause the diagnosis
    found, then the diagnosis: what ``run --diagnose`` and ``install(diagnose=True)`` show
    under the traceback. Never raises: a bug of ours leaves the program's result alone, and
    says so in one line (the answer is still shown)."""
    from autograd_errors.diagnosis.engine import diagnose_failure
    from autograd_errors.rendering.diagnosis import diagnosis_text
    from autograd_errors.rendering.strings import ui
    from autograd_errors.rendering.terminal import Style, text_width

    stream = sys.stderr
    if stream is None:
        return None
    try:
        if stream.isatty() and thread is None:
            stream.write(ui("diagnose.progress", language) + "\n")
            stream.flush()
    except (OSError, ValueError):
        pass
    diagnosis = None
    try:
        diagnosis = diagnose_failure(error, command, thread=thread)
    except Exception as failure:  # a bug of ours must leave the program's result alone
        if os.environ.get("AUTOGRAD_ERRORS_DEBUG"):
            raise
        _write_answer(stream, error, language, None)
        stream.write(
            f"\nautograd-errors: the diagnosis failed ({type(failure).__name__}: {failure}); "
            "set AUTOGRAD_ERRORS_DEBUG=1 to see the traceback, and please report it.\n"
        )
        return None
    led = _write_answer(stream, error, language, diagnosis)
    if diagnosis is None:
        return None
    style, width = Style.for_stream(stream), text_width(stream)
    text = diagnosis_text(diagnosis, language, style, width, with_cause=not led)
    if text:
        stream.write(f"\nautograd-errors: {text}\n")
        stream.flush()
    return diagnosis


def _write_answer(
    stream: Any, error: BaseException, language: str, diagnosis: Diagnosis | None
) -> bool:
    """Write the answer for ``error``, leading with ``diagnosis``'s cause; whether it does."""
    from autograd_errors.rendering.answer import rendered_answer
    from autograd_errors.rendering.terminal import text_width

    try:
        width = text_width(stream)
        text, led = rendered_answer(error, width=width, language=language, diagnosis=diagnosis)
    except Exception:  # noqa: BLE001 - a broken answer must not hide the diagnosis
        return False
    if text:
        stream.write(f"\nautograd-errors: {text}\n")
        stream.flush()
    return led
