"""Verify every entry against the installed torch by running its gallery script.

A gallery script triggers its entry's error inside a module-level ``try`` (warnings: inside
``warnings.catch_warnings``), prints it, then runs the fixes, which check their gradients.
Scripts stay plain, standalone Python; what they raise is observed from outside, with a trace
function on the script's module frame and a hook on the warnings machinery. The same observer
runs under ``python -m autograd_errors check`` and under sphinx-gallery while the site builds.

Each entry gets one status:

- ``OK``: every repro raised a message that matches this entry;
- ``DRIFT``: torch raised a message that matches no wording in the catalog;
- ``WRONG-ENTRY``: the message matches another entry;
- ``NO-ERROR``: a repro no longer raises;
- ``FIX-FAILS``: the script failed outside its repros (a fix raised, or a gradient check failed).
- ``RETIRED``: a retired entry's script ran, showing what current torch does instead.
- ``NOT-APPLICABLE``: the script uses a torch API this (older) release does not have.

A pitfall raises nothing: its script asserts the behaviour it describes (a failing assertion is
``FIX-FAILS``), and may show other entries' errors on the way.
"""

from __future__ import annotations

import ast
import difflib
import io
import os
import sys
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout

from autograd_errors import catalog as catalog_module
from autograd_errors import gallery
from autograd_errors.matching import find_matches
from autograd_errors.releases import parse_release

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

    from autograd_errors.catalog import Catalog, Entry

OK, DRIFT, WRONG_ENTRY, NO_ERROR, FIX_FAILS = "OK", "DRIFT", "WRONG-ENTRY", "NO-ERROR", "FIX-FAILS"
RETIRED, NOT_APPLICABLE = "RETIRED", "NOT-APPLICABLE"
#: Worst first: an entry's status is the worst of what its script showed.
SEVERITY = (FIX_FAILS, WRONG_ENTRY, DRIFT, NO_ERROR, NOT_APPLICABLE, RETIRED, OK)
#: The statuses that are not failures.
PASSING = (OK, RETIRED, NOT_APPLICABLE)


class Event:
    """An exception the script caught at module level, or a warning it triggered."""

    __slots__ = ("exception", "kind", "line", "message")

    def __init__(self, kind: str, exception: str, message: str, line: int | None) -> None:
        self.kind = kind  # "exception", "warning", or "crash" (an exception nothing caught)
        self.exception = exception
        self.message = message
        self.line = line

    def text(self) -> str:
        return f"{self.exception}: {self.message}"


