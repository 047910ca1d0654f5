"""``anomaly-nan``: the first backward node whose output was not finite, with its forward line.

Anomaly mode checks each node's output for NaN only, so it names the node that turned an
infinity into a NaN: ``sqrt`` at 0 has an infinite derivative, and the ``pow`` or ``mul`` below
it multiplies that infinity by 0. The recorder's post-hooks see every node's output in the order
backward runs them, infinities included; the first non-finite one is where it starts. A NaN
already in the forward pass of the same step (the data, the loss) comes first.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from autograd_errors.diagnosis.evidence import Graph, culprit, not_recorded, pick, same_node_name
from autograd_errors.diagnosis.findings import Culprit, Diagnosis, Note, nothing
from autograd_errors.diagnosis.registry import probe

if TYPE_CHECKING:
    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.records import Recording

#: The common cause of anomaly-nan that the node where it starts supports.
_NODE_CAUSES = (
    ("Sqrt", "sqrt-of-zero"),
    ("Rsqrt", "sqrt-of-zero"),
    ("Div", "zero-denominator"),
    ("Reciprocal", "zero-denominator"),
    ("Acos", "acos-out-of-range"),
    ("Asin", "acos-out-of-range"),
)


@probe("anomaly-nan", records=("nodes", "backward", "finite"))
def anomaly_nan(failure: Failure, recording: Recording | None) -> Diagnosis:
    if recording is None:
        return not_recorded(failure)
    failing = recording.current
    forward = recording.forward_nonfinite
    culprits: list[Culprit] = []
    cause = None
    if forward is not None and failing is not None and forward.epoch == failing.epoch:
        where = pick(forward.frames)
        if where is not None:
            culprits.append(
                culprit(where, "non-finite", "diagnose.what.forward_nan", op=forward.op)
            )
            cause = "nan-in-inputs"
    origin = recording.backward_nonfinite
    if not culprits and origin is not None:
        where = pick(origin.frames)
        if where is not None:
            culprits.append(
                culprit(
                    where,
                    "non-finite",
                    "diagnose.what.backward_nonfinite",
                    node=origin.op,
                    kind=origin.kind,
                    index=origin.index,
                )
            )
            cause = next(
                (cause for name, cause in _NODE_CAUSES if same_node_name(origin.op, name)), None
            )
    reported = failure.fields.get("node")
    if reported and failing is not None:
        graph = Graph(recording, failing.roots)
        lines = {
            pick(graph.frames(seq)) for seq, node in graph if same_node_name(node.name(), reported)
        }
        lines.discard(None)
        if len(lines) == 1:
            where = lines.pop()
            assert where is not None
            if not culprits:  # the node anomaly mode named is where it started
                culprits.append(
                    culprit(where, "non-finite", "diagnose.what.reported", node=reported)
                )
                cause = next(
                    (cause for name, cause in _NODE_CAUSES if same_node_name(reported, name)),
                    None,
                )
            elif (os.path.abspath(where[0]), where[1]) != (culprits[0].path, culprits[0].line):
                culprits.append(culprit(where, "reported", "diagnose.what.reported", node=reported))
    if not culprits:
        return nothing(failure.entry, Note("diagnose.note.no_nonfinite"))
    return Diagnosis(failure.entry, cause, tuple(culprits))
