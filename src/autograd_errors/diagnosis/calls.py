"""A call into torch, as the recorder sees it: the tensors among its arguments and results,
their version counters, whether it may change an argument in place, and the frames of the
user's code that made it."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import torch

from autograd_errors.diagnosis.source import is_user_file

if TYPE_CHECKING:
    from autograd_errors.diagnosis.records import Where

_USER_FRAMES = 6  # kept per record: the innermost user frames, innermost first
_FRAME_WALK = 120  # frames looked at, at most, to find them


def user_frames(frame: Any) -> tuple[tuple[Where, ...], str]:
    """The innermost user frames from ``frame`` outwards, and the library file the innermost
    of them called into ("" when the user's frame called torch directly)."""
    found: list[Where] = []
    entry_file = ""
    below = ""
    looked = 0
    while frame is not None and looked < _FRAME_WALK and len(found) < _USER_FRAMES:
        code = frame.f_code
        if is_user_file(code.co_filename):
            if not found:
                entry_file = below
            found.append((code.co_filename, frame.f_lineno, code.co_name))
        else:
            below = code.co_filename
        frame = frame.f_back
        looked += 1
    return tuple(found), entry_file


def tensors_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[torch.Tensor]:
    """The tensors among the arguments, and in lists of them (``_foreach_add_``)."""
    found = []
    for value in itertools.chain(args, kwargs.values()):
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, list | tuple):
            found.extend(item for item in value if isinstance(item, torch.Tensor))
    return found


def outputs_of(result: Any) -> list[torch.Tensor]:
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, list | tuple):
        return [item for item in result if isinstance(item, torch.Tensor)]
    return []


def version_of(tensor: torch.Tensor) -> int:
    try:
        return int(tensor._version)
    except RuntimeError:  # an inference tensor has no version counter
        return -1


def name_of(func: Any) -> str:
    return str(getattr(func, "__name__", None) or type(func).__name__)


def nonfinite(tensor: torch.Tensor) -> str | None:
    """ "inf" or "nan" when the tensor holds one, else None."""
    if not tensor.is_floating_point() and not tensor.is_complex():
        return None
    if tensor.numel() == 0 or bool(torch.isfinite(tensor).all()):
        return None
    return "nan" if bool(torch.isnan(tensor).any()) else "inf"


def maybe_in_place(name: str, kwargs: dict[str, Any]) -> bool:
    """A call that may change an argument: ``add_``, ``x[i] = v``, ``inplace=True``, ``out=``."""
    return (
        (name.endswith("_") and not name.endswith("__"))
        or name == "__setitem__"
        or kwargs.get("inplace") is True
        or "out" in kwargs
    )