class Observation:
    """What one run of a gallery script did."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self.events: list[Event] = []
        self.crash: str | None = None  # the traceback of an exception the script did not catch
        self.crash_event: Event | None = None  # that exception, as an event
        # Lines of module-level ``try`` blocks that caught nothing:
        self.silent_repros: list[int] = []
        self.executed: set[int] = set()  # module-level lines that ran


class Observer:
    """Records what a script's module-level code catches, and every warning, while active."""

    def __init__(self, path: str) -> None:
        self.observation = Observation(path)
        self._pending: tuple[Event, BaseException] | None = None
        self._previous_trace: Any = None
        self._original_show: Any = None

    def start(self) -> None:
        self._previous_trace = sys.gettrace()
        self._original_show = warnings._showwarnmsg  # type: ignore[attr-defined]
        original = self._original_show

        def show(message: warnings.WarningMessage) -> None:
            line = message.lineno if self._is_script(message.filename) else None
            event = Event("warning", message.category.__name__, str(message.message), line)
            self.observation.events.append(event)
            original(message)

        warnings._showwarnmsg = show  # type: ignore[attr-defined]
        sys.settrace(self._trace)

    def stop(self) -> Observation:
        sys.settrace(self._previous_trace)
        if self._original_show is not None:
            warnings._showwarnmsg = self._original_show  # type: ignore[attr-defined]
        self._flush_pending(caught=False)
        self.observation.silent_repros = _silent_repros(self.observation)
        return self.observation

    def record_crash(self, error: BaseException) -> None:
        self._pending = None
        self._set_crash(error, None)

    def _set_crash(self, error: BaseException, line: int | None) -> None:
        if self.observation.crash is not None:
            return
        self.observation.crash = "".join(traceback.format_exception(error)).rstrip()
        self.observation.crash_event = Event("crash", type(error).__name__, str(error), line)

    def _is_script(self, filename: str) -> bool:
        return os.path.abspath(filename) == self.observation.path

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_name == "<module>" and self._is_script(frame.f_code.co_filename):
            return self._trace_script
        return None

    def _trace_script(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "exception":
            self._flush_pending(caught=False)
            _, error, _ = arg
            self._pending = (
                Event("exception", type(error).__name__, str(error), frame.f_lineno),
                error,
            )
        elif event == "line":
            self._flush_pending(caught=True)
            self.observation.executed.add(frame.f_lineno)
        elif event == "return":
            self._flush_pending(caught=False)
        return self._trace_script

    def _flush_pending(self, caught: bool) -> None:
        if self._pending is None:
            return
        event, error = self._pending
        self._pending = None
        if caught:
            self.observation.events.append(event)
        else:
            self._set_crash(error, event.line)


def _silent_repros(observation: Observation) -> list[int]:
    """Module-level ``try`` blocks of the script in which no exception was caught."""
    try:
        with open(observation.path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError):
        return []
    caught_lines = {e.line for e in observation.events if e.kind == "exception"}
    silent = []
    for node in tree.body:
        if isinstance(node, ast.Try) and node.handlers:
            first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
            if first not in observation.executed:
                continue  # never reached: the script stopped earlier
            if not any(line is not None and first <= line <= last for line in caught_lines):
                silent.append(node.lineno)
    return silent


def reset_torch_state() -> None:
    """Give the next script a clean interpreter state, as a new process would have.

    Anomaly mode, grad mode, default dtype and seeds go back to their defaults, and every
    warn-once registry is emptied, so a warning one script showed shows again in the next.
    """
    import random

    import torch

    torch.autograd.set_detect_anomaly(False)
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.use_deterministic_algorithms(False)
    torch.set_warn_always(True)
    torch.manual_seed(0)
    random.seed(0)
    try:
        import numpy

        numpy.random.seed(0)
    except ImportError:
        pass
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for module in list(sys.modules.values()):
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()


def run_script(path: str) -> Observation:
    """Run one gallery script in this interpreter, as ``python script.py`` would."""
    reset_torch_state()
    with open(path, encoding="utf-8") as handle:
        code = compile(handle.read(), os.path.abspath(path), "exec")
    namespace = {"__name__": "__main__", "__file__": os.path.abspath(path)}
    observer = Observer(path)
    # What the script prints is its page's business; check's report is the verdicts.
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        observer.start()
        try:
            exec(code, namespace)
        except BaseException as error:  # noqa: BLE001 - a failing script is a result
            observer.record_crash(error)
        finally:
            observation = observer.stop()
    return observation


class Result:
    """An entry's verdict: a status, what torch said, and a human explanation."""

    __slots__ = ("detail", "entry_id", "message", "status")

    def __init__(self, entry_id: str, status: str, message: str, detail: str) -> None:
        self.entry_id = entry_id
        self.status = status
        self.message = message
        self.detail = detail

    def as_dict(self) -> dict[str, str]:
        return {
            "id": self.entry_id,
            "status": self.status,
            "message": self.message,
            "detail": self.detail,
        }


def judge(
    entry: Entry, observation: Observation, catalog: Catalog, release: str | None = None
) -> Result:
    """The status of ``entry`` given what its script did on torch ``release``."""
    verdicts: list[tuple[str, str, str]] = []  # (status, message, detail)
    own: list[Event] = []
    crash = observation.crash_event
    if crash is not None and entry.retired:
        matches = find_matches(crash.text(), catalog)
        if matches and matches[0].entry.id == entry.id:
            own.append(crash)  # an older release still raises the retired message
            crash = None
    for event in observation.events:
        matches = find_matches(event.text(), catalog)
        first = matches[0].entry if matches else None
        if first is not None and first.id == entry.id:
            own.append(event)
            continue
        if entry.is_pitfall and first is not None:
            continue  # a pitfall page may show the errors its safer neighbour raises
        if event.kind == "warning" and not _judges_warning(entry, event, first):
            continue
        where = f"line {event.line}" if event.line else "torch"
        if first is not None:
            detail = (
                f"{where} raised {event.exception} {first.id!r}'s message, "
                f"not {entry.id!r}'s:\n  {event.text()}"
            )
            verdicts.append((WRONG_ENTRY, event.message, detail))
        else:
            verdicts.append((DRIFT, event.message, _drift_detail(entry, event, where)))
    if crash is not None and _missing_torch_api(crash):
        verdicts.append(
            (NOT_APPLICABLE, "", f"this torch lacks an API the script uses: {crash.text()}")
        )
    elif crash is not None:
        verdicts.append(
            (
                FIX_FAILS,
                own[0].message if own else "",
                "the script failed outside its repros:\n" + (observation.crash or ""),
            )
        )
    for line in observation.silent_repros:
        verdicts.append((NO_ERROR, "", f"the repro in the try block at line {line} raised nothing"))
    still_raised = (
        entry.retired is not None
        and release is not None
        and parse_release(release) <= parse_release(entry.retired.last_release)
    )
    if entry.retired and own and not still_raised:
        verdicts.append((DRIFT, own[0].message, "the entry is retired, but torch raised it again"))
    elif entry.retired and not own and not still_raised:
        last = entry.retired.last_release
        verdicts.append(
            (RETIRED, "", f"last raised by torch {last}; now {entry.retired.replaced_by}")
        )
    elif (
        not own
        and not entry.is_pitfall
        and not any(s in (DRIFT, NOT_APPLICABLE) for s, _, _ in verdicts)
    ):
        verdicts.append((NO_ERROR, "", f"no {entry.exception} of this entry was raised or warned"))
    # The entry's own kind of event is its message: the error, not anomaly mode's warning.
    own.sort(key=lambda event: event.exception != entry.exception)
    if not verdicts:
        if entry.is_pitfall:
            return Result(entry.id, OK, "", "the demonstration behaved as described")
        return Result(entry.id, OK, own[0].message, f"{len(own)} message(s) matched")
    verdicts.sort(key=lambda verdict: SEVERITY.index(verdict[0]))
    status, message, _ = verdicts[0]
    detail = "\n".join(detail for _, _, detail in verdicts)
    return Result(entry.id, status, message or (own[0].message if own else ""), detail)


def _missing_torch_api(crash: Event) -> bool:
    """Whether the script stopped on a torch API this release does not have."""
    message = crash.message
    if crash.exception in ("AttributeError", "ImportError", "ModuleNotFoundError"):
        return "torch" in message
    return crash.exception == "TypeError" and "unexpected keyword argument" in message


def _judges_warning(entry: Entry, event: Event, matched: Entry | None) -> bool:
    """Warnings are verdicts only for warning entries; another entry's warning is a fix's
    diagnostic (anomaly mode used to find an in-place change), not a wrong entry."""
    own_categories = {w.exception for w in entry.wordings if w.exception.endswith("Warning")}
    return matched is None and event.exception in own_categories


def _drift_detail(entry: Entry, event: Event, where: str) -> str:
    candidates = [w for w in entry.wordings if w.exception == event.exception]
    closest = max(
        candidates or entry.wordings,
        key=lambda w: difflib.SequenceMatcher(None, w.message, event.message).ratio(),
    )
    return (
        f"{where} raised a message that no wording in the catalog matches.\n"
        f"  expected ({closest.variant}): {closest.message}\n"
        f"  torch said:            {event.message}\n"
        f"  diff: {word_diff(closest.message, event.message)}"
    )


def word_diff(expected: str, actual: str) -> str:
    """``expected`` turned into ``actual``, word by word: ``[-removed-]{+added+}``."""
    old, new = expected.split(), actual.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if op == "equal":
            out += old[i1:i2]
            continue
        if i2 > i1:
            out.append("[-" + " ".join(old[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + " ".join(new[j1:j2]) + "+}")
    return " ".join(out)


def check(catalog: Catalog | None = None, directory: str | None = None) -> list[Result]:
    """Run every gallery script on the installed torch and judge each entry."""
    catalog = catalog or catalog_module.load()
    found = gallery.scripts(directory)
    results = [
        Result(problem.split(":", 1)[0], FIX_FAILS, "", problem)
        for problem in gallery.correspondence_problems(catalog, found)
    ]
    return results + [result for result, _ in run_all(catalog, found)]


def run_all(catalog: Catalog, found: list[gallery.Script]) -> list[tuple[Result, Observation]]:
    """Each catalog entry's script, run and judged on the installed torch."""
    release = torch_version()
    judged = []
    for script in found:
        if script.entry_id in catalog:
            observation = run_script(script.path)
            result = judge(catalog[script.entry_id], observation, catalog, release)
            judged.append((result, observation))
    return judged


def torch_version() -> str:
    import torch

    return torch.__version__


def report_text(results: list[Result], release: str) -> str:
    lines = [f"torch {release}: {len(results)} entries checked"]
    width = max((len(r.entry_id) for r in results), default=0)
    for result in results:
        lines.append(f"{result.status:11} {result.entry_id:{width}}  {result.message[:100]}")
        if result.status != OK:
            lines += ["            " + line for line in result.detail.splitlines()]
    failed = sum(result.status not in PASSING for result in results)
    lines.append(
        "all pass" if not failed else f"{failed} entr{'y' if failed == 1 else 'ies'} failed"
    )
    return "\n".join(lines)


def record_main(output: str | None) -> int:
    """``python -m autograd_errors record``: write what the installed torch raises, per entry."""
    try:
        import torch
    except ImportError:
        print("autograd-errors record: torch is not installed", file=sys.stderr)
        return 2
    import json

    from autograd_errors import observations

    catalog = catalog_module.load()
    judged = run_all(catalog, gallery.scripts())
    data = observations.recording_data(catalog, judged, torch.__version__)
    directory = output or observations.default_directory()
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"torch-{observations.public_release(torch.__version__)}.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, ensure_ascii=False, sort_keys=True)
        handle.write("\n")
    counts: dict[str, int] = {}
    for result, _ in judged:
        counts[result.status] = counts.get(result.status, 0) + 1
    summary = ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    print(f"torch {torch.__version__}: {summary}; written to {path}")
    return 0 if all(result.status in PASSING for result, _ in judged) else 1


def main(json_output: bool = False) -> int:
    """``python -m autograd_errors check``: 0 when every entry passes, else 1."""
    try:
        import torch
    except ImportError:
        print("autograd-errors check: torch is not installed; `pip install torch`", file=sys.stderr)
        return 2
    results = check()
    version = torch.__version__
    if json_output:
        import json

        print(json.dumps({"torch": version, "results": [r.as_dict() for r in results]}, indent=2))
    else:
        print(report_text(results, version))
    return 0 if all(result.status in PASSING for result in results) else 1
