"""The instrumented run (started by :mod:`.rerun`): ``RESULT ENTRY SCRIPT [ARG ...]`` or
``RESULT ENTRY -m MODULE [ARG ...]``. Runs the program as ``python`` would, inside a
:class:`~.recorder.Recorder` armed for ``ENTRY``'s probe (``*``: everything a recorder records,
which the tests and the benchmark use), and writes the diagnosis of the error it ends with to
``RESULT``. Its own exit code means nothing."""

from __future__ import annotations

import sys


def _run(target: str, module: bool, args: list[str]) -> BaseException | None:
    """Run the program as ``python SCRIPT`` or ``python -m MODULE`` does
    (:func:`autograd_errors.interpreter.program.run`, as ``run`` runs it): what it raised, or
    None when it ended or exited."""
    from autograd_errors.interpreter import program

    # ``python -c`` put the working directory first on sys.path: a script's own directory
    # takes its place, as ``python SCRIPT`` sets it (a module finds itself through it, as
    # under ``python -m``, which puts the working directory there too).
    if not module and sys.path and not getattr(sys.flags, "safe_path", False):
        del sys.path[0]
    try:
        return program.run(target, args, module=module)
    except SystemExit:
        return None


def main(argv: list[str]) -> int:
    from autograd_errors.diagnosis.engine import recorder_for, rerun_result
    from autograd_errors.interpreter.files import write_json

    result, entry, *program = argv
    module = program[0] == "-m"
    target, args = (program[1], program[2:]) if module else (program[0], program[1:])
    with recorder_for(None if entry == "*" else entry) as recording:
        error = _run(target, module, args)
    diagnosis = rerun_result(error, entry, recording)
    write_json(result, {"diagnosis": diagnosis.as_dict()})
    return 0


if __name__ == "__main__":  # python -m autograd_errors.diagnosis.child (the benchmark's way)
    sys.exit(main(sys.argv[1:]))
