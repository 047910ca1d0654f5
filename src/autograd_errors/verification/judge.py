"""Judge an entry against the installed torch from what its gallery script did.

:mod:`.observer` runs a script and records what it raised; :func:`judge` gives the entry one
:class:`~.verdicts.Status`:

- ``OK``: every repro raised a message that matches this entry;
- ``DRIFT``: torch raised a message that matches no wording in the catalog;
- ``WRONG-ENTRY``: the message matches another entry;
- ``NO-ERROR``: a repro no longer raises;
- ``FIX-FAILS``: the script failed outside its repros (a fix raised, or a gradient check failed).
- ``RETIRED``: a retired entry's script ran, showing what current torch does instead.
- ``NOT-APPLICABLE``: the script uses a torch API this (older) release does not have.
- ``NEEDS-CUDA``: the entry's repro needs CUDA (``needs = "cuda"`` in its record) and this
  machine has none, so it was not verified. Neither passing nor failing: ``check`` exits 0 if
  nothing failed, and says on a line of its own how many entries it could not verify.
- ``UNTESTED``: a common cause of the entry, or its fix, is not executed by the script (no line
  tagged ``# cause: <id>`` or ``# fix: <id>`` ran where it must), or a tag names no cause.

Each common cause is executed as the gallery's tags say: a line tagged ``# cause: <id>`` sits
in a module-level ``try`` block (for a warning entry, any module-level block) that caught this
entry's message, and lines tagged ``# fix: <id>`` run at module level, outside any ``try``,
and the script does not crash. A cause's trigger that raises a neighbour's message is
``WRONG-ENTRY``, one that raises nothing ``NO-ERROR``. A pitfall's cause lines demonstrate the
silent behaviour: they must run.

A pitfall raises nothing: its script asserts the behaviour it describes (a failing assertion is
``FIX-FAILS``), and may show other entries' errors on the way.
"""

from __future__ import annotations

import ast
import difflib

from autograd_errors.catalog.releases import parse_release
from autograd_errors.matcher.matching import find_matches
from autograd_errors.verification import environment, gallery
from autograd_errors.verification.observer import module_blocks
from autograd_errors.verification.verdicts import NEEDS_CUDA_DETAIL, SEVERITY, Result, Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog, Cause, Entry
    from autograd_errors.verification.observer import Event, Observation


