"""The leaves family: ``nonleaf-grad`` and ``optimize-nonleaf`` (where a tensor created with
``requires_grad=True`` was replaced by a copy: ``.to()``, ``.cuda()``, ``* 0.01``) and
``grad-is-none`` (which parameters got no gradient, and why).

``grad-is-none`` raises nothing itself: the program fails later, at the line that uses the
missing gradient (``TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'``).
Its recogniser names the entry when that line reads the ``.grad`` of a tensor whose ``.grad``
is None, checked in the live frame; a non-leaf is ``nonleaf-grad``'s case (torch warned).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autograd_errors.diagnosis.evidence import (
    Graph,
    culprit,
    grad_reads,
    lookup,
    not_recorded,
    pick,
    raising_frame,
)
from autograd_errors.diagnosis.findings import Culprit, Diagnosis, Note, nothing
from autograd_errors.diagnosis.probes.graph import cut_culprits
from autograd_errors.diagnosis.registry import probe, recogniser

if TYPE_CHECKING:
    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.records import Recording


def _tensor_type() -> Any:
    import sys

    torch = sys.modules.get("torch")
    return None if torch is None else torch.Tensor


def _read_tensors(error: BaseException) -> list[tuple[str, Any]]:
    """``(name, tensor)`` for each tensor whose ``.grad`` the raising line reads."""
    found = raising_frame(error)
    tensor_type = _tensor_type()
    if found is None or tensor_type is None:
        return []
    (path, line, _), frame = found
    values = [(name, lookup(frame, name)) for name in grad_reads(path, line)]
    return [(name, value) for name, value in values if isinstance(value, tensor_type)]


def _grad(tensor: Any) -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


@recogniser
def none_gradient(error: BaseException) -> tuple[str, dict[str, str]] | None:
    """A ``TypeError`` or ``AttributeError`` about ``NoneType`` on a line that reads the
    ``.grad`` of a tensor whose ``.grad`` is None."""
    if not isinstance(error, TypeError | AttributeError) or "NoneType" not in str(error):
        return None
    for name, tensor in _read_tensors(error):
        if _grad(tensor) is None:
            entry = "nonleaf-grad" if tensor.grad_fn is not None else "grad-is-none"
            return entry, {"tensor": name}
    return None


def _named_tensor(failure: Failure) -> tuple[str, Any] | None:
    """The tensor the failure is about, and its name in the user's code."""
    import warnings

    tensor_type = _tensor_type()
    wanted = failure.fields.get("tensor")
    for name, tensor in _read_tensors(failure.error):
        if wanted in (None, name) and (wanted or tensor.grad_fn is not None):
            return name, tensor
    # optimize-nonleaf raises inside the optimizer, which holds the tensor as `param`.
    trace = failure.error.__traceback__
    while trace is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            param = trace.tb_frame.f_locals.get("param")
        if tensor_type is not None and isinstance(param, tensor_type) and not param.is_leaf:
            return "param", param
        trace = trace.tb_next
    return None


@probe("nonleaf-grad", "optimize-nonleaf", records=("nodes",))
def nonleaf(failure: Failure, recording: Recording | None) -> Diagnosis:
    if recording is None:
        return not_recorded(failure)
    named = _named_tensor(failure)
    if named is None:
        return nothing(failure.entry, Note("diagnose.note.no_tensor"))
    name, tensor = named
    node = tensor.grad_fn
    tag = recording.tag_of(node)
    where = pick(tag.frames) if tag else None
    if where is None:
        return nothing(failure.entry, Note("diagnose.note.no_line", {"tensor": name}))
    from_leaf = any(
        getattr(child, "variable", None) is not None and child.variable.requires_grad
        for child, _ in node.next_functions
        if child is not None
    )
    cause = (
        ("moved-after-creation" if from_leaf else "intermediate-result")
        if (failure.entry == "nonleaf-grad")
        else None
    )
    found = culprit(
        where, "became-non-leaf", "diagnose.what.non_leaf", tensor=name, node=node.name()
    )
    return Diagnosis(failure.entry, cause, (found,))


@probe("grad-is-none", records=("nodes", "backward", "provenance"))
def grad_is_none(failure: Failure, recording: Recording | None) -> Diagnosis:
    if recording is None:
        return not_recorded(failure)
    wanted = failure.fields.get("tensor")
    tensor = next((t for name, t in _read_tensors(failure.error) if name == wanted), None)
    if tensor is None:
        return nothing(failure.entry, Note("diagnose.note.no_tensor"))
    notes = _without_gradient(failure)
    culprits: list[Culprit] = []
    cause = None
    if not tensor.requires_grad:
        change = recording.requires_grad_changes.get(tensor)
        if change is not None and not change[0]:
            where = pick(change[1])
            if where is not None:
                culprits.append(culprit(where, "frozen", "diagnose.what.frozen"))
        else:
            cause = "input-without-requires-grad"
    elif recording.backwards:
        last = recording.backwards[-1]
        graph = Graph(recording, last.roots)
        if not any(getattr(node, "variable", None) is tensor for _, node in graph):
            cause = "not-in-graph"
            culprits += _cut_from(recording, graph, tensor)
    return Diagnosis(failure.entry, cause, tuple(culprits), tuple(notes))


def _cut_from(recording: Recording, graph: Graph, tensor: Any) -> list[Culprit]:
    """Where the loss's graph was cut off from ``tensor``: a cut among the loss's inputs whose
    own graph reaches it."""
    for seq, _ in graph:
        for origin in graph.tag(seq).cuts:
            if origin.input_node is None:
                continue
            below = Graph(recording, [origin.input_node])
            if any(getattr(node, "variable", None) is tensor for _, node in below):
                return cut_culprits(origin)
    return []


def _without_gradient(failure: Failure) -> list[Note]:
    """The parameters of the modules the raising frame sees that require grad and got none."""
    import sys

    found = raising_frame(failure.error)
    torch = sys.modules.get("torch")
    if found is None or torch is None:
        return []
    _, frame = found
    names: list[str] = []
    seen: set[int] = set()
    for scope in (frame.f_locals, frame.f_globals):
        for variable, value in list(scope.items()):
            if isinstance(value, torch.nn.Module) and id(value) not in seen:
                seen.add(id(value))
                for name, parameter in value.named_parameters():
                    if id(parameter) not in seen and parameter.requires_grad:
                        seen.add(id(parameter))
                        if parameter.grad is None:
                            names.append(f"{variable}.{name}")
    if not names:
        return []
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    return [Note("diagnose.note.no_gradient", {"names": shown, "count": str(len(names))})]
