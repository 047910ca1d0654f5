"""Running the program again, instrumented, after it failed.

Why again, and not instrumented from the start: recording every torch call costs 1.5 to 2
times the run on a small model (``benchmarks/diagnose_cost.py``), more than anomaly mode, and
most autograd errors come in the first steps. A program that succeeds pays nothing; one that
fails is run a second time, up to the same error, and only what its probe needs is recorded.

The second run is a fresh interpreter (with the first one's flags, environment, working
directory and arguments), whose standard input is empty and whose output is thrown away; it
runs the program's side effects again (files it writes, downloads, logs), and a program that
draws unseeded random numbers or reads changing data may not fail the same way, which the
diagnosis then says. It hands its findings back as JSON in a temporary file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from autograd_errors.diagnosis.findings import Diagnosis, Note, nothing

#: Set in the environment of an instrumented run: a diagnosis never starts another from it.
NESTED = "AUTOGRAD_ERRORS_DIAGNOSING"
#: What the child interpreter runs: this package from where the parent found it, then the
#: program with ``sys.path`` as Python itself would set it.
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from autograd_errors.diagnosis.child import main; del sys.path[0]; "
    "sys.exit(main(sys.argv[2:]))"
)


@dataclass(frozen=True)
class Command:
    """A program as ``python`` runs it: a script and its arguments, or ``-m`` a module."""

    target: str
    args: tuple[str, ...] = ()
    module: bool = False
    cwd: str | None = None

    @classmethod
    def of_this_process(cls) -> Command | None:
        """The command that started this interpreter (for ``install(diagnose=True)``), or None
        when there is none to repeat (an interactive session, ``python -c``)."""
        main = sys.modules.get("__main__")
        spec = getattr(main, "__spec__", None)
        if spec is not None and spec.name:
            name = spec.name.removesuffix(".__main__")
            return cls(name, tuple(sys.argv[1:]), module=True, cwd=os.getcwd())
        path = getattr(main, "__file__", None)
        if path and os.path.isfile(path):
            return cls(path, tuple(sys.argv[1:]), cwd=os.getcwd())
        return None


def _package_parent() -> str:
    """The directory the package is imported from (this file is ``<it>/autograd_errors/
    diagnosis/rerun.py``): the instrumented run imports the same package."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rerun(command: Command, entry: str) -> Diagnosis:
    """Run ``command`` again, instrumented for ``entry``'s probe, and return its diagnosis."""
    with tempfile.TemporaryDirectory(prefix="autograd-errors-") as directory:
        result = os.path.join(directory, "diagnosis.json")
        program = ["-m", command.target] if command.module else [command.target]
        argv = [
            sys.executable,
            *subprocess._args_from_interpreter_flags(),  # type: ignore[attr-defined]
            "-c",
            _BOOT,
            _package_parent(),
            result,
            entry,
            *program,
            *command.args,
        ]
        started = time.perf_counter()
        try:
            finished = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                # With AUTOGRAD_ERRORS_DEBUG set, the instrumented run's errors show.
                stderr=None if os.environ.get("AUTOGRAD_ERRORS_DEBUG") else subprocess.DEVNULL,
                cwd=command.cwd,
                env={**os.environ, NESTED: "1"},
                check=False,
            )
        except KeyboardInterrupt:  # run() has killed the child
            return nothing(entry, Note("diagnose.note.interrupted"))
        seconds = time.perf_counter() - started
        try:
            with open(result, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            code = str(finished.returncode)
            return nothing(entry, Note("diagnose.note.rerun_crashed", {"code": code}))
    found = Diagnosis.from_dict(data["diagnosis"])
    return Diagnosis(found.entry, found.cause, found.culprits, found.notes, round(seconds, 1))
