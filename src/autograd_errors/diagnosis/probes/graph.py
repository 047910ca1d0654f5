"""The graph family: ``backward-twice`` (which tensor brought a freed graph into this backward)
and ``no-grad-fn`` (where the graph was cut on the way to the loss).

``backward-twice``. Every node carries the number of graph-freeing ``backward()`` calls that had
finished when it was built (its epoch). In the failing backward's graph, an edge from a node of
this epoch to an older one is a tensor carried over from before a backward that freed its
graph; it is the culprit when the older part holds a node whose saved tensors are gone. The
records then say where it was carried (an attribute or a buffer assigned it, a running total
that an earlier backward had as its root), which backward freed it, and where it was built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autograd_errors.diagnosis.evidence import (
    Graph,
    culprit,
    not_recorded,
    pick,
    saved_errors,
)
from autograd_errors.diagnosis.findings import Culprit, Diagnosis, Note, nothing
from autograd_errors.diagnosis.registry import probe
from autograd_errors.diagnosis.source import no_grad_line

if TYPE_CHECKING:
    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.records import Backward, Origin, Recording, Where

_FREED = "Trying to backward through the graph a second time"


def _freed(node: Any) -> bool:
    return any(message.startswith(_FREED) for _, message in saved_errors(node))


def _holds_freed(graph: Graph, start: int, epoch: int) -> bool:
    """Whether the older part of the graph from ``start`` holds a node whose saved tensors were
    freed."""
    stack, seen = [start], set()
    while stack:
        seq = stack.pop()
        if seq in seen or graph.tag(seq).epoch >= epoch:
            continue
        seen.add(seq)
        if _freed(graph.nodes[seq]):
            return True
        stack.extend(child for child, _ in graph.children(seq))
    return False


def _freed_by(recording: Recording, failing: Backward, seq: int) -> Backward | None:
    """The latest earlier backward, not keeping its graph, whose graph held node ``seq``."""
    for record in reversed(recording.backwards):
        if record.index >= failing.index or record.retain or not record.roots:
            continue
        if seq in Graph(recording, record.roots):
            return record
    return None


def _append(
    culprits: list[Culprit], where: Where | None, role: str, key: str, **values: object
) -> None:
    """Add the culprit at ``where``, unless a line already there plays a part."""
    if where is None:
        return
    found = culprit(where, role, key, **values)
    if all((c.path, c.line) != (found.path, found.line) for c in culprits):
        culprits.append(found)


@probe("backward-twice", records=("nodes", "backward", "assignments"))
def backward_twice(failure: Failure, recording: Recording | None) -> Diagnosis:
    if recording is None:
        return not_recorded(failure)
    failing = recording.current
    if failing is None:
        return nothing(failure.entry, Note("diagnose.note.no_backward"))
    graph = Graph(recording, failing.roots)
    epoch = failing.epoch
    root_seqs = [seq for seq in failing.root_seqs if seq is not None]
    if root_seqs and all(graph.tag(seq).epoch < epoch for seq in root_seqs):
        return _shared_trunk(failure, recording, failing, graph, root_seqs[0])
    frontier: list[tuple[int, int]] = []  # (newer node, older node it reads)
    for seq, _ in graph:
        if graph.tag(seq).epoch < epoch:
            continue
        for child, _ in graph.children(seq):
            is_older = graph.tag(child).epoch < epoch
            unseen = all(child != old for _, old in frontier)
            if is_older and unseen and _holds_freed(graph, child, epoch):
                frontier.append((seq, child))
    if not frontier:
        return nothing(failure.entry, Note("diagnose.note.no_carried"))
    newer, older = frontier[0]
    old_tag = graph.tag(older)
    built = pick(graph.frames(older))
    reused = pick(graph.frames(newer))
    freeing = _freed_by(recording, failing, older)
    freed_at = pick(freeing.frames) if freeing else None
    assignment = next(
        (a for a in reversed(recording.assignments) if a.node_seq == old_tag.seq), None
    )
    node = graph.nodes[older].name()
    culprits: list[Culprit] = []
    cause = None
    if assignment is not None:
        cause = "carried-state"
        _append(
            culprits,
            pick(assignment.frames),
            "carried-over",
            f"diagnose.what.assigned_{assignment.kind}",
            name=assignment.name,
            owner=assignment.owner,
        )
    elif any(old_tag.seq in record.root_seqs for record in recording.backwards):
        cause = "accumulated-loss"
        _append(culprits, reused, "carried-over", "diagnose.what.total", node=node)
    elif freeing is not None and freed_at is not None and failing.frames[:1] != freeing.frames[:1]:
        cause = "gan-not-detached"
        first = Graph(recording, freeing.roots)
        _append(
            culprits,
            pick(first.frames(first.parent.get(older)), freeing.frames),
            "not-detached",
            "diagnose.what.not_detached",
            node=node,
        )
    elif old_tag.epoch == 0 and freeing is not None and failing.frames[:1] == freeing.frames[:1]:
        cause = "computed-before-loop"
        _append(culprits, built, "built", "diagnose.what.built_once", node=node)
    _append(culprits, reused, "reused", "diagnose.what.reused", node=node)
    _append(culprits, built, "built", "diagnose.what.built", node=node)
    _append(culprits, freed_at, "freed-by", "diagnose.what.freed_by")
    return Diagnosis(failure.entry, cause, tuple(culprits))


def _shared_trunk(
    failure: Failure, recording: Recording, failing: Backward, graph: Graph, root: int
) -> Diagnosis:
    """The failing backward's own loss was built before an earlier backward freed the part of
    the graph the two share."""
    shared = next((seq for seq, node in graph if _freed(node)), None)
    culprits: list[Culprit] = []
    if shared is not None:
        freeing = _freed_by(recording, failing, shared)
        if freeing is not None:
            _append(culprits, pick(freeing.frames), "freed-by", "diagnose.what.freed_by")
        node = graph.nodes[shared].name()
        _append(culprits, pick(graph.frames(shared)), "built", "diagnose.what.shared", node=node)
    if not culprits:
        return nothing(failure.entry, Note("diagnose.note.no_carried"))
    return Diagnosis(failure.entry, "shared-trunk", tuple(culprits))


# no-grad-fn ----------------------------------------------------------------------------------

#: The common cause of no-grad-fn that each reason for a cut supports.
_CUT_CAUSES = {
    "no-grad": "no-grad-mode",
    "inference-mode": "no-grad-mode",
    "detach": "frozen-or-detached",
    "frozen": "frozen-or-detached",
    "non-differentiable": "non-differentiable-loss",
    "item": "rewrapped-loss",
}


def cut_culprits(origin: Origin) -> list[Culprit]:
    """The lines where the graph was cut, for ``origin``: the ``no_grad`` block around it (or
    the line that froze the parameters, or the ``.item()`` call), then the operation."""
    culprits: list[Culprit] = []
    if origin.reason in ("no-grad", "inference-mode"):
        for path, line, function in origin.frames:
            block = no_grad_line(path, line)
            if block is not None:
                _append(culprits, (path, block, function), "no-grad", "diagnose.what.no_grad")
                break
    elif origin.reason == "frozen":
        _append(culprits, pick(origin.item_frames), "frozen", "diagnose.what.frozen")
    elif origin.reason == "item":
        _append(culprits, pick(origin.item_frames), "graph-cut", "diagnose.what.item")
    key = "diagnose.what.cut_" + origin.reason.replace("-", "_")
    _append(culprits, pick(origin.frames), "graph-cut", key, op=origin.op)
    return culprits


@probe("no-grad-fn", records=("nodes", "backward", "provenance"))
def no_grad_fn(failure: Failure, recording: Recording | None) -> Diagnosis:
    if recording is None:
        return not_recorded(failure)
    failing = recording.current
    if failing is None:
        return nothing(failure.entry, Note("diagnose.note.no_backward"))
    index = int(failure.fields.get("index", "0") or 0)
    tensors = [tensor for tensor in failing.tensors if tensor.grad_fn is None]
    tensor = failing.tensors[index] if index < len(failing.tensors) else None
    if tensor is None or tensor.grad_fn is not None:
        tensor = tensors[0] if tensors else None
    origin = recording.origins.get(tensor) if tensor is not None else None
    if origin is None:
        return nothing(failure.entry, Note("diagnose.note.no_cut"))
    culprits = cut_culprits(origin)
    if not culprits:
        return nothing(failure.entry, Note("diagnose.note.no_cut"))
    cause = _CUT_CAUSES.get(origin.reason)
    if cause == "no-grad-mode" and culprits[0].role != "no-grad":
        cause = None  # torch ran it without grad, not a block of the user's: checkpointing?
    return Diagnosis(failure.entry, cause, tuple(culprits))
