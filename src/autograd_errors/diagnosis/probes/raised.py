"""Errors raised where the bug is: the line that raised, and which tensor, by the name the
user's code gives it.

Torch raises these at the operation that is wrong (an in-place change of a leaf that requires
grad, an assignment to a parameter, ``.numpy()`` on a tensor that requires grad...), so the
raising line is the culprit; the statement's target (``w`` in ``w -= lr * w.grad``, ``x`` in
``x[mask] = 0`` or ``x.add_(1)``, ``model.fc.weight`` in ``model.fc.weight = t``) is looked up
in the live frame, and named only when it is a tensor or a module there. A DataLoader worker's
error arrives as text: its line is read from the worker's traceback in the message.
"""

from __future__ import annotations

import ast
import os
import sys
from typing import TYPE_CHECKING, Any

from autograd_errors.diagnosis.evidence import culprit, lookup, raising_frame
from autograd_errors.diagnosis.findings import Diagnosis, Note, nothing
from autograd_errors.diagnosis.registry import probe
from autograd_errors.diagnosis.source import dotted_name, is_user_file, statement_at

if TYPE_CHECKING:
    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.records import Recording

#: Entries whose error torch raises at the operation that is wrong.
RAISED_WHERE_THE_BUG_IS = (
    "leaf-inplace",
    "view-leaf-inplace",
    "nograd-view-inplace",
    "detach-view-inplace",
    "resize-requires-grad",
    "out-arg-autograd",
    "inference-inplace",
    "inference-requires-grad",
    "parameter-assign",
    "module-assign",
    "buffer-assign",
    "numpy-requires-grad",
    "requires-grad-nonleaf",
    "requires-grad-dtype",
    "data-not-tensor",
    "grad-assign-size",
)
#: Methods whose receiver is the tensor the error is about.
_RECEIVER_METHODS = ("numpy", "requires_grad_", "detach_", "resize_", "resize_as_")


def targets(statement: ast.stmt) -> list[str]:
    """The names a statement changes or calls a method of, in the order they appear."""
    found: list[ast.expr] = []
    if isinstance(statement, ast.AugAssign):
        found.append(statement.target)
    elif isinstance(statement, ast.Assign | ast.AnnAssign):
        for target in (
            statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        ):
            if isinstance(target, ast.Subscript):
                found.append(target.value)
            elif isinstance(target, ast.Attribute):
                found.append(
                    target if target.attr not in ("data", "grad", "requires_grad") else target.value
                )
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if (method.endswith("_") and not method.endswith("__")) or method in _RECEIVER_METHODS:
                found.append(node.func.value)
    names = []
    for expression in found:
        if isinstance(expression, ast.Subscript):
            expression = expression.value
        name = dotted_name(expression)
        if name and name not in names:
            names.append(name)
    return names


def _describe(value: Any) -> dict[str, str] | None:
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    if isinstance(value, torch.Tensor):
        return {"shape": str(list(value.shape))}
    if isinstance(value, torch.nn.Module):
        return {"shape": type(value).__name__}
    return None


@probe(*RAISED_WHERE_THE_BUG_IS)
def raised_here(failure: Failure, recording: Recording | None) -> Diagnosis:
    if failure.worker is not None:
        return _in_worker(failure)
    found = raising_frame(failure.error)
    if found is None:
        return nothing(failure.entry, Note("diagnose.note.no_user_frame"))
    where, frame = found
    statement = statement_at(where[0], where[1])
    for name in targets(statement) if statement is not None else []:
        described = _describe(lookup(frame, name))
        if described is not None:
            what = ("diagnose.what.raised_tensor", {"tensor": name, **described})
            break
    else:
        what = ("diagnose.what.raised", {})
    key, values = what
    cause = _leaf_cause(statement) if failure.entry == "leaf-inplace" else None
    return Diagnosis(failure.entry, cause, (culprit(where, "raised", key, **values),))


def _leaf_cause(statement: ast.stmt | None) -> str | None:
    """leaf-inplace's common cause that the raising statement shows: a gradient step by hand
    (it reads a ``.grad``), or an assignment through an index (``x[mask] = 0``)."""
    if statement is None:
        return None
    if any(isinstance(node, ast.Attribute) and node.attr == "grad" for node in ast.walk(statement)):
        return "manual-update"
    if isinstance(statement, ast.Assign) and any(
        isinstance(target, ast.Subscript) for target in statement.targets
    ):
        return "mask-assign"
    return None


def _in_worker(failure: Failure) -> Diagnosis:
    """The line a DataLoader worker raised at, read from its traceback in the message."""
    from autograd_errors.matcher.frames import user_frame

    note = Note("diagnose.note.worker_line", {"worker": failure.worker or "?"})
    frame = user_frame(failure.message)
    if frame is None or not is_user_file(frame.file) or not os.path.isfile(frame.file):
        return nothing(failure.entry, note)
    found = culprit((frame.file, frame.line, ""), "raised", "diagnose.what.raised")
    return Diagnosis(failure.entry, None, (found,), (note,))
