"""Which common cause the answer leads with, and what in the paste supports it.

Each cause of an entry may list its signs (:class:`..catalog.model.Signs`): text in the code
of the user's frames, a library the traceback goes through, values of the message's fields, the
forms of the message it gives. The answer leads with the cause its evidence supports most, each
piece weighing (:data:`WEIGHTS`):

- a diagnosis's finding, more than all the rest (``diagnosed``: the diagnosis engine ran the
  program and names the cause, with its culprit lines);
- the message itself: a field value (``op=igamma``) or the form of the message (a warning's
  own wording), which the cause gives;
- the code of the user's frames (``torch.randn(`` in ``model.fc.weight = torch.randn(5, 64)``),
  on their lines or on the lines the traceback shows around them;
- a frame's file (the traceback goes through ``peft/``);

so that a sign two causes share is decided by what else the paste shows (``AsStrided`` is a
weight changed by ``optimizer.step()`` or a loop writing into a buffer: ``h[t] = ... h[t - 1]``
says which); among equals, the more common cause (the record's order). With no sign, the
answer leads with the most common cause, and says so ("Most common"); but a cause whose signs
are ``required`` (one about a setting or a function the paste must show: checkpointing under
LoRA, a ``DataParallel`` model, ``torch.special.gammainc``) is only said with one of them. So
``'linalg_lstsq'`` gets no cause at all when every cause of its entry is about another
function.

The browser's matcher makes the same choice (``browser/static/autograd-matcher.js``), on the
same signs, exported with the catalog.
"""

from __future__ import annotations

from autograd_errors.matcher.frames import Frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from autograd_errors.catalog.model import Cause, Entry, Signs, Wording

#: The kinds of evidence, strongest first (:class:`Evidence`).
KINDS = ("diagnosis", "field", "form", "code", "file")
#: How much a piece of evidence of each kind weighs: a diagnosis more than all signs together,
#: then the message, then the user's code, then a file. A cause's weight is its evidence's sum.
WEIGHTS = {"diagnosis": 1000, "field": 3, "form": 3, "code": 2, "file": 1}
#: Between the parts of a code sign that must appear in order on one line.
PART_SEPARATOR = " ... "


class Evidence:
    """One thing in the paste that supports a cause: its ``kind`` (one of :data:`KINDS`), the
    ``sign`` that matched (a code sign, a file's part, ``field=value``, a form's variant), and
    where it was seen (``frame``, for code, a file, or a diagnosis's culprit line; ``near``:
    code seen on a line the traceback shows around the frame's, not on it)."""

    __slots__ = ("frame", "kind", "near", "sign")

    def __init__(
        self, kind: str, sign: str, frame: Frame | None = None, near: bool = False
    ) -> None:
        self.kind = kind
        self.sign = sign
        self.frame = frame
        self.near = near

    def __repr__(self) -> str:
        return f"Evidence({self.kind!r}, {self.sign!r}{', near' if self.near else ''})"

    def _key(self) -> tuple[str, str, Frame | None, bool]:
        return (self.kind, self.sign, self.frame, self.near)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Evidence) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def as_json(self) -> dict[str, object]:
        frame = self.frame.as_json() if self.frame is not None else None
        return {"kind": self.kind, "sign": self.sign, "frame": frame, "near": self.near}


class CauseChoice:
    """The common cause an answer leads with: ``cause_id``, and the ``evidence`` for it
    (empty: no sign in the paste, so it is the most common cause that needs none)."""

    __slots__ = ("cause_id", "evidence")

    def __init__(self, cause_id: str, evidence: Sequence[Evidence] = ()) -> None:
        self.cause_id = cause_id
        self.evidence = tuple(evidence)

    def __repr__(self) -> str:
        return f"CauseChoice({self.cause_id!r}, {list(self.evidence)!r})"

    @property
    def basis(self) -> str:
        """ "evidence" when something in the paste supports the cause, else "most-common"."""
        return "evidence" if self.evidence else "most-common"

    def cause(self, causes: Sequence[Cause]) -> Cause:
        """The chosen cause among ``causes`` (an entry's, in any language)."""
        return next(cause for cause in causes if cause.id == self.cause_id)


