"""The instrumented run (started by :mod:`.rerun`): ``RESULT ENTRY SCRIPT [ARG ...]`` or
``RESULT ENTRY -m MODULE [ARG ...]``. Runs the program as ``python`` would, inside a
:class:`~.recorder.Recorder` armed for ``ENTRY``'s probe (``*``: everything a recorder records,
which the tests and the benchmark use), and writes the diagnosis of the error it ends with to
``RESULT``. Its own exit code means nothing."""

from __future__ import annotations

import os
import runpy
import sys
import types


def _run(target: str, module: bool, args: list[str]) -> None:
    """Run the program as ``python SCRIPT`` or ``python -m MODULE`` does."""
    if module:
        sys.argv = [target, *args]
        sys.path[0] = os.getcwd()
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        return
    path = os.path.abspath(target)
    sys.argv = [target, *args]
    sys.path[0] = os.path.dirname(path)
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec")
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def main(argv: list[str]) -> int:
    from autograd_errors.diagnosis.engine import recorder_for, rerun_result
    from autograd_errors.diagnosis.findings import write_json

    result, entry, *program = argv
    module = program[0] == "-m"
    target, args = (program[1], program[2:]) if module else (program[0], program[1:])
    error: BaseException | None = None
    with recorder_for(None if entry == "*" else entry) as recording:
        try:
            _run(target, module, args)
        except SystemExit:
            pass
        except BaseException as raised:  # noqa: BLE001 - the program's error is what we study
            error = raised
    diagnosis = rerun_result(error, entry, recording)
    write_json(result, {"diagnosis": diagnosis.as_dict()})
    return 0


if __name__ == "__main__":  # python -m autograd_errors.diagnosis.child (the benchmark's way)
    sys.exit(main(sys.argv[1:]))
