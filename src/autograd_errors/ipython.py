"""``%load_ext autograd_errors``: the short answer under the traceback of a cell that raised a
known autograd error; HTML in a notebook, text in a terminal IPython. ``%unload_ext`` removes it.

To load it in every session, add ``"autograd_errors"`` to ``c.InteractiveShellApp.extensions``
in ``ipython_config.py`` (``ipython profile create`` writes one).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

#: The custom exception handling that was there before loading, per shell.
_previous: dict[int, tuple[Any, Any]] = {}


class Answer:
    """What the cell shows: text in a terminal, HTML with a "More" section in a notebook."""

    def __init__(self, error: BaseException, text: str) -> None:
        self.error = error
        self.text = text

    def __repr__(self) -> str:
        return "autograd-errors: " + self.text

    def _repr_html_(self) -> str:
        from autograd_errors.hooks import answer_for

        return answer_for(self.error, html=True)


def _handler(
    shell: Any,
    kind: type[BaseException],
    error: BaseException,
    traceback: TracebackType | None,
    tb_offset: int | None = None,
) -> None:
    shell.showtraceback((kind, error, traceback), tb_offset=tb_offset)
    try:
        from IPython.display import display

        from autograd_errors.hooks import answer_for

        text = answer_for(error, width=88)  # matched once; the HTML only if a notebook asks
        if text:
            display(Answer(error, text))  # type: ignore[no-untyped-call]
    except Exception:  # noqa: BLE001 - the traceback is shown; the answer is a courtesy
        pass


def load_ipython_extension(shell: Any) -> None:
    if id(shell) in _previous:
        return
    _previous[id(shell)] = (shell.custom_exceptions, shell.CustomTB)
    shell.set_custom_exc((Exception,), _handler)


def unload_ipython_extension(shell: Any) -> None:
    previous = _previous.pop(id(shell), None)
    if previous is not None:
        shell.custom_exceptions, shell.CustomTB = previous
