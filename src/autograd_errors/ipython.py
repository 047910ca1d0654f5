"""``%load_ext autograd_errors``: the short answer under the traceback of a known autograd
error, in a cell or in a script run with ``%run``; HTML in a notebook, text in a terminal
IPython. ``%unload_ext autograd_errors`` removes it.

IPython shows every traceback through ``showtraceback`` (a cell's, ``%run``'s, a magic's):
the extension follows it with the answer. A custom exception handler set before loading
(``set_custom_exc``) keeps running, and the answer follows what it shows.

The answers speak the locale's language (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), as the
command line does; ``%autograd_errors --lang zh`` (or ``en``) chooses one for the session.

To load it in every session, add ``"autograd_errors"`` to ``c.InteractiveShellApp.extensions``
in ``ipython_config.py`` (``ipython profile create`` writes one).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from autograd_errors.rendering.answer import Answer

#: The width of the answer's text in a terminal IPython.
WIDTH = 88
#: The line magic that chooses the answers' language.
MAGIC = "autograd_errors"


class CellAnswer:
    """What the cell shows under its traceback: text in a terminal, HTML in a notebook (each
    front end asks for the one it shows)."""

    def __init__(self, answer: Answer, language: str) -> None:
        self.answer = answer
        self.language = language

    def __repr__(self) -> str:
        from autograd_errors.rendering.terminal import Style
        from autograd_errors.rendering.text import answer_text
        from autograd_errors.rendering.urls import base_url

        style = Style.for_stream(sys.stderr)  # as the traceback above it
        text = answer_text(self.answer, base_url(), style, WIDTH, language=self.language)
        return "autograd-errors: " + text

    def _repr_html_(self) -> str:
        from autograd_errors.rendering.notebook import answer_html
        from autograd_errors.rendering.urls import base_url

        return answer_html(self.answer, base_url(), self.language)


class _Extension:
    """The extension in one shell: what it replaced, and the language asked for."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.language: str | None = None  # None: the locale's, when the error comes
        self._undo: list[Callable[[], None]] = []
        self._in_handler = 0  # inside a custom handler, which may show the traceback itself

    def load(self) -> None:
        shell = self.shell
        self._replace("showtraceback", self._showtraceback_over(shell.showtraceback))
        if shell.custom_exceptions:
            self._replace("CustomTB", self._custom_handler_over(shell.CustomTB))
        shell.register_magic_function(self.magic, "line", MAGIC)

    def unload(self) -> None:
        while self._undo:
            self._undo.pop()()
        self.shell.magics_manager.magics["line"].pop(MAGIC, None)

    def _replace(self, name: str, value: Any) -> None:
        """``shell.name = value`` on the instance, undone on unload while it is still ours (a
        later extension may have wrapped it in turn: then it keeps calling ours)."""
        shell, own = self.shell, vars(self.shell)
        had, previous = name in own, own.get(name)
        setattr(shell, name, value)

        def undo() -> None:
            if vars(shell).get(name) is not value:
                return
            if had:
                setattr(shell, name, previous)
            else:
                delattr(shell, name)

        self._undo.append(undo)

    def _showtraceback_over(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def showtraceback(
            exc_tuple: tuple[Any, Any, Any] | None = None,
            filename: str | None = None,
            tb_offset: int | None = None,
            exception_only: bool = False,
            running_compiled_code: bool = False,
        ) -> None:
            error = exc_tuple[1] if exc_tuple else sys.exc_info()[1]
            if error is None:  # %tb: the last error shown again
                error = getattr(sys, "last_value", None)
            original(exc_tuple, filename, tb_offset, exception_only, running_compiled_code)
            if not self._in_handler and not exception_only:
                self.answer(error)

        return showtraceback

    def _custom_handler_over(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def custom_handler(
            kind: type[BaseException], error: BaseException, traceback: Any, tb_offset: Any = None
        ) -> Any:
            self._in_handler += 1
            try:
                shown = original(kind, error, traceback, tb_offset=tb_offset)
            finally:
                self._in_handler -= 1
            self.answer(error)
            return shown

        return custom_handler

    def answer(self, error: BaseException | None) -> None:
        """Display the answer for ``error`` under its traceback; never raise."""
        if error is None:
            return
        try:
            import os

            from IPython.display import display

            from autograd_errors.rendering.answer import Answer
            from autograd_errors.rendering.strings import language_from_environment

            answer = Answer.of(error)
            if answer.matches:
                language = self.language or language_from_environment(os.environ)
                display(CellAnswer(answer, language))  # type: ignore[no-untyped-call]
        except Exception:  # noqa: BLE001 - the traceback is shown; the answer is a courtesy
            pass

    def magic(self, line: str) -> None:
        """``%autograd_errors --lang en|zh``: the language of the answers in this session."""
        from autograd_errors.rendering.strings import parse_lang

        words = line.replace("=", " ").split()
        if len(words) != 2 or words[0] != "--lang":
            print(f"usage: %{MAGIC} --lang en|zh", file=sys.stderr)
            return
        try:
            self.language = parse_lang(words[1])
        except ValueError as error:
            print(f"%{MAGIC}: {error}", file=sys.stderr)


#: The extension's state in each shell it is loaded in.
_loaded: dict[int, _Extension] = {}


def load_ipython_extension(shell: Any) -> None:
    if id(shell) in _loaded:
        return
    extension = _loaded[id(shell)] = _Extension(shell)
    extension.load()


def unload_ipython_extension(shell: Any) -> None:
    extension = _loaded.pop(id(shell), None)
    if extension is not None:
        extension.unload()
