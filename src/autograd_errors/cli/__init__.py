"""``autograd-errors`` / ``python -m autograd_errors``: explain, list, show, check, record,
translations, run.

Owns: the command line. :mod:`.table` holds every command and option once (usage, help,
parsing and dispatch come from it); :mod:`.output` prints for every command; each command runs
in a module of its own (:mod:`.explain`, :mod:`.entries`, :mod:`.checking`,
:mod:`.translations`, :mod:`.run`), imported only when it runs.

May import: anything of the package below it (the catalog, the matcher, rendering,
verification, the interpreter); nothing imports it but ``__main__`` and the console script.

Exit codes: 0 matched (or success), 1 nothing matched (``check``: a failing entry),
2 usage error, 3 internal error. No input ever produces a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys

from autograd_errors.cli.output import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    Outcome,
    print_error,
    print_text,
    silence_stdout,
)
from autograd_errors.cli.table import HelpRequested, UsageError, help_text, parse, usage


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    Outcome.code = EXIT_OK
    Outcome.ran_program = False
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        print_error("autograd-errors: standard output is closed\n")
        return EXIT_USAGE
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        code = _run(argv)
        _flush_stdout()
        return code
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours; keep the command's result.
        silence_stdout()
        return Outcome.code
    except OSError as error:  # a full disk (`>/dev/full`), a closed descriptor
        silence_stdout()
        print_error(f"autograd-errors: cannot write the output: {error.strerror or error}\n")
        return EXIT_USAGE
    except KeyboardInterrupt as interrupt:
        from autograd_errors.cli.run import is_program_interrupt

        if is_program_interrupt(interrupt):
            raise  # `run`'s program ended by Ctrl-C: this process dies of SIGINT, as it would
        signalled: int = getattr(interrupt, "exit_code", 130)  # check's SIGTERM: 143
        return signalled
    except Exception as error:
        if os.environ.get("AUTOGRAD_ERRORS_DEBUG"):
            raise
        print_error(
            f"autograd-errors: internal error: {type(error).__name__}: {error}\n"
            "Set AUTOGRAD_ERRORS_DEBUG=1 to see the traceback, and please report it.\n"
        )
        return EXIT_INTERNAL


def console() -> int:
    """The process's own entry (``python -m autograd_errors``, the ``autograd-errors``
    script): :func:`main`, then, unless the command ran the user's program, every object
    frozen out of the garbage collector before the interpreter ends. Its shutdown runs full
    collections over every object the imports and the catalog made: 3 ms of a cold
    ``explain``, of which a program's shutdown would collect nothing. A program ``run`` ran
    ends as under ``python``: its cycles are collected, and their finalizers run."""
    code = main()
    if not Outcome.ran_program:
        import gc

        gc.freeze()
    return code


def _flush_stdout() -> None:
    """Flush standard output here, not at exit, where a failure could only be reported as
    noise. A program ``run`` ran may have closed it, set it to None or replaced it with an
    object that cannot flush: Python ends such a program with 0, and so does ``run``."""
    stream = sys.stdout
    if stream is None or getattr(stream, "closed", False):
        return
    with contextlib.suppress(ValueError, AttributeError):  # closed under us, or no flush
        stream.flush()


def _run(argv: list[str]) -> int:
    try:
        if argv and argv[0] in ("-h", "--help", "help"):
            raise HelpRequested
        if argv and argv[0] == "--version":
            from autograd_errors import __version__

            return print_text(f"autograd-errors {__version__}", EXIT_OK)
        options = parse(argv)
        return options.command.run(options)
    except HelpRequested as asked:
        return print_text(help_text(asked.command).rstrip("\n"), EXIT_OK)
    except UsageError as error:
        shown = f"\n{usage(error.command)}" if error.show_usage else ""
        print_error(f"autograd-errors: {error}\n{shown}")
        return EXIT_USAGE
