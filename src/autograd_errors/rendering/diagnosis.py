"""A diagnosis (:mod:`autograd_errors.diagnosis`) as every surface shows it, under the answer:
as text (:func:`diagnosis_text`: ``run --diagnose``, ``install(diagnose=True)``, pytest's
section, a terminal IPython) and as a notebook's HTML (:func:`diagnosis_html`). Both read the
same fields in the same order: the symptom's entry, each culprit line (where, the part it
played, its code, what happened there), the cause the evidence supports, the notes.

Rendering stands below the diagnosis: it reads the findings through the shapes of
:class:`DiagnosisShape` (which :class:`autograd_errors.diagnosis.findings.Diagnosis` has), and
imports nothing of the engine.
"""

from __future__ import annotations

import os
from html import escape

from autograd_errors.rendering.strings import ui
from autograd_errors.rendering.terminal import after, fill

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Protocol

    from autograd_errors.rendering.terminal import Style

    class NoteShape(Protocol):
        """A sentence: a ``diagnose.*`` key of :data:`.strings.STRINGS` and its values."""

        @property
        def key(self) -> str: ...
        @property
        def values(self) -> Mapping[str, str]: ...

    class CulpritShape(Protocol):
        """A line of the user's code and the part it played (a ``diagnose.role.*`` id)."""

        @property
        def path(self) -> str: ...
        @property
        def line(self) -> int: ...
        @property
        def role(self) -> str: ...
        @property
        def code(self) -> str: ...
        @property
        def what(self) -> NoteShape | None: ...

    class DiagnosisShape(Protocol):
        """The findings for one failure."""

        @property
        def entry(self) -> str | None: ...
        @property
        def cause(self) -> str | None: ...
        @property
        def culprits(self) -> Sequence[CulpritShape]: ...
        @property
        def notes(self) -> Sequence[NoteShape]: ...
        @property
        def rerun_seconds(self) -> float | None: ...

    #: How a culprit's file is named: a path, or "Cell In[3]" in a notebook.
    Place = Callable[[str], str]

#: The note that names the entry of a symptom (an error the answer above did not match).
_SYMPTOM = "diagnose.note.symptom"


def display_path(path: str) -> str:
    """``path`` relative to the working directory when it is under it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative.startswith(os.pardir) else relative


def _sentence(note: NoteShape, language: str) -> str:
    return ui(note.key, language, **note.values)


def _heading(diagnosis: DiagnosisShape, language: str) -> str:
    if diagnosis.rerun_seconds is not None:
        seconds = f"{diagnosis.rerun_seconds:.1f}"
        return ui("diagnose.heading_rerun", language, seconds=seconds)
    return ui("diagnose.heading", language)


def _split_notes(diagnosis: DiagnosisShape) -> tuple[list[NoteShape], list[NoteShape]]:
    """The symptom's note, which comes first (for it, the answer above said nothing), and the
    others, which come last."""
    first = [note for note in diagnosis.notes if note.key == _SYMPTOM]
    return first, [note for note in diagnosis.notes if note.key != _SYMPTOM]


def diagnosis_text(
    diagnosis: DiagnosisShape,
    language: str,
    style: Style,
    width: int,
    place: Place = display_path,
    *,
    with_cause: bool = True,
) -> str:
    """The culprit lines (``Culprit: file:line (role)``, the code, what happened there), the
    cause the evidence supports (unless the answer above leads with it: ``with_cause=False``),
    and the notes; or, when nothing was found, that and why. Empty for an error the catalog
    does not know."""
    if diagnosis.entry is None:
        return ""

    def label(key: str) -> str:
        word = ui(key, language)
        return style.bold(word) + after(word)

    first, last = _split_notes(diagnosis)
    out = [_heading(diagnosis, language)]
    for note in first:
        out += fill(_sentence(note, language), width, "  ")
    for found in diagnosis.culprits:
        role = ui(f"diagnose.role.{found.role}", language)
        where = f"{place(found.path)}:{found.line}"
        out += fill(f"{label('diagnose.culprit')}{where} ({role})", width, "  ")
        if found.code:
            out.append(f"    {found.code}")
        if found.what is not None:
            out += fill(_sentence(found.what, language), width, "    ")
    cause = cause_text(diagnosis, language) if with_cause else ""
    if cause:
        out += fill(f"{label('diagnose.cause')}{cause}", width, "  ")
    if not diagnosis.culprits:
        out.append("  " + ui("diagnose.nothing", language))
    for note in last:
        out += fill(_sentence(note, language), width, "  ")
    return "\n".join(out)


def diagnosis_html(
    diagnosis: DiagnosisShape,
    language: str,
    place: Place = display_path,
    *,
    with_cause: bool = True,
) -> str:
    """The same as :func:`diagnosis_text`, as an HTML fragment for a notebook: the culprit's
    place and code as code, the catalog's ```code``` as ``<code>``. Empty for an error the
    catalog does not know."""
    from autograd_errors.rendering.notebook import inline_html  # html imports re

    if diagnosis.entry is None:
        return ""

    def labelled(key: str, rest: str) -> str:
        word = ui(key, language)
        return f"<strong>{escape(word)}</strong>{after(word)}{rest}"

    first, last = _split_notes(diagnosis)
    out = [f"<div><strong>{escape(_heading(diagnosis, language))}</strong></div>"]
    out += [f"<div>{inline_html(_sentence(note, language))}</div>" for note in first]
    for found in diagnosis.culprits:
        role = escape(ui(f"diagnose.role.{found.role}", language))
        where = f"<code>{escape(place(found.path))}:{found.line}</code> ({role})"
        out.append(f"<div>{labelled('diagnose.culprit', where)}</div>")
        if found.code:
            out.append(f'<div style="margin-left:1em"><code>{escape(found.code)}</code></div>')
        if found.what is not None:
            sentence = inline_html(_sentence(found.what, language))
            out.append(f'<div style="margin-left:1em">{sentence}</div>')
    cause = cause_text(diagnosis, language) if with_cause else ""
    if cause:
        out.append(f"<div>{labelled('diagnose.cause', inline_html(cause))}</div>")
    if not diagnosis.culprits:
        out.append(f"<div>{escape(ui('diagnose.nothing', language))}</div>")
    out += [f"<div>{inline_html(_sentence(note, language))}</div>" for note in last]
    return f'<div class="autograd-errors-diagnosis">{"".join(out)}</div>'


def cause_text(diagnosis: DiagnosisShape, language: str) -> str:
    """The sentence of the common cause the evidence supports, in ``language``, and its id;
    "" when the evidence supports none."""
    if diagnosis.cause is None:
        return ""
    from autograd_errors.catalog import load

    try:
        entry = load()[diagnosis.entry or ""]
    except KeyError:
        return f"({diagnosis.cause})"
    for cause in entry.localized(language, fallback=True).causes:
        if cause.id == diagnosis.cause:
            return f"{cause.text} ({cause.id})"
    return f"({diagnosis.cause})"
