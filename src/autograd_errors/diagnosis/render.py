"""The diagnosis as text, under the answer: one small function, :func:`culprit_text`, that the
shared renderer can take over as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograd_errors.diagnosis.source import display_path

if TYPE_CHECKING:
    from autograd_errors.diagnosis.findings import Diagnosis, Note
    from autograd_errors.rendering.terminal import Style


def culprit_text(diagnosis: Diagnosis, language: str, style: Style, width: int) -> str:
    """The culprit lines (``Culprit: file:line (role)``, the code, what happened there), the
    cause the evidence supports, and the notes; or, when nothing was found, that and why.
    Empty for an error the catalog does not know."""
    from autograd_errors.rendering.strings import ui
    from autograd_errors.rendering.terminal import after as _after
    from autograd_errors.rendering.terminal import fill as _paragraphs

    if diagnosis.entry is None:
        return ""

    def label(key: str) -> str:
        word = ui(key, language)
        return style.bold(word) + _after(word)

    def sentence(note: Note) -> str:
        return ui(note.key, language, **note.values)

    if diagnosis.rerun_seconds is not None:
        heading = ui("diagnose.heading_rerun", language, seconds=f"{diagnosis.rerun_seconds:.1f}")
    else:
        heading = ui("diagnose.heading", language)
    out = [heading]
    # What the error is a symptom of comes first: for it, the answer above said nothing.
    first = [note for note in diagnosis.notes if note.key == "diagnose.note.symptom"]
    for note in first:
        out += _paragraphs(sentence(note), width, "  ")
    for found in diagnosis.culprits:
        role = ui(f"diagnose.role.{found.role}", language)
        where = f"{display_path(found.path)}:{found.line}"
        out += _paragraphs(f"{label('diagnose.culprit')}{where} ({role})", width, "  ")
        if found.code:
            out.append(f"    {found.code}")
        if found.what is not None:
            out += _paragraphs(sentence(found.what), width, "    ")
    if diagnosis.cause is not None:
        out += _paragraphs(
            f"{label('diagnose.cause')}{_cause_text(diagnosis, language)}", width, "  "
        )
    if not diagnosis.culprits:
        out.append("  " + ui("diagnose.nothing", language))
    for note in diagnosis.notes:
        if note not in first:
            out += _paragraphs(sentence(note), width, "  ")
    return "\n".join(out)


def _cause_text(diagnosis: Diagnosis, language: str) -> str:
    """The common cause's sentence in ``language``, and its id."""
    from autograd_errors.catalog import load

    try:
        entry = load()[diagnosis.entry or ""]
    except KeyError:
        return f"({diagnosis.cause})"
    for cause in entry.localized(language, fallback=True).causes:
        if cause.id == diagnosis.cause:
            return f"{cause.text} ({cause.id})"
    return f"({diagnosis.cause})"
