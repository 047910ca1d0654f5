"""What each torch release really raised for each entry: recordings, and their agreement with
the catalog.

``python -m autograd_errors record`` runs the gallery on the installed torch and writes
``data/observed/torch-<release>.json``; ``make matrix`` does it for several releases, each in a
venv of its own. The tests read the committed recordings, so they need no old torch:

1. every observed message matches its own entry;
2. the wording it matches claims the observed release;
3. no other wording of the same form claims that release;
4. every wording cites its source (a PyTorch file, commit or PR, or an issue thread).
"""

from __future__ import annotations

import json
import os
import platform
import sys

from autograd_errors.matching import find_matches
from autograd_errors.releases import parse_release

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog import Catalog, Entry, Wording
    from autograd_errors.verify import Observation, Result

_TRIGGERED = " (Triggered internally at "
_SOURCE_PREFIXES = ("https://github.com/",)
_SOURCE_KINDS = ("/blob/", "/tree/", "/commit/", "/pull/", "/issues/")


def default_directory() -> str:
    """``data/observed`` of the checkout this package runs from."""
    from autograd_errors.gallery import gallery_dir

    return os.path.join(os.path.dirname(gallery_dir()), "data", "observed")


def public_release(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``."""
    return ".".join(map(str, parse_release(version)))


def clean_message(message: str) -> str:
    """A message as recorded: without torch's build-specific ``(Triggered internally at ...)``
    suffix, and, for a warning followed by a traceback, its first line only."""
    first_line = message.split("\n", 1)[0]
    if _TRIGGERED in first_line:
        first_line = first_line[: first_line.index(_TRIGGERED)]
    return first_line.rstrip()


class Recording:
    """One release's observations, as loaded from its file."""

    def __init__(self, data: dict[str, Any], path: str = "") -> None:
        self.path = path
        self.torch: str = data["torch"]
        self.release = public_release(self.torch)
        self.python: str = data["python"]
        self.platform: str = data["platform"]
        self.entries: dict[str, dict[str, Any]] = data["entries"]

    def own_events(self, entry_id: str) -> list[dict[str, Any]]:
        observed = self.entries.get(entry_id)
        if observed is None:
            return []
        return [event for event in observed["events"] if event["entry"] == entry_id]

    def message(self, entry: Entry) -> str | None:
        """The entry's message on this release: its own exception first, else its warning."""
        events = self.own_events(entry.id)
        events.sort(key=lambda event: event["exception"] != entry.exception)
        return events[0]["message"] if events else None


def load_recordings(directory: str | None = None) -> list[Recording]:
    """Every recording in ``directory``, oldest release first."""
    directory = directory or default_directory()
    if not os.path.isdir(directory):
        return []
    recordings = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("torch-") and name.endswith(".json"):
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as handle:
                recordings.append(Recording(json.load(handle), path))
    recordings.sort(key=lambda recording: parse_release(recording.release))
    return recordings


def recording_data(
    catalog: Catalog, results: list[tuple[Result, Observation]], torch_version: str
) -> dict[str, Any]:
    """The JSON document ``record`` writes for one release."""
    entries: dict[str, Any] = {}
    for result, observation in results:
        events = list(observation.events)
        if observation.crash_event is not None:
            events.append(observation.crash_event)
        recorded = []
        for event in events:
            matches = find_matches(event.text(), catalog)
            if not matches and event.kind == "warning":
                continue  # a warning no entry knows: not this reference's business
            match = matches[0] if matches else None
            recorded.append(
                {
                    "kind": event.kind,
                    "exception": event.exception,
                    "message": clean_message(event.message),
                    "line": event.line,
                    "entry": match.entry.id if match else None,
                    "variant": match.wording.variant if match else None,
                }
            )
        entries[result.entry_id] = {
            "status": result.status,
            "detail": result.detail if result.status != "OK" else "",
            "events": recorded,
        }
    return {
        "torch": torch_version,
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
        "entries": entries,
    }


def consistency_problems(catalog: Catalog, recordings: list[Recording]) -> list[str]:
    """Where the recordings and the catalog disagree (rules 1 to 3 of this module)."""
    problems = []
    for recording in recordings:
        where = f"torch {recording.release}"
        for entry_id, observed in recording.entries.items():
            if entry_id not in catalog:
                problems.append(f"{where}: {entry_id} is recorded but not in the catalog")
                continue
            for event in observed["events"]:
                if event["entry"] is None:
                    continue
                problems += _event_problems(catalog, where, recording.release, event)
    return problems


def _event_problems(catalog: Catalog, where: str, release: str, event: dict[str, Any]) -> list[str]:
    text = f"{event['exception']}: {event['message']}"
    matches = find_matches(text, catalog)
    recorded_as = event["entry"]
    if not matches or matches[0].entry.id != recorded_as:
        found = matches[0].entry.id if matches else "nothing"
        return [f"{where}: {recorded_as}'s message now matches {found}: {text}"]
    wording = matches[0].wording
    entry = matches[0].entry
    problems = []
    if release not in wording.releases:
        problems.append(
            f"{where}: {entry.id} wording {wording.variant!r} claims "
            f"{wording.releases.describe()}, but {release} printed it: {text}"
        )
    for other in _same_form(entry, wording):
        if release in other.releases:
            problems.append(
                f"{where}: {entry.id} wording {other.variant!r} claims {release}, "
                f"which printed {wording.variant!r} instead: {text}"
            )
    return problems


def _same_form(entry: Entry, wording: Wording) -> list[Wording]:
    return [w for w in entry.wordings if w.form == wording.form and w is not wording]


def source_problems(catalog: Catalog) -> list[str]:
    """Wordings whose source is not a PyTorch file, commit or PR, or an issue thread."""
    problems = []
    for entry in catalog:
        for wording in entry.wordings:
            source = wording.source
            cited = source.startswith(_SOURCE_PREFIXES) and any(k in source for k in _SOURCE_KINDS)
            if not cited:
                problems.append(f"{entry.id} {wording.variant!r}: source {source!r}")
    return problems
