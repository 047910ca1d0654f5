"""Running a program as ``python SCRIPT ARG ...`` or ``python -m MODULE ARG ...`` would, in this
interpreter: what ``autograd-errors run`` does, and what a diagnosis runs its probes around.

While the program runs, ``sys.argv``, ``sys.path[0]`` and ``__main__`` are its own (through
:class:`.patches.Patches`); they are given back when it ends, however it ends.
"""

from __future__ import annotations

import os
import sys

from autograd_errors.interpreter.patches import Patches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType


class ProgramNotFound(Exception):
    """The script or the module to run does not exist; the message says which, in one line."""


def check(target: str, *, module: bool) -> str:
    """What ``sys.argv[0]`` is for ``target``: the script as given, or the module's file;
    :class:`ProgramNotFound` when there is no such script, directory or zip file with a
    ``__main__``, or module. A dotted module's package is not imported here: an error in it
    is the program's, raised when it runs (:func:`run`)."""
    if not module:
        if os.path.isdir(target) or _is_zip(target):
            if not _has_main(target):
                raise ProgramNotFound(f"cannot find '__main__' module in {target!r}")
            return target
        if not os.path.isfile(target):
            raise ProgramNotFound(f"cannot open {target!r}: no such file")
        return target
    import importlib.util

    top = target.partition(".")[0]
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ProgramNotFound(f"no module named {target!r}")
    return (spec.origin or target) if top == target else target


def run(target: str, args: list[str], *, module: bool = False) -> BaseException | None:
    """Run the script (or, with ``module``, the module) ``target`` with ``args``: what it
    raised and did not catch, with a traceback that starts at the program's own first frame
    (as Python prints it), or None. Its ``SystemExit`` passes through; a module that is not
    there once its package is imported is :class:`ProgramNotFound`."""
    import runpy

    argv0 = check(target, module=module)
    with Patches() as patches:
        patches.set(sys, "argv", [argv0, *args])
        # sys.path[0] is this command's (the current directory under `python -m`, the console
        # script's directory), replaced as Python sets it for the program: the current
        # directory for -m, the script's real directory (symlinks resolved) for a script, the
        # directory or zip file itself for those; nothing under -P or -I.
        if not (getattr(sys.flags, "safe_path", False) or sys.flags.isolated):
            if module:
                where = os.getcwd()
            elif os.path.isdir(target) or _is_zip(target):
                where = os.path.abspath(target)
            else:
                where = os.path.dirname(os.path.realpath(target))
            patches.replace(sys.path, 0, where)
        try:
            if module:
                _find_module(target)
                runpy.run_module(target, run_name="__main__", alter_sys=True)
            elif os.path.isdir(target) or _is_zip(target):
                runpy.run_path(target, run_name="__main__")
            else:
                _run_path(target, patches)
        except (SystemExit, ProgramNotFound):
            raise
        except BaseException as error:  # noqa: BLE001 - the program's, to report as Python would
            error.__traceback__ = _program_frames(error.__traceback__, runpy.__file__)
            return error
    return None


def _find_module(target: str) -> None:
    """Import ``target``'s package (what fails there is the program's) and find the module:
    :class:`ProgramNotFound` when it is not there."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(target)
    except ModuleNotFoundError as error:
        if error.name is None or not target.startswith(error.name):
            raise  # a module the package itself imports (a missing dependency): the program's
        spec = None
    if spec is None:
        raise ProgramNotFound(f"no module named {target!r}")


def _is_zip(target: str) -> bool:
    import zipfile

    return os.path.isfile(target) and zipfile.is_zipfile(target)


def _has_main(target: str) -> bool:
    if os.path.isdir(target):
        return os.path.isfile(os.path.join(target, "__main__.py"))
    import zipfile

    try:
        with zipfile.ZipFile(target) as archive:
            return "__main__.py" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _run_path(script: str, patches: Patches) -> None:
    """Run a script as ``python SCRIPT`` does: a fresh ``__main__`` whose ``__file__`` and code
    are the absolute path (so tracebacks read the same), ``sys.argv[0]`` left as given, its
    loader a ``SourceFileLoader``, and compiled with none of this package's ``__future__``
    flags (``dont_inherit``: annotations stay objects)."""
    import importlib.machinery
    import types

    path = os.path.abspath(script)
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)
    main_module = types.ModuleType("__main__")
    main_module.__file__ = path
    main_module.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    main_module.__builtins__ = __builtins__  # type: ignore[attr-defined]
    patches.set_item(sys.modules, "__main__", main_module)
    exec(code, main_module.__dict__)


def _program_frames(traceback: TracebackType | None, runpy_file: str) -> TracebackType | None:
    """The traceback from the program's first frame: without this module's and runpy's."""
    import importlib.util

    ours = {
        os.path.abspath(__file__),
        os.path.abspath(runpy_file),
        os.path.abspath(importlib.util.__file__ or ""),
        "<frozen runpy>",
        "<frozen importlib.util>",  # find_spec, importing the package of `-m pkg.mod`
    }
    while traceback is not None and (
        traceback.tb_frame.f_code.co_filename in ours
        or os.path.abspath(traceback.tb_frame.f_code.co_filename) in ours
    ):
        traceback = traceback.tb_next
    return traceback
