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
__all__ = ["__version__", "explain", "install", "load_catalog", "uninstall"]

if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog import Catalog
    from autograd_errors.rendering.answer import Answer


def load_catalog() -> Catalog:
    """The packaged catalog of entries."""
    from autograd_errors import catalog

    return catalog.load()


def explain(text: str | BaseException, catalog: Catalog | None = None) -> Answer:
    """The entries whose messages occur in ``text``, the final exception first. ``text`` may
    be an exception: its message and its traceback are read, as a paste of them would be.
    The result prints as the CLI's short answer, and renders as HTML in a notebook."""
    from autograd_errors.rendering.answer import Answer

    return Answer.of(text, catalog)


def install(*, warnings: bool = False, lang: str | None = None, diagnose: bool = False) -> None:
    """Explain known autograd errors after their traceback, in ``lang`` (``"en"``, ``"zh"``;
    by default the locale's language); with ``diagnose=True``, name the line of the program
    where the error started; see :mod:`autograd_errors.hooks`."""
    from autograd_errors import hooks

    hooks.install(warnings=warnings, lang=lang, diagnose=diagnose)


def uninstall() -> None:
    """Remove what :func:`install` added."""
    from autograd_errors import hooks

    hooks.uninstall()


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext autograd_errors`` (see :mod:`autograd_errors.ipython`)."""
    from autograd_errors import ipython

    ipython.load_ipython_extension(shell)


def unload_ipython_extension(shell: Any) -> None:
    from autograd_errors import ipython

    ipython.unload_ipython_extension(shell)
