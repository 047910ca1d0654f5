"""The answer where the error surfaces: after a script's traceback, under a notebook cell, in
pytest's report.

``install()`` chains ``sys.excepthook`` and ``threading.excepthook``: the original
hook prints the traceback unchanged, then, for an error the catalog knows, the short answer
follows on stderr. Installing costs next to nothing; the catalog and the matcher load only when
an exception arrives. A hook must never make things worse, so whatever fails inside it is
swallowed, after the original hook has run.

The answers speak the language ``install(lang=...)`` names (``"en"`` or ``"zh"``, as
``explain --lang``), else the locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``) when the error
comes, as the command line does.

With ``install(diagnose=True)``, an uncaught error of the catalog is also diagnosed
(``autograd_errors.diagnosis``), and the culprit, the line of the program's own code where it
started, follows the answer: from the traceback when that is enough, else by running the
program again, instrumented (as ``run --diagnose`` does: its side effects happen twice; see
docs/diagnose.md). A program started as ``python -c`` or typed at the prompt cannot be run
again: it gets what its traceback shows.

``uninstall()`` gives back what ``install()`` replaced, where it is still ours: a hook another
library chained over ours stays, and ours, still called by it, only passes the error on.
"""

from __future__ import annotations

import sys

from autograd_errors.interpreter.patches import Patches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Any, TextIO

    ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], Any]
    ShowWarning = Callable[..., None]

#: What :func:`install` changed, to give back on :func:`uninstall`; None while not installed.
_installed: Patches | None = None
#: Warning call sites already pointed at: ``(filename, lineno, entry id)``.
_pointed: set[tuple[str, int, str]] = set()
#: The language :func:`install` was given; None: the locale's.
_language: str | None = None
#: Whether :func:`install` was asked to diagnose uncaught errors.
_diagnose = False
#: Set by ``run --diagnose``, whose diagnosis prints each answer itself, after diagnosing.
_answers_deferred = False


def answer_language() -> str:
    """The language the answers speak: the one installed, else the locale's."""
    if _language is not None:
        return _language
    import os

    from autograd_errors.rendering.strings import language_from_environment

    return language_from_environment(os.environ)


def answer_for(
    error: BaseException, *, html: bool = False, width: int | None = None, language: str = "en"
) -> str:
    """The short answer for ``error`` (text, or an HTML fragment), or "" when no entry
    explains it. Reads the exception's message and its traceback, as a paste of them."""
    from autograd_errors.rendering.answer import rendered_answer

    return rendered_answer(error, html=html, width=width, language=language)[0]


def _print_answer(error: BaseException | None) -> None:
    """Print the answer for ``error`` on stderr; never raise."""
    try:
        if error is None or sys.stderr is None:
            return
        text = answer_for(error, language=answer_language())
        if text:
            sys.stderr.write(f"\nautograd-errors: {text}\n")
            sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a broken answer must not hide the traceback
        pass


def _print_diagnosis(error: BaseException, *, thread: str | None = None) -> None:
    """Diagnose ``error`` and print the culprit under its answer; never raise. The main
    thread's program is run again when its probe needs it; a thread's, never."""
    try:
        from autograd_errors.diagnosis.rerun import Command
        from autograd_errors.diagnosis.session import show_diagnosis

        command = None if thread else Command.of_this_process()
        show_diagnosis(error, command, answer_language(), thread=thread)
    except Exception:  # noqa: BLE001 - the traceback and the answer are shown already
        pass


