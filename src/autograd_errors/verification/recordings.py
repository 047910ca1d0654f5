"""What each torch release really raised for each entry: the recordings of ``data/observed/``,
written and read.

``python -m autograd_errors record`` runs the gallery on the installed torch and writes
``data/observed/torch-<release>.json``; ``make matrix`` does it for several releases, each in a
venv of its own. The tests read the committed recordings, so they need no old torch; their
agreement with the catalog is a stage of :mod:`.consistency`.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import tempfile

from autograd_errors.catalog.releases import parse_release
from autograd_errors.interpreter.files import write_json
from autograd_errors.matcher.matching import find_matches
from autograd_errors.verification.verdicts import Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog.model import Catalog, Entry
    from autograd_errors.verification.observer import Observation
    from autograd_errors.verification.verdicts import Result

_TRIGGERED = " (Triggered internally at "


def checkout_root() -> str | None:
    """The checkout this package runs from, or None for an installed package."""
    from autograd_errors.verification.gallery import gallery_dir

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
    """Write a recording whole or not at all (:func:`.files.write_json
    <autograd_errors.interpreter.files.write_json>`), so that a full disk or an interrupt
    leaves the previous recording as it was."""
    write_json(path, data, prefix=".torch-", indent=1, sort_keys=True)


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
    suffix, and, for a warning followed by a traceback, its first line only; :func:`portable`."""
    first_line = message.split("\n", 1)[0]
    if _TRIGGERED in first_line:
        first_line = first_line[: first_line.index(_TRIGGERED)]
    return portable(first_line.rstrip())


#: Where installed packages live, up to their own folders (``.../lib/python3.11/site-packages/``).
_INSTALL_PREFIX = re.compile(r"[^\s(\"']*[/\\](?:site|dist)-packages[/\\]")


def portable(text: str) -> str:
    """``text`` without the folders torch is installed in (Python's ImportError names the
    module's file): a recording is committed, and is the same whatever machine made it."""
    return _INSTALL_PREFIX.sub("", text)


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
            "detail": portable(result.detail) if result.status is not Status.OK else "",
            "events": recorded,
        }
    return {
        "torch": torch_version,
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
        "entries": entries,
    }
