"""PyTorch errors users paste that are not autograd errors: which one a paste ends with.

The kinds are records of the catalog (``catalog/not-autograd.toml``, :class:`NotAutogradKind
<autograd_errors.catalog.model.NotAutogradKind>`: phrases, a hint in each language, a page).
Each is recognised by a few words of its message, compared as :func:`.fuzzy.words` gives them
(lower case, punctuation ignored), so that it is never offered as an autograd entry.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from autograd_errors.catalog.model import NotAutogradKind


def recognise(pasted_words: list[str], kinds: Iterable[NotAutogradKind]) -> NotAutogradKind | None:
    """The non-autograd error the paste ends with, if any: the phrase found last wins."""
    text = " " + " ".join(pasted_words) + " "
    found: NotAutogradKind | None = None
    last = -1
    for kind in kinds:
        for phrase in kind.phrases:
            at = text.rfind(" " + phrase + " ")
            if at > last:
                found, last = kind, at
    return found
