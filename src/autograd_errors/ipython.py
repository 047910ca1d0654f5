"""``%load_ext autograd_errors``: the short answer under the traceback of a known autograd
error, in a cell or in a script run with ``%run``; HTML in a notebook, text in a terminal
IPython. ``%unload_ext autograd_errors`` removes it.

IPython shows every traceback through ``showtraceback`` (a cell's, ``%run``'s, a magic's):
the extension follows it with the answer. A custom exception handler set before loading
(``set_custom_exc``) keeps running, and the answer follows what it shows.

The answers speak the locale's language (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), as the
command line does; ``%autograd_errors --lang zh`` (or ``en``) chooses one for the session.

``%autograd_diagnose`` finds the line where the last failed cell's error started (the
diagnosis, :mod:`autograd_errors.diagnosis`): the ``out += identity`` that changed a saved
tensor, the ``self.hx = out`` that carried a graph into the next step. When the traceback is
not enough, it runs that cell again, recorded, in the same namespace, its output hidden: what
the cell changed before it failed (a variable it increments, a model it trains) is changed
again, and a cell that draws unseeded random numbers may not fail the same way (the diagnosis
then says so). The culprits of a cell are named as IPython names them (``Cell In[3]:4``).

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
    from autograd_errors.rendering.diagnosis import DiagnosisShape, Place

#: The width of the answer's text in a terminal IPython.
WIDTH = 88
#: The line magic that chooses the answers' language.
MAGIC = "autograd_errors"
#: The line magic that diagnoses the last failed cell.
DIAGNOSE_MAGIC = "autograd_diagnose"


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


class CellDiagnosis:
    """The diagnosis under a cell: text in a terminal, HTML in a notebook; a cell's culprit
    named by ``place`` (IPython's "Cell In[3]")."""

    def __init__(
        self, diagnosis: DiagnosisShape, language: str, place: Place, *, with_cause: bool = True
    ) -> None:
        self.diagnosis = diagnosis
        self.language = language
        self.place = place
        self.with_cause = with_cause  # False under an answer that leads with the cause

    def __repr__(self) -> str:
        from autograd_errors.rendering.diagnosis import diagnosis_text
        from autograd_errors.rendering.terminal import Style

        style = Style.for_stream(sys.stderr)
        text = diagnosis_text(
            self.diagnosis, self.language, style, WIDTH, self.place, with_cause=self.with_cause
        )
        return "autograd-errors: " + text

    def _repr_html_(self) -> str:
        from autograd_errors.rendering.diagnosis import diagnosis_html

        return diagnosis_html(self.diagnosis, self.language, self.place, with_cause=self.with_cause)


class _Extension:
    """The extension in one shell: what it replaced, and the language asked for."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.language: str | None = None  # None: the locale's, when the error comes
        self._undo: list[Callable[[], None]] = []
        self._in_handler = 0  # inside a custom handler, which may show the traceback itself
        self._cell: tuple[str, int] | None = None  # the cell running: its source and number
        #: The last cell that failed, its number and its error, for %autograd_diagnose.
        self.failed: tuple[str, int, BaseException] | None = None
        #: While %autograd_diagnose runs a cell again: the errors it shows, instead of showing.
        self._captured: list[BaseException] | None = None

    def load(self) -> None:
        shell = self.shell
        self._replace("showtraceback", self._showtraceback_over(shell.showtraceback))
        if shell.custom_exceptions:
            self._replace("CustomTB", self._custom_handler_over(shell.CustomTB))
        shell.register_magic_function(self.magic, "line", MAGIC)
        shell.register_magic_function(self.diagnose_magic, "line", DIAGNOSE_MAGIC)
        shell.events.register("pre_run_cell", self._pre_run_cell)
        self._undo.append(lambda: shell.events.unregister("pre_run_cell", self._pre_run_cell))

    def unload(self) -> None:
        while self._undo:
            self._undo.pop()()
        for name in (MAGIC, DIAGNOSE_MAGIC):
            self.shell.magics_manager.magics["line"].pop(name, None)

    def _pre_run_cell(self, info: Any) -> None:
        """Remember the cell about to run, and its number (the one its traceback shows: the
        shell has counted it already)."""
        raw = getattr(info, "raw_cell", None)
        if isinstance(raw, str):
            self._cell = (raw, self.shell.execution_count - 1)

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
            if self._captured is not None:  # the cell run again by %autograd_diagnose
                if error is not None:
                    self._captured.append(error)
                return
            if (
                error is not None
                and self._cell is not None
                and not exception_only
                and DIAGNOSE_MAGIC not in self._cell[0]  # never diagnose the diagnosis
            ):
                self.failed = (*self._cell, error)
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

    def diagnose_magic(self, line: str) -> None:
        """``%autograd_diagnose``: where the last failed cell's error started."""
        if line.strip():
            print(f"usage: %{DIAGNOSE_MAGIC}", file=sys.stderr)
            return
        diagnose_last_failure(self)

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


def _run_again(extension: _Extension, source: str, number: int) -> None:
    """Run the cell ``source`` (number ``number``) again, as IPython ran it, under the same
    name (so its lines are the traceback's), its output hidden; raise what it raises, a
    ``%run`` script's error included (IPython shows that one itself: it is caught here)."""
    import contextlib
    import io

    shell = extension.shell
    transformed = shell.transform_cell(source)
    name = shell.compile.cache(transformed, number, source)
    code = shell.compile(transformed, name, "exec")
    extension._captured = []
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(code, shell.user_global_ns, shell.user_ns)
        if extension._captured:
            raise extension._captured[0]
    finally:
        extension._captured = None


def _place_in(shell: Any) -> Place:
    """How a culprit's file is named in ``shell``: a cell as its tracebacks name it."""
    from autograd_errors.rendering.diagnosis import display_path

    def place(path: str) -> str:
        # A terminal's cell, "<ipython-input-3-...>", comes made absolute: its name is the end.
        shown = display_path(path)
        named = shell.compile.format_code_name(path) or shell.compile.format_code_name(shown)
        return f"{named[0]} {named[1]}" if named else shown

    return place


def diagnose_last_failure(extension: _Extension) -> None:
    """``%autograd_diagnose``: the diagnosis of the last failed cell, displayed."""
    import os

    from IPython.display import display

    from autograd_errors.rendering.strings import language_from_environment, ui

    language = extension.language or language_from_environment(os.environ)
    if extension.failed is None:
        print(ui("diagnose.ipython_nothing_failed", language), file=sys.stderr)
        return
    from autograd_errors.diagnosis.engine import diagnose_again

    source, number, error = extension.failed
    try:
        diagnosis = diagnose_again(error, lambda: _run_again(extension, source, number))
    except Exception as failure:  # noqa: BLE001 - a bug of ours: one line, not a traceback
        print(f"%{DIAGNOSE_MAGIC}: the diagnosis failed ({failure!r})", file=sys.stderr)
        return
    if diagnosis is None:
        print(ui("diagnose.ipython_unknown", language), file=sys.stderr)
        return
    from autograd_errors.rendering.answer import Answer, running_cells

    # The cell's answer again, leading with the cause found; then the culprit lines.
    answer = Answer.of(error).led_by(diagnosis, running_cells(error))
    led = answer.leads_with(diagnosis)
    if led:
        display(CellAnswer(answer, language))  # type: ignore[no-untyped-call]
    place = _place_in(extension.shell)
    display(CellDiagnosis(diagnosis, language, place, with_cause=not led))  # type: ignore[no-untyped-call]
