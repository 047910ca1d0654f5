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
    :class:`ProgramNotFound` when there is no such script or module."""
    if not module:
        if not os.path.isfile(target):
            raise ProgramNotFound(f"cannot open {target!r}: no such file")
        return target
    import importlib.util

    try:
        spec = importlib.util.find_spec(target)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ProgramNotFound(f"no module named {target!r}")
    return spec.origin or target


def run(target: str, args: list[str], *, module: bool = False) -> BaseException | None:
    """Run the script (or, with ``module``, the module) ``target`` with ``args``: what it
    raised and did not catch, with a traceback that starts at the program's own first frame
    (as Python prints it), or None. Its ``SystemExit`` passes through."""
    import runpy

    argv0 = check(target, module=module)
    with Patches() as patches:
        patches.set(sys, "argv", [argv0, *args])
        where = os.getcwd() if module else os.path.dirname(os.path.abspath(target))
        patches.insert(sys.path, 0, where)
        try:
            if module:
                runpy.run_module(target, run_name="__main__", alter_sys=True)
            else:
                _run_path(target, patches)
        except SystemExit:
            raise
        except BaseException as error:  # noqa: BLE001 - the program's, to report as Python would
            error.__traceback__ = _program_frames(error.__traceback__, runpy.__file__)
            return error
    return None


def _run_path(script: str, patches: Patches) -> None:
    """Run a script as ``python SCRIPT`` does: a fresh ``__main__`` whose ``__file__`` and code
    are the absolute path (so tracebacks read the same), ``sys.argv[0]`` left as given."""
    import types

    path = os.path.abspath(script)
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec")
    main_module = types.ModuleType("__main__")
    main_module.__file__ = path
    main_module.__builtins__ = __builtins__  # type: ignore[attr-defined]
    patches.set_item(sys.modules, "__main__", main_module)
    exec(code, main_module.__dict__)


def _program_frames(traceback: TracebackType | None, runpy_file: str) -> TracebackType | None:
    """The traceback from the program's first frame: without this module's and runpy's."""
    ours = {os.path.abspath(__file__), os.path.abspath(runpy_file), "<frozen runpy>"}
    while traceback is not None and (
        traceback.tb_frame.f_code.co_filename in ours
        or os.path.abspath(traceback.tb_frame.f_code.co_filename) in ours
    ):
        traceback = traceback.tb_next
    return traceback
