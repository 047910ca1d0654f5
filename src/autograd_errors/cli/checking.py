"""``check [ID ...]`` and ``record``: every entry's gallery script run on the installed torch
and judged; ``record`` writes what this release raised to ``data/observed/``."""

from __future__ import annotations

import os

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
    from collections.abc import Callable

    from autograd_errors.cli.table import Options


def check(options: Options) -> int:
    """0 when every entry passes, else 1."""
    from autograd_errors.catalog import load
    from autograd_errors.verification import runner
    from autograd_errors.verification.environment import TorchUnavailable, import_torch

    try:
        version = import_torch()
    except TorchUnavailable as error:
        return refuse("check", str(error))
    catalog = load()
    unknown = [entry_id for entry_id in options.args if entry_id not in catalog]
    if unknown:
        raise UsageError(f"check: no entry {unknown[0]!r}", show_usage=False)
    timeout = _timeout(options)
    only = options.args or None
    results = runner.check_noting(catalog, None, only, timeout, _slow("check", timeout))
    code = EXIT_NO_MATCH if any(result.status.failing for result in results) else EXIT_OK
    if options.json:
        return print_json({"torch": version, "results": [r.as_dict() for r in results]}, code)
    return print_text(runner.report_text(results, version), code)


def record(options: Options) -> int:
    """Write what the installed torch raises, per entry; 1 when an entry fails."""
    from autograd_errors.catalog import load
    from autograd_errors.verification import gallery, recordings, runner
    from autograd_errors.verification.environment import TorchUnavailable, import_torch

    try:
        version = import_torch()
    except TorchUnavailable as error:
        return refuse("record", str(error))
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
    entries = load()
    judged = runner.run_all(
        entries, gallery.scripts(), _timeout(options), _slow("record", _timeout(options))
    )
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
