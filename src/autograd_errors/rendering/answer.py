"""The answer: what every surface shows for a paste or an exception, assembled once.

:meth:`Answer.of` reads a paste, or an exception's message and traceback as a paste of them
would be, and finds the entries it holds and the user's own line (:func:`.matching.find_entries
<autograd_errors.matcher.matching.find_entries>`). One function per format renders it, in a
language: :func:`.text.answer_text`, :func:`.payloads.answer_json`, :func:`.notebook.answer_html`.
The CLI, :func:`autograd_errors.install`, IPython and pytest all go through here; a new fact of
an answer (a culprit that diagnosis found, say) is a field of the explanation and a line in each
renderer.

:class:`Answer` is also what :func:`autograd_errors.explain` returns: an explanation that shows
itself as text (``str``: the CLI's short answer) and in a notebook (``_repr_html_``). It carries
the common cause it leads with and why (``cause``, a :class:`.causes.CauseChoice
<autograd_errors.matcher.causes.CauseChoice>`, and ``cause_id``), which every renderer says;
:meth:`Explanation.diagnosed <autograd_errors.matcher.matching.Explanation.diagnosed>` puts a
diagnosis's cause there, with its culprit lines as the evidence.
"""

from __future__ import annotations

from autograd_errors.matcher import matching
from autograd_errors.matcher.matching import Explanation
from autograd_errors.rendering.terminal import Style
from autograd_errors.rendering.text import answer_text
from autograd_errors.rendering.urls import base_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog
    from autograd_errors.rendering.diagnosis import DiagnosisShape


class Answer(Explanation):
    """An explanation that renders itself."""

    __slots__ = ()

    @classmethod
    def of(cls, pasted: str | BaseException, catalog: Catalog | None = None) -> Answer:
        """The answer for ``pasted``: a paste, or an exception (its message and its traceback
        are read, as a paste of them would be), against ``catalog`` (the packaged one)."""
        cells = None
        if isinstance(pasted, BaseException):
            import traceback

            error = pasted
            pasted = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            cells = running_cells(error)
        if catalog is None:
            from autograd_errors.catalog import load

            catalog = load()
        found = matching.find_entries(pasted, catalog, cells)
        return cls(
            found.matches,
            found.near_misses,
            found.not_autograd,
            found.text,
            found.frame,
            found.raised_by,
            found.context_only,
            found.described,
        )

    @property
    def cause_id(self) -> str | None:
        """The id of the common cause the answer leads with (None: no match, or none fits);
        ``cause.evidence`` says what supports it (empty: it is the most common)."""
        return self.cause.cause_id if self.cause is not None else None

    def led_by(
        self, diagnosis: DiagnosisShape | None, cells: dict[str, int] | None = None
    ) -> Answer:
        """This answer, leading with the common cause ``diagnosis`` found, its first culprit
        line (the most likely) the evidence; unchanged when it found none of the entry's
        causes. The line is named as the diagnosis names it (relative to the working
        directory); ``cells``: a notebook's cells by their files (:func:`running_cells`), so
        that a culprit in a cell reads as the notebook names it."""
        if diagnosis is not None and diagnosis.cause is not None:
            from autograd_errors.matcher.frames import Frame
            from autograd_errors.rendering.diagnosis import display_path

            culprits = [
                Frame(display_path(c.path), c.line, c.code, (cells or {}).get(c.path))
                for c in diagnosis.culprits[:1]
            ]
            self.diagnosed(diagnosis.cause, culprits)
        return self

    def leads_with(self, diagnosis: DiagnosisShape | None) -> bool:
        """Whether this answer leads with the cause ``diagnosis`` found (then the diagnosis
        need not say it again)."""
        if diagnosis is None or diagnosis.cause is None:
            return False
        return self.cause_id == diagnosis.cause

    def __str__(self) -> str:
        """What ``explain`` prints by default, plain, at 80 columns."""
        return answer_text(self, base_url(), Style(False), 78)

    def _repr_html_(self) -> str:
        """The notebook's rendering: the HTML of ``%load_ext autograd_errors``."""
        from autograd_errors.rendering.notebook import answer_html  # html imports re

        return answer_html(self, base_url())


def rendered_answer(
    error: BaseException,
    *,
    html: bool = False,
    width: int | None = None,
    language: str = "en",
    diagnosis: DiagnosisShape | None = None,
) -> tuple[str, bool]:
    """The short answer for ``error`` where it surfaces (text for standard error, or an HTML
    fragment), "" when no entry explains it; leading with the cause ``diagnosis`` found, and
    whether it does (then the diagnosis need not say the cause again)."""
    import sys

    answer = Answer.of(error).led_by(diagnosis)
    if not answer.matches:
        return "", False
    led = answer.leads_with(diagnosis)
    if html:
        from autograd_errors.rendering.notebook import answer_html

        return answer_html(answer, base_url(), language), led
    from autograd_errors.rendering.terminal import text_width

    width = width or text_width(sys.stderr)
    style = Style.for_stream(sys.stderr)
    return answer_text(answer, base_url(), style, width, language=language), led


def running_cells(error: BaseException) -> dict[str, int] | None:
    """The cells of the IPython session this process runs, if any, by the file names their
    code has (``/tmp/ipykernel_42/1234.py``, ``<ipython-input-3-ab12>``): the execution number
    a traceback's ``Cell In[3]`` shows. None outside IPython."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)()
    name_of = getattr(getattr(shell, "compile", None), "format_code_name", None)
    if name_of is None:
        return None
    cells: dict[str, int] = {}
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:  # the error, and every exception chained to it
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        pending += [current.__cause__, current.__context__]
        step = current.__traceback__
        while step is not None:
            filename = step.tb_frame.f_code.co_filename
            try:
                named = name_of(filename)
            except Exception:  # noqa: BLE001 - IPython's own naming: a courtesy, never a failure
                named = None
            if named and named[1].startswith("In[") and named[1][3:-1].isdecimal():
                cells[filename] = int(named[1][3:-1])
            step = step.tb_next
    return cells
