"""What the probes share: culprit lines from recorded frames, and walks over an autograd graph
whose nodes carry the recorder's tags.

Graphs are walked from the roots of a ``backward()`` call through ``next_functions``; a node
built inside a library call has no line of its own, and gets the line of the nearest tagged
node above it, which the same user call built.
"""

from __future__ import annotations

import collections
import os
from typing import TYPE_CHECKING, Any

from autograd_errors.diagnosis.findings import Culprit, Diagnosis, Note, nothing
from autograd_errors.diagnosis.source import code_at, is_user_file

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from autograd_errors.diagnosis.failure import Failure
    from autograd_errors.diagnosis.records import Recording, Tag, Where

#: Nodes walked at most, in one graph.
WALK_LIMIT = 200_000


def culprit(where: Where, role: str, key: str | None = None, **values: object) -> Culprit:
    """The culprit line at ``where``, with what happened there (``key`` filled with
    ``values``)."""
    path, line, _ = where
    what = Note(key, {name: str(value) for name, value in values.items()}) if key else None
    return Culprit(os.path.abspath(path), line, role, code_at(path, line), what)


def not_recorded(failure: Failure) -> Diagnosis:
    """Nothing found, because the operations behind the failure were not recorded: they ran in
    another thread or a DataLoader worker, or no instrumented run was made."""
    if failure.worker is not None:
        return nothing(failure.entry, Note("diagnose.note.worker", {"worker": failure.worker}))
    if failure.thread is not None:
        return nothing(failure.entry, Note("diagnose.note.thread", {"thread": failure.thread}))
    return nothing(failure.entry, Note("diagnose.note.not_recorded"))


def pick(frames: tuple[Where, ...], near: tuple[Where, ...] = ()) -> Where | None:
    """The frame to show of ``frames`` (innermost first): the one in the function of
    ``near``'s innermost frame when there is one (the training loop rather than a module's
    ``forward``), else the innermost."""
    if not frames:
        return None
    if near:
        file, _, function = near[0]
        for frame in frames:
            if frame[0] == file and frame[2] == function:
                return frame
    return frames[0]


def traceback_frames(error: BaseException) -> list[Where]:
    """The user's frames of the exception's traceback, outermost first."""
    found = []
    trace = error.__traceback__
    while trace is not None:
        code = trace.tb_frame.f_code
        if is_user_file(code.co_filename):
            found.append((code.co_filename, trace.tb_lineno, code.co_name))
        trace = trace.tb_next
    return found


def raising_frame(error: BaseException) -> tuple[Where, Any] | None:
    """The innermost frame of the user's code in the traceback, and its live frame object."""
    found = None
    trace = error.__traceback__
    while trace is not None:
        code = trace.tb_frame.f_code
        if is_user_file(code.co_filename):
            found = ((code.co_filename, trace.tb_lineno, code.co_name), trace.tb_frame)
        trace = trace.tb_next
    return found


def same_node_name(name: str, named: str) -> bool:
    """Whether a node's ``name()`` is the one a message gives: torch 2.13 names the forward
    operation (``Relu``), older releases the node (``ReluBackward0``, ``TBackward``)."""

    def bare(text: str) -> str:
        text = text.rsplit("::", 1)[-1].rstrip("0123456789")
        return text.removesuffix("Backward")

    return bare(name) == bare(named)


class Graph:
    """The nodes reachable from some roots, each with the node it was first reached from."""

    def __init__(self, recording: Recording, roots: Iterable[Any]) -> None:
        self.recording = recording
        self.nodes: dict[int, Any] = {}
        self.parent: dict[int, int | None] = {}
        self.order: list[int] = []
        stack: collections.deque[tuple[Any, int | None]] = collections.deque(
            (root, None) for root in roots if root is not None
        )
        while stack and len(self.order) < WALK_LIMIT:
            node, parent = stack.popleft()
            above = recording.tag(self.nodes[parent]).epoch if parent is not None else None
            seq = recording.tag(node, above).seq
            if seq in self.nodes:
                continue
            self.nodes[seq] = node
            self.parent[seq] = parent
            self.order.append(seq)
            stack.extend((child, seq) for child, _ in node.next_functions if child is not None)

    def __contains__(self, seq: object) -> bool:
        return seq in self.nodes

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        return ((seq, self.nodes[seq]) for seq in self.order)

    def tag(self, seq: int) -> Tag:
        return self.recording.tag(self.nodes[seq])

    def frames(self, seq: int | None) -> tuple[Where, ...]:
        """The forward frames of node ``seq``: its own, or those of the nearest tagged node
        above it."""
        while seq is not None:
            frames = self.tag(seq).frames
            if frames:
                return frames
            seq = self.parent.get(seq)
        return ()

    def children(self, seq: int) -> list[tuple[int, int]]:
        """``(seq, output index)`` of the nodes node ``seq`` passes gradients to."""
        return [
            (self.recording.tag(child).seq, index)
            for child, index in self.nodes[seq].next_functions
            if child is not None
        ]

    def leaf_variables(self, seq: int) -> list[Any]:
        """The leaf tensors whose gradient node ``seq`` accumulates into, directly."""
        found = []
        for child, _ in self.nodes[seq].next_functions:
            variable = getattr(child, "variable", None) if child is not None else None
            if variable is not None:
                found.append(variable)
        return found


_SAVED: dict[type, tuple[str, ...]] = {}


def saved_names(node: Any) -> tuple[str, ...]:
    """The names of a node's saved tensors (``_saved_self``, ``_saved_result``, ...)."""
    kind = type(node)
    if kind not in _SAVED:
        _SAVED[kind] = tuple(name for name in dir(node) if name.startswith("_saved_"))
    return _SAVED[kind]


def saved_errors(node: Any) -> list[tuple[str, str]]:
    """``(name, message)`` of each saved tensor of ``node`` that cannot be unpacked now."""
    found = []
    for name in saved_names(node):
        try:
            getattr(node, name)
        except RuntimeError as error:
            found.append((name, str(error)))
        except Exception:  # noqa: BLE001 - an attribute that is not a tensor
            continue
    return found


def lookup(frame: Any, dotted: str) -> Any:
    """The value of ``w`` or ``self.fc.weight`` in a live frame, or None. Only names and
    attributes are read (no call, no subscript): reading is all a diagnosis does."""
    import warnings

    first, *rest = dotted.split(".")
    scopes = (frame.f_locals, frame.f_globals, frame.f_builtins)
    value = next((scope[first] for scope in scopes if first in scope), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a non-leaf warns; the program's own did
        for name in rest:
            try:
                value = getattr(value, name)
            except Exception:  # noqa: BLE001 - a property that fails is not evidence
                return None
    return value


def grad_reads(path: str, line: int) -> list[str]:
    """The names whose ``.grad`` the statement at ``line`` reads: ``w`` in ``w -= lr * w.grad``,
    ``p`` in ``p.grad.zero_()``."""
    import ast

    from autograd_errors.diagnosis.source import dotted_name, statement_at

    statement = statement_at(path, line)
    if statement is None:
        return []
    found = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Attribute) and node.attr == "grad":
            name = dotted_name(node.value)
            if name and name not in found:
                found.append(name)
    return found
