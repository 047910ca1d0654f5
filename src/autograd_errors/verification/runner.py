"""``check``: every gallery script run on the installed torch, each in a process of its own
(:mod:`.isolation`), and its entry judged; and the report of the verdicts.
"""

from __future__ import annotations

from autograd_errors.catalog import load
from autograd_errors.verification import environment, gallery
from autograd_errors.verification.consistency import correspondence_problems
from autograd_errors.verification.isolation import DEFAULT_TIMEOUT, Isolation, Stopped
from autograd_errors.verification.judge import judge
from autograd_errors.verification.observer import Observation
from autograd_errors.verification.verdicts import UNVERIFIED, Result, Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog
    from autograd_errors.verification.isolation import SlowNotice


def check(
    catalog: Catalog | None = None,
    directory: str | None = None,
    only: list[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[Result]:
    """Run every gallery script on the installed torch and judge each entry (``only``: just
    these entries; ``timeout``: the seconds each script may run)."""
    return check_noting(catalog, directory, only, timeout, None)


def check_noting(
    catalog: Catalog | None,
    directory: str | None,
    only: list[str] | None,
    timeout: float,
    notice: SlowNotice | None,
) -> list[Result]:
    """:func:`check`, telling ``notice`` of a script still running after
    ``isolation.SLOW_AFTER`` seconds (what the command line shows on stderr). Apart from
    :func:`check`, whose signature the API page documents."""
    catalog = catalog or load()
    found = gallery.scripts(directory)
    if only is not None:
        found = [script for script in found if script.entry_id in only]
        return [result for result, _ in run_all(catalog, found, timeout, notice)]
    results = [
        Result(entry_id, Status.FIX_FAILS, "", problem)
        for entry_id, problem in correspondence_problems(catalog, found)
    ]
    return results + [result for result, _ in run_all(catalog, found, timeout, notice)]


class RunStopped(Exception):
    """A run that a signal (Ctrl-C, a caller's SIGTERM) ended before its last script: the
    verdicts it reached (``judged``), the entry whose script was running (``running``) and
    those not run (``not_run``), so that a caller can report what was done (the fault
    report's F05: a run given up had printed nothing)."""

    def __init__(
        self,
        judged: list[tuple[Result, Observation]],
        running: str,
        not_run: list[str],
        interrupt: KeyboardInterrupt,
    ) -> None:
        super().__init__(f"stopped while {running} ran")
        self.judged = judged
        self.running = running
        self.not_run = not_run
        self.interrupt = interrupt

    @property
    def results(self) -> list[Result]:
        return [result for result, _ in self.judged]


def run_all(
    catalog: Catalog,
    found: list[gallery.Script],
    timeout: float = DEFAULT_TIMEOUT,
    notice: SlowNotice | None = None,
) -> list[tuple[Result, Observation]]:
    """Each catalog entry's script, run in a process of its own and judged on the installed
    torch. A script whose process handed back nothing (:class:`.isolation.Stopped`: it hung,
    ended its process, was killed) is failed with the status that says so. A
    ``KeyboardInterrupt`` stops the run: :class:`RunStopped` carries what it reached."""
    release = environment.torch_version()
    judged: list[tuple[Result, Observation]] = []
    scripts = [script for script in found if script.entry_id in catalog]
    with Isolation(timeout, notice=notice) as isolation:
        for position, script in enumerate(scripts):
            try:
                judged.append(_run_one(catalog, script, isolation, release))
            except KeyboardInterrupt as interrupt:
                not_run = [later.entry_id for later in scripts[position + 1 :]]
                raise RunStopped(judged, script.entry_id, not_run, interrupt) from None
    return judged


def _run_one(
    catalog: Catalog, script: gallery.Script, isolation: Isolation, release: str
) -> tuple[Result, Observation]:
    entry = catalog[script.entry_id]
    if entry.needs == "cuda" and not environment.cuda_available():
        observation = Observation(script.path)  # not run: judged NEEDS-CUDA
        return judge(entry, observation, catalog, release), observation
    outcome = isolation.observe(script.path)
    if isinstance(outcome, Stopped):
        return Result(entry.id, outcome.status, "", outcome.detail), Observation(script.path)
    return judge(entry, outcome, catalog, release), outcome


def report_text(results: list[Result], release: str, stopped: str | None = None) -> str:
    """The report of ``results``; ``stopped``: why the run ended early (then it never says
    that all pass)."""
    lines = [f"torch {release}: {len(results)} entries checked"]
    width = max((len(r.entry_id) for r in results), default=0)
    for result in results:
        lines.append(f"{result.status:11} {result.entry_id:{width}}  {result.message[:100]}")
        if result.status is not Status.OK:
            lines += ["            " + line for line in result.detail.splitlines()]
    failed = sum(result.status.failing for result in results)
    unverified = sum(result.status in UNVERIFIED for result in results)
    if unverified:
        lines.append(
            f"{unverified} entr{'y' if unverified == 1 else 'ies'} could not be verified here: "
            "need CUDA"
        )
    if failed:
        lines.append(f"{failed} entr{'y' if failed == 1 else 'ies'} failed")
    elif stopped is None:
        lines.append("all others pass" if unverified else "all pass")
    if stopped is not None:
        lines.append(stopped)
    return "\n".join(lines)


def stopped_line(stopped: RunStopped, signal_name: str) -> str:
    """What a report stopped by ``signal_name`` ends with: which script ran, what was not
    judged."""
    left = [stopped.running, *stopped.not_run]
    shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
    return (
        f"stopped by {signal_name} while {stopped.running} ran: {len(stopped.judged)} "
        f"entr{'y' if len(stopped.judged) == 1 else 'ies'} judged, "
        f"{len(left)} not ({shown})"
    )
