"""The answer where the error surfaces: after a script's traceback, under a notebook cell, in
pytest's report.

``install()`` chains ``sys.excepthook`` and ``threading.excepthook``: the original
hook prints the traceback unchanged, then, for an error the catalog knows, the short answer
follows on stderr. Installing costs next to nothing; the catalog and the matcher load only when
an exception arrives. A hook must never make things worse, so whatever fails inside it is
swallowed, after the original hook has run.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Any, TextIO

    from autograd_errors.matching import Explanation

    ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], Any]

#: What :func:`install` replaced, to put back on :func:`uninstall`.
_saved: dict[str, Any] = {}
#: Warning call sites already pointed at: ``(filename, lineno, entry id)``.
_pointed: set[tuple[str, int, str]] = set()


def answer_for(error: BaseException, *, html: bool = False, width: int | None = None) -> str:
    """The short answer for ``error`` (text, or an HTML fragment), or "" when no entry
    explains it. Reads the exception's message and its traceback, as a paste of them."""
    import traceback

    import autograd_errors.report as report
    from autograd_errors.frames import user_frame

    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    explanation = _explain(text)
    if not explanation.matches:
        return ""
    base_url = report.base_url()
    if html:
        return report.short_html(explanation, base_url)
    style = report.Style.for_stream(sys.stderr)
    width = width or report.text_width(sys.stderr)
    return report.short_text(explanation, base_url, style, width, user_frame(text))


def _explain(text: str) -> Explanation:
    from autograd_errors.catalog import load
    from autograd_errors.matching import explain

    return explain(text, load())


def _print_answer(error: BaseException | None) -> None:
    """Print the answer for ``error`` on stderr; never raise."""
    try:
        if error is None or sys.stderr is None:
            return
        text = answer_for(error)
        if text:
            sys.stderr.write(f"\nautograd-errors: {text}\n")
            sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a broken answer must not hide the traceback
        pass


def _excepthook(
    kind: type[BaseException], error: BaseException, traceback: TracebackType | None
) -> None:
    original: ExceptHook = _saved.get("excepthook", sys.__excepthook__)
    try:
        original(kind, error, traceback)
    except Exception:  # noqa: BLE001 - an original hook that fails still leaves a traceback
        sys.__excepthook__(kind, error, traceback)
    _print_answer(error)


def _threading_excepthook(args: Any) -> None:
    import threading

    original = _saved.get("threading_excepthook", threading.__excepthook__)
    try:
        original(args)
    except Exception:  # noqa: BLE001
        threading.__excepthook__(args)
    _print_answer(args.exc_value)


def _showwarning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    _saved["showwarning"](message, category, filename, lineno, file, line)
    try:
        import autograd_errors.report as report

        explanation = _explain(f"{category.__name__}: {message}")
        if not explanation.matches:
            return
        entry = explanation.matches[0].entry
        if (filename, lineno, entry.id) in _pointed:
            return
        _pointed.add((filename, lineno, entry.id))
        stream = file or sys.stderr
        stream.write(
            f"autograd-errors: {entry.title}: {report.page_url(report.base_url(), entry)}\n"
        )
    except Exception:  # noqa: BLE001 - a pointer is a courtesy, never a new failure
        pass


class _ThreadingWatcher:
    """Chains :data:`threading.excepthook` when a program that had not imported
    :mod:`threading` does: importing it in :func:`install` would cost more than the rest of
    installing together."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "threading":
            return None
        sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            _chain_threading(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _chain_threading(threading: Any) -> None:
    if "excepthook" in _saved and "threading_excepthook" not in _saved:
        _saved["threading_excepthook"] = threading.excepthook
        threading.excepthook = _threading_excepthook


def install(*, warnings: bool = False) -> None:
    """Explain known autograd errors after their traceback, in the main thread and in others;
    with ``warnings=True``, point at the entry of each known warning, once per call site.

    Installing twice is harmless; :func:`uninstall` restores the previous hooks."""
    if "excepthook" not in _saved:
        _saved["excepthook"] = sys.excepthook
        sys.excepthook = _excepthook
        if "threading" in sys.modules:
            _chain_threading(sys.modules["threading"])
        else:
            sys.meta_path.insert(0, _ThreadingWatcher())
    if warnings and "showwarning" not in _saved:
        import warnings as warnings_module

        _saved["showwarning"] = warnings_module.showwarning
        warnings_module.showwarning = _showwarning


def uninstall() -> None:
    """Put back the hooks :func:`install` replaced."""
    import warnings

    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ThreadingWatcher)]
    if "threading_excepthook" in _saved:
        threading: Any = sys.modules["threading"]
        threading.excepthook = _saved.pop("threading_excepthook")
    if "excepthook" in _saved:
        sys.excepthook = _saved.pop("excepthook")
    if "showwarning" in _saved:
        warnings.showwarning = _saved.pop("showwarning")
    _pointed.clear()
