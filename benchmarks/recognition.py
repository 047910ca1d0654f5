"""How ``explain`` answers fresh real pastes: the right entry, an honest "no entry", or a wrong one.

The pastes are ``benchmarks/data/recognition-pastes*.json``, one file per sample: errors as
users pasted them in public threads, collected for this figure only (none from a thread the
catalog cites), each sample by someone who had not seen the matcher's answers to it. A sample
stays blind until the matcher is changed after its answers were read: its ``_about`` says so,
and its first figure is the blind one (the README keeps it). Each paste's answer is the
matcher's (:func:`find_entries`, what ``explain`` and the paste page show), classified against
the entry the paste expects (``expected``); a paste an entry explains counts again as one that
quotes a message or one in prose only (its ``kind``):

- right: the expected entry is the answer (first, not one of several), or, for a paste no entry
  explains, no entry is offered;
- among several: the expected entry is one of several partial matches, none put first;
- described: the paste quotes no message, and the answer was "no match" with the pages its
  sentences describe (``Explanation.described``): "its page" when the expected entry is the
  first of them, "another page" otherwise (for a paste no entry explains: any); neither is a
  right answer nor a wrong one, as the answer offers no entry as the explanation;
- no entry: the paste has an entry, and the answer was "No entry for this message" (a miss, not a
  wrong answer);
- wrong: an entry that is not the expected one was given (for a paste no entry explains: any).

    python benchmarks/recognition.py [--list] [SAMPLE ...]

``--list`` prints every paste that was not answered right, with its thread; SAMPLE (``2``,
``3``): only those samples (``recognition-pastes-2.json``; the first is
``recognition-pastes.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from autograd_errors import catalog  # noqa: E402
from autograd_errors.matcher.matching import Explanation, find_entries  # noqa: E402

DATA = REPO / "benchmarks" / "data"
OUTCOMES = (
    "right",
    "among several",
    "described, its page",
    "described, another page",
    "no entry",
    "wrong",
)


def outcome(expected: str | None, explanation: Explanation) -> str:
    """What the answer was, for a paste that expects ``expected`` (None: no entry explains it)."""
    found = [match.entry.id for match in explanation.matches]
    if not found and explanation.described:
        pages = [miss.entry.id for miss in explanation.near_misses]
        return (
            "described, its page"
            if expected and pages[0] == expected
            else "described, another page"
        )
    if not found:
        return "right" if expected is None else "no entry"
    if expected is None:
        return "wrong"
    if explanation.shared:
        return "among several" if expected in found else "wrong"
    return "right" if found[0] == expected else "wrong"


def _shares(counts: Counter[str], total: int) -> str:
    return ", ".join(
        f"{name} {counts[name]} ({counts[name] * 100 / max(total, 1):.1f}%)" for name in OUTCOMES
    )


def _print_rows(by_kind: dict[str, Counter[str]]) -> None:
    for row in ROWS:
        counts = by_kind[row]
        print(f"  {row:>17} ({sum(counts.values())}): {_shares(counts, sum(counts.values()))}")
    total = by_kind["with an entry"] + by_kind["without an entry"]
    print(f"  {'all':>17} ({sum(total.values())}): {_shares(total, sum(total.values()))}")


def sample_file(name: str) -> Path:
    """The file of sample ``name``: ``1`` is ``recognition-pastes.json``."""
    return DATA / ("recognition-pastes.json" if name == "1" else f"recognition-pastes-{name}.json")


#: The rows of a report: the pastes an entry explains, those of them that quote a message and
#: those that only describe the problem (each paste's ``kind``, given by whoever labelled it),
#: and the pastes no entry explains.
ROWS = ("with an entry", "quoting a message", "in prose only", "without an entry")


def rows_of(paste: dict[str, str | None]) -> list[str]:
    """The rows a paste counts in."""
    if not paste["expected"]:
        return ["without an entry"]
    kind = "quoting a message" if paste["kind"] == "message" else "in prose only"
    return ["with an entry", kind]


def report(path: Path, listing: bool, overall: dict[str, Counter[str]]) -> None:
    """Print how the matcher answers the pastes of ``path``; add its counts to ``overall``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = catalog.load()
    by_kind: dict[str, Counter[str]] = {row: Counter() for row in ROWS}
    misses = []
    for paste in data["pastes"]:
        explanation = find_entries(paste["text"], entries)
        result = outcome(paste["expected"], explanation)
        for row in rows_of(paste):
            by_kind[row][result] += 1
            overall[row][result] += 1
        if result != "right":
            answer = (
                [m.entry.id for m in explanation.matches]
                or [
                    f"pages {miss.entry.id}"
                    for miss in explanation.near_misses
                    if explanation.described
                ]
                or ["no entry"]
            )
            misses.append((result, paste["expected"], answer, paste["source"]))
    size = len(data["pastes"])
    print(f"{size} fresh real pastes, collected {data['date']} ({path.relative_to(REPO)})")
    _print_rows(by_kind)
    if listing:
        for result, expected, answer, source in misses:
            got = ", ".join(answer)
            print(f"{result:>13}: expected {expected or 'no entry'}, got {got}  {source}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the pastes not answered right")
    parser.add_argument("samples", nargs="*", help="the samples to measure (default: all)")
    options = parser.parse_args()
    if options.samples:
        paths = [sample_file(name) for name in options.samples]
    else:
        paths = sorted(DATA.glob("recognition-pastes*.json"), key=lambda p: (len(p.name), p.name))
    overall: dict[str, Counter[str]] = {row: Counter() for row in ROWS}
    for number, path in enumerate(paths):
        if not path.is_file():
            parser.error(f"no sample file {path.relative_to(REPO)}")
        if number:
            print()
        report(path, options.list, overall)
    if len(paths) > 1:
        print(f"\nThe {len(paths)} samples together, as measured now (not their blind figures):")
        _print_rows(overall)


if __name__ == "__main__":
    main()