def choose(
    entry: Entry,
    wording: Wording | None,
    fields: Mapping[str, str],
    frames: Sequence[Frame],
    all_frames: Sequence[Frame] = (),
    diagnosed: Sequence[Evidence] = (),
    diagnosed_cause: str | None = None,
) -> CauseChoice | None:
    """The cause of ``entry`` to lead with, for a match of ``wording`` (None: a fragment whose
    wording is unknown) that captured ``fields`` (with the derived ``op``:
    :func:`.matching.with_derived_fields`), in a paste showing the user's ``frames`` (and
    ``all_frames``, the libraries' too); None when no cause fits. A diagnosis's
    ``diagnosed_cause`` and its ``diagnosed`` culprit lines come before any sign."""
    if diagnosed_cause is not None and any(c.id == diagnosed_cause for c in entry.causes):
        return CauseChoice(diagnosed_cause, diagnosed)
    best: CauseChoice | None = None
    best_weight = 0
    fallback: CauseChoice | None = None
    for cause in entry.causes:
        signs = cause.signs
        evidence = evidence_for(signs, wording, fields, frames, all_frames)
        weight = sum(WEIGHTS[found.kind] for found in evidence)
        if weight > best_weight:
            best, best_weight = CauseChoice(cause.id, evidence), weight
        if fallback is None and not signs.required:
            fallback = CauseChoice(cause.id)
    return best or fallback


def _gives(prefixes: Sequence[str], value: str) -> bool:
    return value.lower().startswith(tuple(prefix.lower() for prefix in prefixes))


def evidence_for(
    signs: Signs,
    wording: Wording | None,
    fields: Mapping[str, str],
    frames: Sequence[Frame],
    all_frames: Sequence[Frame] = (),
) -> list[Evidence]:
    """What in the paste shows the cause of ``signs``, strongest first: the message's fields
    and form, then the code of the user's frames (the user's line first), then the files of
    every frame (``all_frames``)."""
    found: list[Evidence] = []
    for name, prefixes in signs.fields.items():
        if name in fields and _gives(prefixes, fields[name]):
            found.append(Evidence("field", f"{name}={fields[name]}"))
    if signs.forms and wording is not None and wording.form in signs.forms:
        found.append(Evidence("form", wording.variant))
    latest_first = list(reversed(frames))
    for sign in signs.code:
        seen = _code_seen(latest_first, sign)
        if seen is not None:
            found.append(Evidence("code", sign, *seen))
    every = list(reversed(all_frames))
    for part in signs.files:
        frame = next((f for f in every if part.lower() in f.file.lower()), None)
        if frame is not None:
            found.append(Evidence("file", part, frame))
    return found


def normalized(code: str) -> str:
    """Code as signs are compared with it: without spaces, every quote a double quote."""
    return "".join(code.split()).replace("'", '"')


def _code_seen(frames: Sequence[Frame], sign: str) -> tuple[Frame, bool] | None:
    """The first of ``frames`` whose line shows ``sign``, else the first whose context does;
    and whether it was its context (``near``)."""
    parts = [normalized(part) for part in sign.split(PART_SEPARATOR)]
    for frame in frames:
        if _in_order(normalized(frame.code), parts):
            return frame, False
    for frame in frames:
        if any(_in_order(normalized(line), parts) for line in frame.context):
            return frame, True
    return None


def shows(line: str, sign: str) -> bool:
    """Whether a line of code shows a code sign (its parts in order, spaces and quotes aside)."""
    return _in_order(normalized(line), [normalized(part) for part in sign.split(PART_SEPARATOR)])


def _in_order(line: str, parts: list[str]) -> bool:
    at = 0
    for part in parts:
        found = line.find(part, at)
        if found == -1:
            return False
        at = found + len(part)
    return True