def judge(
    entry: Entry, observation: Observation, catalog: Catalog, release: str | None = None
) -> Result:
    """The status of ``entry`` given what its script did on torch ``release``."""
    if entry.needs == "cuda" and not environment.cuda_available():
        return Result(entry.id, Status.NEEDS_CUDA, "", NEEDS_CUDA_DETAIL)
    verdicts: list[tuple[Status, str, str]] = []  # (status, message, detail)
    own: list[Event] = []
    crash = observation.crash_event
    if crash is not None and entry.retired and _is_own(crash, entry, catalog):
        own.append(crash)  # an older release still raises the retired message
        crash = None
    blocks = module_blocks(observation.path)
    elsewhere = _blocks_of_other_releases(entry, observation.path, blocks, release)
    firsts = [_first_entry(event, catalog) for event in observation.events]
    # The module-level blocks (a repro's try, a with) where this entry's own message was seen.
    own_blocks = {
        id(block)
        for event, first in zip(observation.events, firsts, strict=True)
        if first is not None and first.id == entry.id and event.statement is not None
        for block in [_enclosing_block(blocks, event.statement)]
        if block is not None
    }
    for event, first in zip(observation.events, firsts, strict=True):
        if first is not None and first.id == entry.id:
            own.append(event)
            continue
        if any(_holds(block, event.statement) for block in elsewhere):
            continue  # a cause of other releases: what torch does here is not this entry's
        if entry.is_pitfall and first is not None:
            continue  # a pitfall page may show the errors its safer neighbour raises
        if event.kind == "warning" and not _judges_warning(entry, event, first):
            continue
        if event.kind == "warning" and event.statement is not None:
            block = _enclosing_block(blocks, event.statement)
            if block is not None and id(block) in own_blocks:
                continue  # a warning torch adds beside this entry's own (use_reentrant on 2.1)
        where = f"line {event.line}" if event.line else "torch"
        if event.kind == "exception" and _missing_torch_api(event):
            detail = f"{where}: this torch lacks an API the script uses: {event.text()}"
            verdicts.append((Status.NOT_APPLICABLE, "", detail))
            continue
        if first is not None:
            detail = _wrong_entry_detail(where, event, first, entry)
            verdicts.append((Status.WRONG_ENTRY, event.message, detail))
        else:
            verdicts.append((Status.DRIFT, event.message, _drift_detail(entry, event, where)))
    if crash is not None and _missing_torch_api(crash):
        verdicts.append(
            (Status.NOT_APPLICABLE, "", f"this torch lacks an API the script uses: {crash.text()}")
        )
    elif crash is not None:
        verdicts.append(
            (
                Status.FIX_FAILS,
                own[0].message if own else "",
                "the script failed outside its repros:\n" + (observation.crash or ""),
            )
        )
    retired_here = (
        entry.retired is not None
        and release is not None
        and parse_release(release) > parse_release(entry.retired.last_release)
    )
    for line in observation.silent_repros:
        if retired_here or any(block.lineno == line for block in elsewhere):
            continue  # a cause of other releases; a retired message's repro after its last one
        verdicts.append(
            (Status.NO_ERROR, "", f"the repro in the try block at line {line} raised nothing")
        )
    still_raised = (
        entry.retired is not None
        and release is not None
        and parse_release(release) <= parse_release(entry.retired.last_release)
    )
    if entry.retired and own and not still_raised:
        verdicts.append(
            (Status.DRIFT, own[0].message, "the entry is retired, but torch raised it again")
        )
    elif entry.retired and not own and not still_raised:
        last = entry.retired.last_release
        verdicts.append(
            (Status.RETIRED, "", f"last raised by torch {last}; now {entry.retired.replaced_by}")
        )
    elif (
        not own
        and not entry.is_pitfall
        and not any(s in (Status.DRIFT, Status.NOT_APPLICABLE) for s, _, _ in verdicts)
    ):
        verdicts.append(
            (Status.NO_ERROR, "", f"no {entry.exception} of this entry was raised or warned")
        )
    if crash is None:
        verdicts += _cause_verdicts(
            entry, observation, catalog, raises=not entry.retired, release=release
        )
    elif _missing_torch_api(crash):
        # The causes the script reached before it met the API this release lacks are judged;
        # the rest is not applicable here (the crash's verdict), not untested.
        verdicts += _cause_verdicts(
            entry, observation, catalog, raises=not entry.retired, release=release, stopped=True
        )
    # (Any other crash is the verdict: the script stopped early.)
    # The entry's own kind of event is its message: the error, not anomaly mode's warning.
    own.sort(key=lambda event: event.exception != entry.exception)
    if not verdicts:
        if entry.is_pitfall:
            return Result(entry.id, Status.OK, "", "the demonstration behaved as described")
        return Result(entry.id, Status.OK, own[0].message, f"{len(own)} message(s) matched")
    verdicts.sort(key=lambda verdict: SEVERITY.index(verdict[0]))
    status, message, _ = verdicts[0]
    detail = "\n".join(detail for _, _, detail in verdicts)
    return Result(entry.id, status, message or (own[0].message if own else ""), detail)


def _first_entry(event: Event, catalog: Catalog) -> Entry | None:
    """The entry whose message ``event`` is (the final one, when it holds several), or None."""
    matches = find_matches(event.text(), catalog)
    return matches[0].entry if matches else None


def _is_own(event: Event, entry: Entry, catalog: Catalog) -> bool:
    """Whether ``event`` is ``entry``'s own message."""
    first = _first_entry(event, catalog)
    return first is not None and first.id == entry.id


def _wrong_entry_detail(where: str, event: Event, other: Entry, entry: Entry) -> str:
    return (
        f"{where} raised {event.exception} {other.id!r}'s message, "
        f"not {entry.id!r}'s:\n  {event.text()}"
    )


def _applies(cause: Cause, release: str | None) -> bool:
    """Whether ``cause`` leads to its entry's message on torch ``release`` (unknown: yes)."""
    return release is None or release in cause.releases


def _blocks_of_other_releases(
    entry: Entry, path: str, blocks: list[ast.stmt], release: str | None
) -> list[ast.stmt]:
    """The module-level blocks whose tagged triggers are all of causes that do not hold on
    ``release``: what they raise there is not judged."""
    other = {cause.id for cause in entry.causes if not _applies(cause, release)}
    if not other:
        return []
    triggers: dict[int, set[str]] = {}  # block's first line -> the causes it triggers
    for line, tag, _ in gallery.line_tags(path):
        kind, _, cause_id = tag.partition(": ")
        block = _enclosing_block(blocks, line)
        if kind == gallery.CAUSE_TAG and block is not None:
            triggers.setdefault(block.lineno, set()).add(cause_id)
    return [b for b in blocks if triggers.get(b.lineno) and triggers[b.lineno] <= other]


def _holds(block: ast.stmt, line: int | None) -> bool:
    return line is not None and block.lineno <= line <= (block.end_lineno or block.lineno)


