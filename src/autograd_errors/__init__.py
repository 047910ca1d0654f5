"""autograd-errors: find the explanation of a PyTorch autograd error from its pasted message.

>>> from autograd_errors import explain
>>> [match.entry.id for match in explain("RuntimeError: element 0 of tensors does not require "
...                                      "grad and does not have a grad_fn").matches]
['no-grad-fn']

Nothing here imports torch: matching is plain text processing.
"""

from __future__ import annotations

TYPE_CHECKING = False

__version__ = "0.1.0"
__all__ = ["__version__", "explain", "load_catalog"]

if TYPE_CHECKING:
    from autograd_errors.catalog import Catalog
    from autograd_errors.matching import Explanation


def load_catalog() -> Catalog:
    """The packaged catalog of entries."""
    from autograd_errors import catalog

    return catalog.load()


def explain(text: str, catalog: Catalog | None = None) -> Explanation:
    """The entries whose messages occur in ``text``, the final exception first."""
    from autograd_errors import matching

    return matching.explain(text, catalog or load_catalog())
