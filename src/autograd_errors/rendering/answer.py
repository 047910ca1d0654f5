"""The answer: what every surface shows for a paste or an exception, assembled once.

:meth:`Answer.of` reads a paste, or an exception's message and traceback as a paste of them
would be, and finds the entries it holds and the user's own line (:func:`.matching.find_entries
<autograd_errors.matcher.matching.find_entries>`). One function per format renders it, in a
language: :func:`.text.answer_text`, :func:`.payloads.answer_json`, :func:`.notebook.answer_html`.
The CLI, :func:`autograd_errors.install`, IPython and pytest all go through here; a new fact of
an answer (a culprit that diagnosis found, say) is a field of the explanation and a line in each
renderer.

:class:`Answer` is also what :func:`autograd_errors.explain` returns: an explanation that shows
itself as text (``str``: the CLI's short answer) and in a notebook (``_repr_html_``).
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


class Answer(Explanation):
    """An explanation that renders itself."""

    __slots__ = ()

    @classmethod
    def of(cls, pasted: str | BaseException, catalog: Catalog | None = None) -> Answer:
        """The answer for ``pasted``: a paste, or an exception (its message and its traceback
        are read, as a paste of them would be), against ``catalog`` (the packaged one)."""
        if isinstance(pasted, BaseException):
            import traceback

            error = pasted
            pasted = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        if catalog is None:
            from autograd_errors.catalog import load

            catalog = load()
        found = matching.find_entries(pasted, catalog)
        return cls(found.matches, found.near_misses, found.not_autograd, found.text, found.frame)

    def __str__(self) -> str:
        """What ``explain`` prints by default, plain, at 80 columns."""
        return answer_text(self, base_url(), Style(False), 78)

    def _repr_html_(self) -> str:
        """The notebook's rendering: the HTML of ``%load_ext autograd_errors``."""
        from autograd_errors.rendering.notebook import answer_html  # html imports re

        return answer_html(self, base_url())
