"""Where the answer points, and why it leads with a cause, in words: a frame's location as the
user sees it (``train.py:12``, ``Cell In[3], line 4``), and the evidence for a cause (``Seen in
this paste: `torch.randn(` in your line.``). Every renderer says them through here; the paste
page's script says them with the same strings (``answer.*``) and the same rules.
"""

from __future__ import annotations

from autograd_errors.rendering.strings import ENGLISH, ui

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Entry
    from autograd_errors.matcher.causes import CauseChoice, Evidence
    from autograd_errors.matcher.frames import Frame

#: A form's wording is quoted up to this many words.
FORM_WORDS = 8


def location(frame: Frame, language: str = ENGLISH) -> str:
    """``file:line``; for a notebook cell, as the notebook names it."""
    if frame.cell is None:
        return f"{frame.file}:{frame.line}"
    if frame.cell:
        return ui("answer.cell", language, number=frame.cell, line=frame.line)
    return ui("answer.cell_unnumbered", language, line=frame.line)


def seen(choice: CauseChoice, entry: Entry, shown: Frame | None, language: str = ENGLISH) -> str:
    """The evidence for ``choice``, as one sentence ("" when there is none); ``shown``: the
    user's line the answer shows, which the sentence calls "your line"."""
    if not choice.evidence:
        return ""
    parts = [sign(found, entry, shown, language) for found in choice.evidence]
    joined = ui("answer.sign_separator", language).join(parts)
    return ui("answer.signs", language, signs=joined)


def seen_label(choice: CauseChoice) -> str:
    """The ``answer.*`` key of the label before :func:`seen`'s sentence: what the diagnosis
    found is not in the paste."""
    if choice.evidence and all(found.kind == "diagnosis" for found in choice.evidence):
        return "answer.seen_diagnosis"
    return "answer.seen"


def sign(found: Evidence, entry: Entry, shown: Frame | None, language: str = ENGLISH) -> str:
    """One piece of evidence, in words."""
    if found.kind == "code":
        near = "_near" if found.near else ""
        if found.frame is not None and found.frame == shown:
            return ui(f"answer.sign.code{near}_here", language, sign=found.sign)
        where = location(found.frame, language) if found.frame is not None else ""
        return ui(f"answer.sign.code{near}", language, sign=found.sign, location=where)
    if found.kind == "file":
        path = found.frame.file if found.frame is not None else found.sign
        start = path.lower().find(found.sign.lower())
        shown_path = path[start:].lstrip("/\\") if start != -1 else path
        return ui("answer.sign.file", language, file=shown_path)
    if found.kind == "field":
        return ui("answer.sign.field", language, value=found.sign.partition("=")[2])
    if found.kind == "form":
        return ui("answer.sign.form", language, wording=form_words(entry, found.sign))
    where = location(found.frame, language) if found.frame is not None else ""
    return ui("answer.sign.diagnosis", language, location=where)


def form_words(entry: Entry, variant: str) -> str:
    """The first words of the wording ``variant`` of ``entry``, its placeholders as named."""
    words = entry.wording(variant).template.render({}).split()
    return " ".join(words[:FORM_WORDS]) + (" ..." if len(words) > FORM_WORDS else "")
