"""What :func:`autograd_errors.explain` returns: an :class:`~autograd_errors.matching.Explanation`
that also shows itself, as text (``str``: the CLI's default output) and in a notebook
(``_repr_html_``: the HTML of ``%load_ext autograd_errors``).

Its own module because the renderers (:mod:`.report`) read the matcher's results: the matcher
cannot import them back without an import cycle.
"""

from __future__ import annotations

import autograd_errors.report as report
from autograd_errors.matching import Explanation


class Answer(Explanation):
    """An explanation that renders itself."""

    __slots__ = ()

    @classmethod
    def of(cls, explanation: Explanation) -> Answer:
        return cls(
            explanation.matches,
            explanation.near_misses,
            explanation.not_autograd,
            explanation.text,
        )

    def __str__(self) -> str:
        """What ``explain`` prints by default, plain, at 80 columns."""
        return report.default_text(self, report.base_url(), report.Style(False), 78)

    def _repr_html_(self) -> str:
        """The notebook's rendering: the HTML of ``%load_ext autograd_errors``."""
        return report.short_html(self, report.base_url())
