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

    from autograd_errors.rendering.answer import Answer

#: The custom exception handling that was there before loading, per shell.
_previous: dict[int, tuple[Any, Any]] = {}


#: The width of the answer's text in a terminal IPython.
WIDTH = 88


class CellAnswer:
    """What the cell shows under its traceback: text in a terminal, HTML with a "More" section
    in a notebook (each front end asks for the one it shows)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    def __repr__(self) -> str:
        import sys

        from autograd_errors.rendering.terminal import Style
        from autograd_errors.rendering.text import answer_text
        from autograd_errors.rendering.urls import base_url

        style = Style.for_stream(sys.stderr)  # as the traceback above it
        return "autograd-errors: " + answer_text(self.answer, base_url(), style, WIDTH)

    def _repr_html_(self) -> str:
        from autograd_errors.rendering.notebook import answer_html
        from autograd_errors.rendering.urls import base_url

        return answer_html(self.answer, base_url())


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

        from autograd_errors.rendering.answer import Answer

        answer = Answer.of(error)
        if answer.matches:
            display(CellAnswer(answer))  # type: ignore[no-untyped-call]
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
