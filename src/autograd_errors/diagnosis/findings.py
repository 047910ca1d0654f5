"""What a diagnosis found, as data: :class:`Diagnosis`, its :class:`Culprit` lines and its
:class:`Note` sentences. Nothing here renders or prints;
:mod:`autograd_errors.rendering.diagnosis` does.

A note is a key of :data:`autograd_errors.rendering.strings.STRINGS` and the values it is
filled with, so that every surface can say it in the user's language. Values are code, names,
numbers: they stay as they are in every language.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The roles a culprit line plays, in the order a reader needs them. The ids are the JSON
#: report's ``role`` values; each has a ``diagnose.role.<id>`` text in ui.py.
ROLES = (
    "changed-in-place",  # the in-place operation that changed a saved tensor
    "saved",  # the forward line whose operation saved that tensor
    "carried-over",  # where a tensor with an old graph was kept for a later step
    "not-detached",  # where a freed graph was joined to a loss that freed it (a GAN's D step)
    "reused",  # where this step used a tensor whose graph an earlier backward freed
    "built",  # where that freed graph was built
    "freed-by",  # the earlier backward() that freed it
    "no-grad",  # the `with torch.no_grad():` (or decorator) around the cut
    "graph-cut",  # the operation whose result left the graph
    "frozen",  # where requires_grad was turned off
    "became-non-leaf",  # where a tensor created with requires_grad=True was replaced by a copy
    "non-finite",  # the forward line of the first backward node whose output was not finite
    "reported",  # the forward line of the node anomaly mode named, when it is not the origin
    "raised",  # the line that raised, when the bug is there
)


@dataclass(frozen=True)
class Note:
    """A sentence: the ui.py key ``key`` filled with ``values``."""

    key: str
    values: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {"key": self.key, "values": dict(self.values)}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Note:
        values = data.get("values") or {}
        assert isinstance(values, dict)
        return cls(str(data["key"]), {str(k): str(v) for k, v in values.items()})


@dataclass(frozen=True)
class Culprit:
    """A line of the user's own code and the part it played."""

    path: str  # absolute
    line: int
    role: str  # one of ROLES
    code: str  # the line's source, stripped
    what: Note | None = None  # what happened there

    def report(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "role": self.role, "code": self.code}

    def as_dict(self) -> dict[str, object]:
        return {**self.report(), "what": self.what.as_dict() if self.what else None}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Culprit:
        what = data.get("what")
        line = data["line"]
        assert isinstance(line, int)
        assert isinstance(what, dict | None)
        return cls(
            str(data["path"]),
            line,
            str(data["role"]),
            str(data["code"]),
            Note.from_dict(what) if what else None,
        )


@dataclass(frozen=True)
class Diagnosis:
    """The findings for one failure.

    ``entry``: the catalog entry of the error (None: the error is not one the catalog knows).
    ``cause``: the id of the entry's common cause that the evidence supports, or None.
    ``culprits``: lines of the user's code, most likely first; empty when nothing was found,
    and then ``notes`` say what was looked for. ``rerun_seconds``: how long the instrumented
    re-run took, when there was one."""

    entry: str | None
    cause: str | None = None
    culprits: tuple[Culprit, ...] = ()
    notes: tuple[Note, ...] = ()
    rerun_seconds: float | None = None

    @property
    def found(self) -> bool:
        return bool(self.culprits)

    def report(self) -> dict[str, object]:
        """The JSON report of ``run --diagnose --report FILE``."""
        return {
            "entry": self.entry,
            "cause": self.cause,
            "culprits": [culprit.report() for culprit in self.culprits],
        }

    def as_dict(self) -> dict[str, object]:
        """Everything, for the re-run to hand back to the process that started it."""
        return {
            "entry": self.entry,
            "cause": self.cause,
            "culprits": [culprit.as_dict() for culprit in self.culprits],
            "notes": [note.as_dict() for note in self.notes],
            "rerun_seconds": self.rerun_seconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Diagnosis:
        culprits, notes, seconds = data["culprits"], data["notes"], data.get("rerun_seconds")
        assert isinstance(culprits, list)
        assert isinstance(notes, list)
        assert isinstance(seconds, float | int | None)
        entry, cause = data.get("entry"), data.get("cause")
        return cls(
            None if entry is None else str(entry),
            None if cause is None else str(cause),
            tuple(Culprit.from_dict(culprit) for culprit in culprits),
            tuple(Note.from_dict(note) for note in notes),
            None if seconds is None else float(seconds),
        )

    def with_notes(self, *notes: Note) -> Diagnosis:
        return Diagnosis(self.entry, self.cause, self.culprits, (*self.notes, *notes))


def nothing(entry: str | None, *notes: Note) -> Diagnosis:
    """A diagnosis that found no culprit, and says why."""
    return Diagnosis(entry, None, (), notes)