def _excepthook_over(original: ExceptHook, patches: Patches) -> ExceptHook:
    """``sys.excepthook``: ``original``'s traceback, then the answer while ``patches`` is
    the installation in force."""

    def excepthook(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        try:
            original(kind, error, traceback)
        except Exception:  # noqa: BLE001 - an original hook that fails still leaves a traceback
            sys.__excepthook__(kind, error, traceback)
        # Ctrl-C has no answer; and importing anything here (the answer's modules) makes
        # CPython exit 1 instead of dying of SIGINT, which a shell loop needs to stop.
        if patches is _installed and not isinstance(error, KeyboardInterrupt):
            if _diagnose:
                _print_diagnosis(error)  # the answer with it, once the cause is known
            elif not _answers_deferred:
                _print_answer(error)

    return excepthook


def _threading_excepthook_over(original: Callable[[Any], Any], patches: Patches) -> Any:
    def threading_excepthook(args: Any) -> None:
        try:
            original(args)
        except Exception:  # noqa: BLE001
            import threading

            threading.__excepthook__(args)
        if patches is _installed:
            if _diagnose and args.exc_value is not None:
                name = getattr(args.thread, "name", None) or "a thread"
                _print_diagnosis(args.exc_value, thread=f"thread {name!r}")
            elif not _answers_deferred:
                _print_answer(args.exc_value)

    return threading_excepthook


def _showwarning_over(original: ShowWarning, patches: Patches) -> ShowWarning:
    def showwarning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        original(message, category, filename, lineno, file, line)
        if patches is _installed:
            _point_at_entry(message, category, filename, lineno, file)

    return showwarning


def _point_at_entry(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any
) -> None:
    """One line naming the entry of a known warning, once per call site; never raise."""
    try:
        from autograd_errors.catalog import load
        from autograd_errors.matcher.matching import find_entries
        from autograd_errors.rendering.urls import base_url, page_url

        explanation = find_entries(f"{category.__name__}: {message}", load())
        if not explanation.matches:
            return
        entry = explanation.matches[0].entry
        if (filename, lineno, entry.id) in _pointed:
            return
        _pointed.add((filename, lineno, entry.id))
        stream = file or sys.stderr
        language = answer_language()
        title = entry.localized(language, fallback=True).title
        stream.write(f"autograd-errors: {title}: {page_url(base_url(), entry, language)}\n")
    except Exception:  # noqa: BLE001 - a pointer is a courtesy, never a new failure
        pass


class _ThreadingWatcher:
    """Chains :data:`threading.excepthook` when a program that had not imported
    :mod:`threading` does: importing it in :func:`install` would cost more than the rest of
    installing together."""

    def __init__(self, patches: Patches) -> None:
        self.patches = patches

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "threading":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module
        patches = self.patches

        def exec_module(module: Any) -> None:
            load(module)
            if patches is _installed:
                _chain_threading(module, patches)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _chain_threading(threading: Any, patches: Patches) -> None:
    hook = _threading_excepthook_over(threading.excepthook, patches)
    patches.set(threading, "excepthook", hook)


def install(*, warnings: bool = False, lang: str | None = None, diagnose: bool = False) -> None:
    """Explain known autograd errors after their traceback, in the main thread and in others;
    with ``warnings=True``, point at the entry of each known warning, once per call site;
    with ``diagnose=True``, name the line of the program's own code where the error started
    (running the program again, instrumented, when its traceback is not enough); in ``lang``
    (``"en"``, ``"zh"``; by default the locale's language).

    Installing twice is harmless; :func:`uninstall` restores the previous hooks."""
    global _installed, _language, _diagnose
    if lang is not None:
        from autograd_errors.rendering.strings import parse_lang

        try:
            _language = parse_lang(lang)
        except ValueError:
            raise ValueError(f"lang must be 'en' or 'zh', not {lang!r}") from None
    _diagnose = _diagnose or diagnose
    patches = _installed
    if patches is None:
        patches = _installed = Patches()
        patches.set(sys, "excepthook", _excepthook_over(sys.excepthook, patches))
        if "threading" in sys.modules:
            _chain_threading(sys.modules["threading"], patches)
        else:
            patches.insert(sys.meta_path, 0, _ThreadingWatcher(patches))
    if warnings:
        import warnings as warnings_module

        if not patches.has_set(warnings_module, "showwarning"):
            hook = _showwarning_over(warnings_module.showwarning, patches)
            patches.set(warnings_module, "showwarning", hook)


def defer_answers() -> None:
    """Leave the answers to the caller's diagnosis, which prints each one with the cause it
    found (``run --diagnose``: it knows how to run the program again, this hook does not)."""
    global _answers_deferred
    _answers_deferred = True


def uninstall() -> None:
    """Put back the hooks :func:`install` replaced, where they are still ours."""
    global _installed, _language, _diagnose, _answers_deferred
    if _installed is not None:
        _installed.restore()
        _installed = None
    _pointed.clear()
    _language = None
    _diagnose = _answers_deferred = False
