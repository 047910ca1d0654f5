"""What the diagnosis tests share: the failing scripts of tests/data/diagnose, run in this
process as the instrumented re-run runs them (the command line's runner is in conftest.py)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from helpers import DATA

SCRIPTS = DATA / "diagnose"


def line_of(path: Path, code: str, occurrence: int = 1) -> int:
    """The number of the line of ``path`` that starts with ``code`` (its ``occurrence``-th)."""
    numbers = [
        number
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.strip().startswith(code)
    ]
    assert len(numbers) >= occurrence, f"{code!r} is not in {path}"
    return numbers[occurrence - 1]


def _run_script(path: Path, args: tuple[str, ...]) -> BaseException | None:
    """Run a script as ``python`` would, in this process; its uncaught exception, or None."""
    import torch

    saved = (sys.argv, list(sys.path), sys.modules.get("__main__"), torch.is_anomaly_enabled())
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(path.parent))
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit:
        return None
    except Exception as error:  # noqa: BLE001 - the script's error is the subject
        return error
    finally:
        sys.argv, sys.path[:] = saved[0], saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]
        torch.autograd.set_detect_anomaly(saved[3])
    return None


def diagnose_in_process(name: str, *args: str):
    """What ``run --diagnose`` finds for the script ``name``: run it once as it is, then again
    inside a recorder armed for the entry its error belongs to, and diagnose that run's error
    as the instrumented re-run does (autograd_errors.diagnosis.child)."""
    from autograd_errors.diagnosis.engine import (
        diagnose,
        failure_of,
        recorder_for,
        registry,
        rerun_result,
    )

    path = SCRIPTS / name
    first = _run_script(path, args)
    assert first is not None, f"{name} did not fail"
    failure = failure_of(first)
    assert failure is not None, f"{name} failed with an unknown error: {first!r}"
    probe = registry().probe_for(failure.entry)
    if probe is not None and not probe.records:
        return diagnose(first)
    with recorder_for(failure.entry) as recording:
        error = _run_script(path, args)
    return rerun_result(error, failure.entry, recording)