def _cause_verdicts(
    entry: Entry,
    observation: Observation,
    catalog: Catalog,
    raises: bool,
    release: str | None = None,
    stopped: bool = False,
) -> list[tuple[Status, str, str]]:
    """Whether the script executes each common cause of ``entry`` and its fix, as tagged; the
    triggers of causes that do not hold on ``release`` run, but what they raise is not judged.
    In a script ``stopped`` before its end, a tagged line that never ran is not a verdict."""
    blocks = module_blocks(observation.path)
    tagged, unknown = gallery.cause_tags(observation.path, entry)
    verdicts: list[tuple[Status, str, str]] = [(Status.UNTESTED, "", p) for p in unknown]
    for cause in entry.causes:
        for kind in (gallery.CAUSE_TAG, gallery.FIX_TAG):
            is_cause = kind == gallery.CAUSE_TAG
            what = f"cause {cause.id!r}" if is_cause else f"the fix of {cause.id!r}"
            lines = tagged.get((kind, cause.id), [])
            ran = [line for line in lines if _statement(blocks, line) in observation.executed]
            if not lines:
                reason = f"no line is tagged '# {kind}: {cause.id}'"
            elif not ran:
                reason = f"line {lines[0]} never ran"
            else:
                reason = ""
            if lines and not ran and stopped:
                continue
            if reason:
                detail = f"{what} is not executed by the script ({reason})"
                verdicts.append((Status.UNTESTED, "", detail))
                continue
            if is_cause and not _applies(cause, release):
                continue  # it ran on a release it does not hold for: what it raised is not judged
            for line in ran:
                block = _enclosing_block(blocks, line)
                if not is_cause and isinstance(block, ast.Try):
                    detail = (
                        f"{what} (line {line}) is inside a try block, which would hide its failure"
                    )
                    verdicts.append((Status.UNTESTED, "", detail))
                elif kind == gallery.CAUSE_TAG and not entry.is_pitfall and raises:
                    verdicts += _trigger_verdicts(entry, observation, catalog, what, line, block)
    return verdicts


def _trigger_verdicts(
    entry: Entry,
    observation: Observation,
    catalog: Catalog,
    what: str,
    line: int,
    block: ast.stmt | None,
) -> list[tuple[Status, str, str]]:
    """A cause's trigger line must be in a module-level block that caught this entry's message
    (an exception caught by a ``try``; for a warning entry, a warning in any block)."""
    warns = entry.exception.endswith("Warning")
    where = f"{what} (line {line})"
    if block is None or not (isinstance(block, ast.Try) or warns):
        return [(Status.UNTESTED, "", f"{where} is not inside a module-level try block")]
    if isinstance(block, ast.Try):
        first, last = block.body[0].lineno, block.body[-1].end_lineno or block.body[-1].lineno
    else:
        first, last = block.lineno, block.end_lineno or block.lineno
    # An exception is where the module-level code caught it; a warning, at the statement that
    # was running when torch warned.
    inside = [
        event
        for event in observation.events
        if (event.kind == "exception" or (warns and event.kind == "warning"))
        and event.statement is not None
        and first <= event.statement <= last
    ]
    verdicts: list[tuple[Status, str, str]] = []
    for event in inside:
        matched = _first_entry(event, catalog)
        if matched is not None and matched.id == entry.id:
            return []
        if event.kind == "exception" and _missing_torch_api(event):
            detail = f"{where}: this torch lacks an API it uses: {event.text()}"
            verdicts.append((Status.NOT_APPLICABLE, "", detail))
        elif matched is not None:
            detail = _wrong_entry_detail(where, event, matched, entry)
            verdicts.append((Status.WRONG_ENTRY, event.message, detail))
        else:
            detail = f"{where} raised a message no wording matches:\n  {event.text()}"
            verdicts.append((Status.DRIFT, event.message, detail))
    return verdicts or [(Status.NO_ERROR, "", f"{where} raised nothing")]


def _enclosing_block(blocks: list[ast.stmt], line: int) -> ast.stmt | None:
    """The module-level statement that holds ``line``."""
    for node in blocks:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            return node
    return None


def _statement(blocks: list[ast.stmt], line: int) -> int | None:
    """The first line of the innermost module-level statement that holds ``line`` (the line the
    trace sees run), or None when the line is in a function or class, or in no statement."""
    found: int | None = None
    nodes: list[ast.stmt] = blocks
    while True:
        holder = next(
            (n for n in nodes if n.lineno <= line <= (n.end_lineno or n.lineno)),
            None,
        )
        if holder is None:
            return found
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        found = holder.lineno
        children: list[ast.stmt] = []
        for field in ("body", "orelse", "finalbody"):
            children += getattr(holder, field, [])
        for handler in getattr(holder, "handlers", []):
            children += handler.body
        for case in getattr(holder, "cases", []):
            children += case.body
        if not children:
            return found
        nodes = children


def _missing_torch_api(event: Event) -> bool:
    """Whether the script met a torch API this release does not have (a module, a name, a
    keyword argument), where it stopped or inside a repro."""
    message = event.message
    if event.exception in ("AttributeError", "ImportError", "ModuleNotFoundError"):
        return "torch" in message
    return event.exception == "TypeError" and "unexpected keyword argument" in message


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
