"""``run [--lang en|zh] [--] SCRIPT [ARG ...]`` / ``run [--lang en|zh] -m MODULE [ARG ...]``:
the program runs as under ``python`` (:mod:`autograd_errors.interpreter.program`), with
:func:`autograd_errors.install` in place. Its SystemExit passes through untouched; an uncaught
exception prints its traceback (without this command's frames) and the answer, and exits 1, as
Python does.

Only what comes before the program is this command's: ``--lang`` (else the locale decides, as
for ``explain``), then ``--`` or the program. Everything after the program is the program's
own. A script whose name starts with ``-`` runs after ``--`` (``run -- --lang``)."""

from __future__ import annotations

import sys

from autograd_errors.cli.output import EXIT_NO_MATCH, EXIT_OK, Outcome
from autograd_errors.cli.table import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.cli.table import Options


def run(options: Options) -> int:
    from autograd_errors import hooks
    from autograd_errors.diagnosis.session import run_options
    from autograd_errors.interpreter import program

    try:
        diagnosis, language, after_dashes, argv = run_options(options.args)
    except ValueError as error:
        raise UsageError(f"run: {error}", show_usage=False) from None
    if not argv or (not after_dashes and (argv[0] in ("-h", "--help") or argv == ["-m"])):
        raise UsageError("run needs a script, or -m and a module")
    module = not after_dashes and argv[0] == "-m"
    target, args = (argv[1], argv[2:]) if module else (argv[0], argv[1:])
    try:
        program.check(target, module=module)
    except program.ProgramNotFound as error:
        raise UsageError(f"run: {error}", show_usage=False) from None
    hooks.install(warnings=True, lang=language or options.language)
    Outcome.ran_program = True
    if diagnosis:
        hooks.defer_answers()  # each comes with its diagnosis, leading with the cause found
        diagnosis.start(target, args, module)
    try:
        try:
            raised = program.run(target, args, module=module)
        except program.ProgramNotFound as error:  # -m pkg.mod: pkg imported, no mod in it
            raise UsageError(f"run: {error}", show_usage=False) from None
        if raised is None:
            return EXIT_OK
        _report(raised)
        if diagnosis:
            diagnosis.failed(raised)
        if isinstance(raised, KeyboardInterrupt):
            raise program_interrupted() from None
        return EXIT_NO_MATCH
    finally:
        if diagnosis:
            diagnosis.finish()


def program_interrupted() -> KeyboardInterrupt:
    """What ``run`` raises when its program ended by Ctrl-C: a plain ``KeyboardInterrupt``
    (CPython dies of SIGINT only for that very type), marked so that ``main()`` lets it
    through, and this process dies of SIGINT as Python's does: a shell loop around it stops.
    The traceback was printed already: the hook that would print it again is made silent."""
    interrupt = KeyboardInterrupt()
    interrupt.autograd_errors_program = True  # type: ignore[attr-defined]
    sys.excepthook = _silent
    return interrupt


def is_program_interrupt(interrupt: BaseException) -> bool:
    return getattr(interrupt, "autograd_errors_program", False) is True


def _silent(*_: object) -> None:
    return None


def _report(raised: BaseException) -> None:
    """``sys.excepthook`` on what the program raised, as Python calls it: a hook that is
    missing or fails gets Python's words, and the program's traceback is shown anyway."""
    import traceback

    # Deleted, Python says it is missing; set to None, Python calls it all the same (a
    # TypeError, reported as a failing hook below).
    if not hasattr(sys, "excepthook"):
        print("sys.excepthook is missing", file=sys.stderr)
        traceback.print_exception(type(raised), raised, raised.__traceback__)
        return
    hook = sys.excepthook
    try:
        hook(type(raised), raised, raised.__traceback__)
    except BaseException as failure:  # noqa: BLE001 - the program's own hook, reported as Python does
        print("Error in sys.excepthook:", file=sys.stderr)
        # From the hook's own frame, as Python prints it: this function's call is not the
        # program's, and would be the one line telling ``run`` from ``python``.
        shown = failure.__traceback__
        if shown is not None and shown.tb_frame.f_code is _report.__code__:
            shown = shown.tb_next
        traceback.print_exception(type(failure), failure, shown)
        print("\nOriginal exception was:", file=sys.stderr)
        traceback.print_exception(type(raised), raised, raised.__traceback__)
