"""``inplace-modified``: the in-place operation that changed a tensor autograd had saved, and the
forward line that saved it.

The message names the saved tensor (its shape, the node it is an output of, or none for a
leaf) and two versions: the one autograd saved (expected) and the one it found. The node that
could not unpack it is found in the failing backward's graph: it is the node whose saved tensor
raises this same message when read. The recorded in-place changes of that tensor (by the node
it was an output of just before the change, through views down to a leaf) whose versions lie
between the two are the culprits, the first change first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autograd_errors.diagnosis.evidence import (
    Graph,
    culprit,
    pick,
    same_node_name,
    saved_errors,
)
from autograd_errors.diagnosis.findings import Diagnosis, Note, nothing
from autograd_errors.diagnosis.registry import probe

if TYPE_CHECKING:
    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.records import Mutation, Recording

#: Nodes of view operations: the tensor they output shares its base's version counter.
_VIEWS = (
    "AsStrided", "T", "Transpose", "Permute", "View", "Reshape", "Alias", "Select", "Slice",
    "Expand", "Squeeze", "Unsqueeze", "Unbind", "Split", "SplitWithSizes", "Narrow", "Diagonal",
    "Unfold", "Chunk", "Indices", "Values", "UnsafeView", "Unflatten",
)  # fmt: skip


def _is_view(name: str) -> bool:
    return any(same_node_name(name, view) for view in _VIEWS)


def _names_it(name: str, named: str) -> bool:
    """Whether the message's node name is this node's: the same operation, or, for a saved
    view, any view (the message calls the transposed weight of an ``nn.Linear``
    ``AsStrided`` while its node is ``TBackward0``)."""
    return same_node_name(name, named) or (_is_view(name) and _is_view(named))


def _shape(text: str) -> tuple[int, ...] | None:
    inside = text.strip().strip("[]").replace(" ", "")
    try:
        return tuple(int(size) for size in inside.split(",") if size)
    except ValueError:
        return None


def _head(message: str) -> str:
    """The message without its hint, which anomaly mode words differently."""
    return message.split(" Hint:", 1)[0]


class _Saved:
    """What the graph says of the saved tensor: the nodes it (or its base) is an output of,
    and the leaves it is a view of."""

    def __init__(self) -> None:
        self.outputs: set[tuple[int, int]] = set()  # (node seq, output index) of the tensor
        self.bases: set[int] = set()  # nodes whose outputs it is a view of
        self.leaves: list[Any] = []
        self.consumers: list[int] = []
        self.view = False

    def holds(self, mutation: Mutation) -> bool:
        if (mutation.node_seq, mutation.output_nr) in self.outputs:
            return True
        if mutation.node_seq in self.bases or mutation.base_node_seq in self.bases:
            return True
        tensors = [mutation.tensor(), mutation.base() if mutation.base else None]
        return any(t is not None and any(t is leaf for leaf in self.leaves) for t in tensors)


def _saved(graph: Graph, failure: Failure, node_name: str | None, index: int) -> _Saved:
    saved = _Saved()
    head = _head(failure.message)
    for seq, node in graph:
        names = [name for name, message in saved_errors(node) if _head(message) == head]
        if not names:
            continue
        saved.consumers.append(seq)
        if node_name is None:
            saved.leaves += graph.leaf_variables(seq)
            continue
        candidates = [(seq, index)] if any(n.startswith("_saved_result") for n in names) else []
        candidates += graph.children(seq)
        for candidate, _ in candidates:
            if not _names_it(graph.nodes[candidate].name(), node_name):
                continue
            saved.outputs.add((candidate, index))
            # Down through views to what they view: a leaf, or another node's output.
            below = [candidate]
            while below:
                current = below.pop()
                if not _is_view(graph.nodes[current].name()):
                    continue
                saved.view = True
                saved.leaves += graph.leaf_variables(current)
                for child, _ in graph.children(current):
                    saved.bases.add(child)
                    below.append(child)
    return saved


@probe("inplace-modified", records=("nodes", "mutations", "backward"))
def inplace_modified(failure: Failure, recording: Recording | None) -> Diagnosis:
    from autograd_errors.diagnosis.evidence import not_recorded

    if recording is None:
        return not_recorded(failure)
    fields = failure.fields
    try:
        version, expected = int(fields["version"]), int(fields["expected_version"])
    except (KeyError, ValueError):
        return nothing(failure.entry, Note("diagnose.note.no_versions"))
    node_name = fields.get("node")
    index = int(fields.get("output_index", "0") or 0)
    shape = _shape(fields.get("shape", ""))
    backward = recording.current
    graph = Graph(recording, backward.roots if backward else [])
    saved = _saved(graph, failure, node_name, index)

    def in_window(mutation: Mutation) -> bool:
        return expected <= mutation.version_before < mutation.version_after <= version

    changes = [m for m in recording.mutations if in_window(m) and saved.holds(m)]
    if not changes:
        # The graph did not say which tensor (no backward recorded, a leaf without a node):
        # the message's own description, when it fits changes made on one line only.
        changes = [
            m
            for m in recording.mutations
            if in_window(m)
            and m.shape == shape
            and (
                _names_it(m.node_name, node_name) and m.output_nr == index
                if node_name
                else m.node_seq is None
            )
        ]
        if len({(m.frames[:1]) for m in changes}) != 1:
            changes = []
    changes = [m for m in changes if m.frames]
    if not changes:
        return nothing(
            failure.entry,
            Note(
                "diagnose.note.no_inplace",
                {"shape": fields.get("shape", ""), "before": str(expected), "after": str(version)},
            ),
        )
    changes.sort(key=lambda m: (m.version_before, m.seq))
    tensor = (
        f"{fields.get('shape', '')}, output {index} of {node_name}"
        if node_name
        else fields.get("shape", "")
    )
    culprits = []
    seen: set[tuple[str, int]] = set()
    for change in changes:
        where = pick(change.frames)
        if where is None or (where[0], where[1]) in seen:
            continue
        seen.add((where[0], where[1]))
        culprits.append(
            culprit(
                where,
                "changed-in-place",
                "diagnose.what.changed",
                op=change.op,
                tensor=tensor,
                before=change.version_before,
                after=change.version_after,
            )
        )
    for consumer in saved.consumers[:1]:
        where = pick(graph.frames(consumer))
        if where is not None and (where[0], where[1]) not in seen:
            culprits.append(
                culprit(
                    where,
                    "saved",
                    "diagnose.what.saved",
                    node=graph.nodes[consumer].name(),
                    version=expected,
                )
            )
    return Diagnosis(failure.entry, _cause(changes, saved), tuple(culprits))


def _cause(changes: list[Mutation], saved: _Saved) -> str:
    first = changes[0]
    if any("/torch/optim/" in change.entry_file.replace("\\", "/") for change in changes):
        return "optimizer-step"
    if first.op in ("__setitem__", "copy_", "index_put_") and saved.view:
        return "loop-writes-buffer"
    return "inplace-after-saving-op"
