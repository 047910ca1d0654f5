"""``check``: every gallery script run on the installed torch and its entry judged, and the
report of the verdicts.
"""

from __future__ import annotations

from autograd_errors.catalog import load
from autograd_errors.verification import environment, gallery
from autograd_errors.verification.consistency import correspondence_problems
from autograd_errors.verification.judge import judge
from autograd_errors.verification.observer import Observation, run_script
from autograd_errors.verification.verdicts import UNVERIFIED, Result, Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog


def check(
    catalog: Catalog | None = None,
    directory: str | None = None,
    only: list[str] | None = None,
) -> list[Result]:
    """Run every gallery script on the installed torch and judge each entry (``only``: just
    these entries)."""
    catalog = catalog or load()
    found = gallery.scripts(directory)
    if only is not None:
        found = [script for script in found if script.entry_id in only]
        return [result for result, _ in run_all(catalog, found)]
    results = [
        Result(entry_id, Status.FIX_FAILS, "", problem)
        for entry_id, problem in correspondence_problems(catalog, found)
    ]
    return results + [result for result, _ in run_all(catalog, found)]


def run_all(catalog: Catalog, found: list[gallery.Script]) -> list[tuple[Result, Observation]]:
    """Each catalog entry's script, run and judged on the installed torch."""
    release = environment.torch_version()
    judged = []
    for script in found:
        if script.entry_id in catalog:
            entry = catalog[script.entry_id]
            runs_here = entry.needs != "cuda" or environment.cuda_available()
            observation = run_script(script.path) if runs_here else Observation(script.path)
            result = judge(catalog[script.entry_id], observation, catalog, release)
            judged.append((result, observation))
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
