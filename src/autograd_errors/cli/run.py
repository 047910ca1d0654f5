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

from autograd_errors.cli.output import EXIT_NO_MATCH, EXIT_OK
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
    if diagnosis:
        diagnosis.start(target, args, module)
    try:
        raised = program.run(target, args, module=module)
        if raised is None:
            return EXIT_OK
        sys.excepthook(type(raised), raised, raised.__traceback__)
        if diagnosis:
            diagnosis.failed(raised)
        return 130 if isinstance(raised, KeyboardInterrupt) else EXIT_NO_MATCH
    finally:
        if diagnosis:
            diagnosis.finish()
