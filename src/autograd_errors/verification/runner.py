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


def run_all(
    catalog: Catalog,
    found: list[gallery.Script],
    timeout: float = DEFAULT_TIMEOUT,
    notice: SlowNotice | None = None,
) -> list[tuple[Result, Observation]]:
    """Each catalog entry's script, run in a process of its own and judged on the installed
    torch. A script whose process handed back nothing (:class:`.isolation.Stopped`: it hung,
    ended its process, was killed) is failed with the status that says so."""
    release = environment.torch_version()
    judged = []
    with Isolation(timeout, notice=notice) as isolation:
        for script in found:
            if script.entry_id not in catalog:
                continue
            entry = catalog[script.entry_id]
            if entry.needs == "cuda" and not environment.cuda_available():
                observation = Observation(script.path)  # not run: judged NEEDS-CUDA
                judged.append((judge(entry, observation, catalog, release), observation))
                continue
            outcome = isolation.observe(script.path)
            if isinstance(outcome, Stopped):
                result = Result(entry.id, outcome.status, "", outcome.detail)
                judged.append((result, Observation(script.path)))
            else:
                judged.append((judge(entry, outcome, catalog, release), outcome))
    return judged


def report_text(results: list[Result], release: str) -> str:
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
    else:
        lines.append("all others pass" if unverified else "all pass")
    return "\n".join(lines)
