"""What a :class:`~.recorder.Recorder` keeps: a :class:`Tag` on each autograd node, and the
records of in-place changes, backward calls, assignments, cuts of the graph and non-finite
values, gathered in a :class:`Recording` that the probes read after the failure.

Torch is imported for its weak dictionary keyed by tensor identity only; nothing here calls it.
"""

from __future__ import annotations

import collections
import itertools
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from torch.utils.weak import WeakIdKeyDictionary

if TYPE_CHECKING:
    import torch

#: The key of a node's ``metadata`` that holds its :class:`Tag`.
TAG_KEY = "autograd_errors"

#: A frame of the user's code: file, line, function.
Where = tuple[str, int, str]


@dataclass(eq=False)
class Origin:
    """Why a tensor without a graph has none: the call that cut it, or that it inherits."""

    op: str
    frames: tuple[Where, ...]
    reason: str  # detach, no-grad, inference-mode, non-differentiable, item, frozen
    input_node: Any = None  # the node the cut tensor came from, when it had one
    item_frames: tuple[Where, ...] = ()  # reason "item": where .item() was called


@dataclass(eq=False)
class Tag:
    """What is known of an autograd node: where and when the forward pass built it."""

    seq: int  # the order in which nodes were tagged
    epoch: int  # how many graph-freeing backward calls had finished when it was built
    op: str
    frames: tuple[Where, ...]  # () for a node built inside a library call
    cuts: tuple[Origin, ...] = ()  # inputs of its operation that had no graph, and why
    hooked: bool = False  # has the post-hook of the ``finite`` feature


@dataclass(eq=False)
class Mutation:
    """A call that changed a tensor in place."""

    seq: int
    op: str
    frames: tuple[Where, ...]
    entry_file: str  # the library file the user's frame called into ("" for a direct call)
    version_before: int
    version_after: int
    node_seq: int | None  # the Tag of the node the tensor was an output of, before the call
    node_name: str
    node_frames: tuple[Where, ...]  # where that node was built
    output_nr: int
    base_node_seq: int | None  # the same, for the base of a view
    shape: tuple[int, ...]
    dtype: str
    is_leaf: bool
    tensor: weakref.ref[torch.Tensor]
    base: weakref.ref[torch.Tensor] | None


@dataclass(eq=False)
class Backward:
    """A ``backward()`` or ``autograd.grad()`` call."""

    index: int
    frames: tuple[Where, ...]
    retain: bool
    epoch: int
    root_seqs: tuple[int | None, ...]
    roots: list[Any]  # the root nodes (None for a root without one); dropped when old
    tensors: list[torch.Tensor] = field(default_factory=list)  # only while it runs
    finished: bool = False


@dataclass(eq=False)
class Assignment:
    """A tensor with a graph, or a module, assigned to a module's attribute."""

    owner: str  # the class of the module assigned to
    name: str
    kind: str  # buffer, parameter, attribute, module
    frames: tuple[Where, ...]
    node_seq: int | None


@dataclass(eq=False)
class NonFinite:
    """The first value that was not finite, in the forward pass or in a backward node."""

    phase: str  # forward, backward
    op: str  # the forward call, or the backward node's name
    index: int  # the node's output, or the call's
    kind: str  # inf, nan
    frames: tuple[Where, ...]
    inputs_finite: bool
    epoch: int  # the recording's epoch when it was seen


class Recording:
    """What a :class:`Recorder` saw. Read by the probes after the failure."""

    def __init__(self, features: frozenset[str]) -> None:
        self.features = features
        self.tags = itertools.count(1)
        self.epoch = 0
        self.mutations: collections.deque[Mutation] = collections.deque(maxlen=200_000)
        self.backwards: list[Backward] = []
        self.current: Backward | None = None
        self.assignments: collections.deque[Assignment] = collections.deque(maxlen=50_000)
        # torch's WeakIdKeyDictionary has no type annotations: tensor -> Origin, and
        # tensor -> (requires_grad, frames) of its last change.
        self.origins: Any = WeakIdKeyDictionary()
        self.requires_grad_changes: Any = WeakIdKeyDictionary()
        self.items: collections.OrderedDict[int, tuple[object, tuple[Where, ...]]] = (
            collections.OrderedDict()
        )
        self.forward_nonfinite: NonFinite | None = None
        self.backward_nonfinite: NonFinite | None = None
        self.calls = 0
        self.broken: str | None = None  # the recorder's own failure, which stopped it

    # Reading nodes ---------------------------------------------------------------------------

    def tag(self, node: Any, epoch: int | None = None) -> Tag:
        """The node's tag, made now (without a line) if the forward pass did not make one:
        a node built inside a library call. ``epoch``: when it was built, if known (that of
        the node above it, which the same call built)."""
        metadata = node.metadata
        tag = metadata.get(TAG_KEY)
        if tag is None:
            when = self.epoch if epoch is None else epoch
            tag = metadata[TAG_KEY] = Tag(next(self.tags), when, node.name(), ())
        assert isinstance(tag, Tag)
        return tag

    @staticmethod
    def tag_of(node: Any) -> Tag | None:
        if node is None:
            return None
        try:
            tag = node.metadata.get(TAG_KEY)
        except (AttributeError, RuntimeError):
            return None
        return tag if isinstance(tag, Tag) else None
