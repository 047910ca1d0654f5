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

import contextlib
import json
import os
import platform
import re
import sys
import tempfile

from autograd_errors.matching import find_matches
from autograd_errors.releases import parse_release
from autograd_errors.verify import Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog import Catalog, Entry, Wording
    from autograd_errors.observe import Observation
    from autograd_errors.verify import Result

_TRIGGERED = " (Triggered internally at "
_SOURCE_PREFIXES = ("https://github.com/",)
_SOURCE_KINDS = ("/blob/", "/tree/", "/commit/", "/pull/", "/issues/")


def checkout_root() -> str | None:
    """The checkout this package runs from, or None for an installed package."""
    from autograd_errors.gallery import gallery_dir

    root = os.path.dirname(gallery_dir())
    return root if os.path.isdir(os.path.join(root, "src", "autograd_errors")) else None


def default_directory() -> str | None:
    """``data/observed`` of the checkout this package runs from (None outside a checkout)."""
    root = checkout_root()
    return os.path.join(root, "data", "observed") if root else None


def reference_release(constraints: str | None = None) -> str:
    """The reference torch release: the one ``constraints.txt`` pins, whose recording must
    hold every entry (older recordings may lack newer entries)."""
    if constraints is None:
        root = checkout_root()
        if root is None:
            raise FileNotFoundError("no checkout, so no constraints.txt")
        constraints = os.path.join(root, "constraints.txt")
    with open(constraints, encoding="utf-8") as handle:
        for line in handle:
            found = re.fullmatch(r"torch==([0-9.]+)", line.split("#", 1)[0].strip())
            if found:
                return found.group(1)
    raise ValueError(f"{constraints} pins no torch release")


def public_release(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``."""
    return ".".join(map(str, parse_release(version)))


def is_pre_release(version: str) -> bool:
    """Whether ``version`` is a development build or a pre-release (``2.14.0.dev20251201+cpu``,
    ``2.6.0a0``): not a release a recording may stand for."""
    return re.fullmatch(r"\d+\.\d+(\.\d+)?", version.split("+", 1)[0]) is None


def write_recording(path: str, data: dict[str, Any]) -> None:
    """Write a recording whole or not at all: a temporary file beside it, then a rename, so
    that a full disk or an interrupt leaves the previous recording as it was."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".torch-", suffix=".json.tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=1, ensure_ascii=False, sort_keys=True)
            stream.write("\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def output_problem(path: str) -> str | None:
    """Why a recording cannot be written to ``path`` (checked before any script runs), or
    None; a missing directory is created."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.exists(directory) and not os.path.isdir(directory):
        return f"{directory} is not a directory"
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        return f"cannot create {directory}: {error.strerror or error}"
    if os.path.isdir(path):
        return f"{path} is a directory"
    try:
        handle, probe = tempfile.mkstemp(prefix=".torch-", suffix=".json.tmp", dir=directory)
    except OSError as error:
        return f"cannot write to {directory}: {error.strerror or error}"
    os.close(handle)
    os.unlink(probe)
    return None


def recording_path(directory: str, torch_version: str) -> str:
    """Where ``record`` writes torch ``torch_version``'s recording in ``directory``."""
    return os.path.join(directory, f"torch-{public_release(torch_version)}.json")


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
    if directory is None or not os.path.isdir(directory):
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
            "detail": result.detail if result.status is not Status.OK else "",
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


def completeness_problems(
    catalog: Catalog, recordings: list[Recording], reference: str
) -> list[str]:
    """What the reference release's recording lacks: every entry must be recorded there, and
    pass. Older recordings may lack newer entries (their pages say "not recorded")."""
    found = [recording for recording in recordings if recording.release == reference]
    if not found:
        return [f"torch {reference}: no recording; run `make record`"]
    (recording,) = found
    problems = [
        f"torch {reference}: {entry.id} is not recorded; run `make record`"
        for entry in catalog
        if entry.id not in recording.entries
    ]
    for entry_id, observed in recording.entries.items():
        if Status(observed["status"]).failing:
            problems.append(f"torch {reference}: {entry_id} is {observed['status']}")
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
