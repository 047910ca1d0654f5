"""The instrumented run: what torch did, and where in the user's code it was asked to.

A :class:`Recorder` is a context manager. Inside it, a :class:`torch.overrides.TorchFunctionMode`
sees every call the program makes into torch (``x + y``, ``out += identity``, ``x[mask] = 0``,
``F.relu(x, inplace=True)``, ``loss.backward()``, ``tensor.grad``, ``optimizer.step()``'s own
``add_``), and records, for each, the user's frames that made it:

- ``nodes``: each result's autograd node gets a :class:`Tag` in its ``metadata`` (the node's own
  dictionary, which lives and dies with it): the forward line that built it, and when.
- ``mutations``: a call that raised a tensor argument's version counter is an in-place change,
  kept as a :class:`Mutation` with the versions before and after and the node the tensor was
  an output of just before (the node an autograd message names).
- ``backward``: each ``backward()`` / ``autograd.grad()`` call, its line, its roots, whether
  it kept the graph.
- ``assignments``: a tensor with a graph, or a module, assigned to a module's attribute or
  buffer (``self.hx = out``): ``nn.Module.__setattr__`` is wrapped for the run.
- ``provenance``: for results without a graph, where the graph was cut (:class:`Origin`:
  ``detach``, ``no_grad``, ``.item()`` then ``torch.tensor``, a non-differentiable operation,
  frozen parameters), and where ``requires_grad`` was turned off.
- ``finite``: the first forward result, and the first backward node output, that is not finite
  (a post-hook on every node of a graph about to be differentiated).

Nothing the program computes changes: every call is made with the arguments it was given, and
hooks return nothing. The mode is thread-local, as torch's modes are: calls made in other threads
are not seen. Costs are measured by ``benchmarks/diagnose_cost.py``.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from autograd_errors.diagnosis.calls import (
    maybe_in_place,
    name_of,
    nonfinite,
    outputs_of,
    tensors_of,
    user_frames,
    version_of,
)
from autograd_errors.diagnosis.records import (
    TAG_KEY,
    Assignment,
    Backward,
    Mutation,
    NonFinite,
    Origin,
    Recording,
    Tag,
    Where,
)

#: Everything a recorder can record; a probe names what it needs.
FEATURES = frozenset(("nodes", "mutations", "backward", "assignments", "provenance", "finite"))

_GETSET: Any = type(torch.Tensor.grad)  # getset_descriptor
_BACKWARDS = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)
#: Where ``retain_graph`` and ``create_graph`` sit among each backward function's arguments.
_RETAIN_AT = {
    torch.Tensor.backward: (2, 3),
    torch.autograd.backward: (2, 3),
    torch.autograd.grad: (3, 4),
}
#: Factories that build a tensor from Python values (a ``.item()`` result among them cuts).
_FROM_VALUES = frozenset(("tensor", "as_tensor", "scalar_tensor", "new_tensor", "full", "Tensor"))
_KEEP_BACKWARDS = 8  # backward calls whose root nodes are kept (older ones keep their line only)


#: The operations whose outputs hold uninitialized memory.
_UNINITIALIZED = frozenset(
    {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"}
)


class _Call:
    """What :meth:`_Mode._before` noted of a call, for :meth:`_Mode._after`."""

    __slots__ = ("args", "before", "name", "tensors", "versions")

    def __init__(
        self,
        name: str,
        args: tuple[Any, ...],
        tensors: list[torch.Tensor],
        versions: list[int],
        before: list[tuple[Any, int, Any]] | None,
    ) -> None:
        self.name = name
        self.args = args
        self.tensors = tensors
        self.versions = versions
        self.before = before


_BACKWARD_CALL = object()


class _Mode(TorchFunctionMode):
    def __init__(self, recording: Recording) -> None:
        super().__init__()
        self.recording = recording
        features = recording.features
        self.nodes = "nodes" in features or "finite" in features or "provenance" in features
        self.mutations = "mutations" in features
        self.backward = "backward" in features or "finite" in features or self.nodes
        self.provenance = "provenance" in features
        self.finite = "finite" in features

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        recording = self.recording
        if recording.broken is not None:
            return func(*args, **kwargs)
        caller = sys._getframe(1)
        # The call itself is the program's, and its errors are; a failure of the bookkeeping
        # around it must not become one: it stops the recording instead.
        try:
            call = self._before(func, args, kwargs, caller)
        except Exception as error:  # noqa: BLE001 - see __torch_function__
            recording.broken = repr(error)
            return func(*args, **kwargs)
        if call is None:
            return func(*args, **kwargs)
        if call is _BACKWARD_CALL:
            return self._backward(func, args, kwargs, caller)
        assert isinstance(call, _Call)
        result = func(*args, **kwargs)
        try:
            self._after(call, result, caller)
        except Exception as error:  # noqa: BLE001 - see __torch_function__
            recording.broken = repr(error)
        return result

    def _before(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], caller: Any
    ) -> _Call | object | None:
        self.recording.calls += 1
        descriptor: Any = getattr(func, "__self__", None)
        if type(descriptor) is _GETSET:  # tensor.grad, tensor.requires_grad = False, ...
            if self.provenance and descriptor.__name__ == "requires_grad" and len(args) == 2:
                self._requires_grad(args[0], bool(args[1]), caller)
            return None
        if self.backward and func in _BACKWARDS:
            return _BACKWARD_CALL
        name = name_of(func)
        tensors = tensors_of(args, kwargs)
        versions = [version_of(tensor) for tensor in tensors] if self.mutations else []
        before = (
            [(t.grad_fn, t.output_nr, t._base) for t in tensors]
            if self.mutations and maybe_in_place(name, kwargs)
            else None
        )
        if self.provenance and name == "requires_grad_":
            self._requires_grad(args[0], bool(args[1]) if len(args) > 1 else True, caller)
        return _Call(name, args, tensors, versions, before)

    def _after(self, call: _Call, result: Any, caller: Any) -> None:
        recording = self.recording
        name, tensors = call.name, call.tensors
        frames: tuple[Where, ...] | None = None
        if self.mutations:
            for index, tensor in enumerate(tensors):
                if version_of(tensor) != call.versions[index]:
                    if frames is None:
                        frames, entry_file = user_frames(caller)
                    self._mutation(call, index, frames, entry_file)
        outputs = outputs_of(result)
        if self.nodes and outputs:
            if frames is None:
                frames, _ = user_frames(caller)
            cuts = self._cuts(tensors) if self.provenance else ()
            for output in outputs:
                node: Any = output.grad_fn
                if node is not None:
                    metadata = node.metadata
                    if TAG_KEY not in metadata:
                        metadata[TAG_KEY] = Tag(
                            next(recording.tags), recording.epoch, name, frames, cuts
                        )
                elif self.provenance:
                    self._origin(output, name, tensors, call.args, frames)
            if self.finite and recording.forward_nonfinite is None:
                self._check_forward(name, tensors, outputs, frames)
        elif self.provenance and name == "item" and tensors:
            self._item(tensors[0], result, user_frames(caller)[0])

    # In-place changes ------------------------------------------------------------------------

    def _mutation(
        self, call: _Call, index: int, frames: tuple[Where, ...], entry_file: str
    ) -> None:
        recording = self.recording
        tensor = call.tensors[index]
        if call.before:
            node, output_nr, base = call.before[index]
        else:
            node, output_nr, base = tensor.grad_fn, tensor.output_nr, tensor._base
        version_before = call.versions[index]
        op = call.name
        base_node = base.grad_fn if base is not None else None
        node_tag = recording.tag(node) if node is not None else None
        base_tag = recording.tag(base_node) if base_node is not None else None
        recording.mutations.append(
            Mutation(
                seq=next(recording.tags),
                op=op,
                frames=frames,
                entry_file=entry_file,
                version_before=version_before,
                version_after=version_of(tensor),
                node_seq=node_tag.seq if node_tag else None,
                node_name=node.name() if node is not None else "",
                node_frames=node_tag.frames if node_tag else (),
                output_nr=output_nr,
                base_node_seq=base_tag.seq if base_tag else None,
                shape=tuple(tensor.shape),
                dtype=str(tensor.dtype),
                is_leaf=tensor.is_leaf if node is None else False,
                tensor=weakref.ref(tensor),
                base=weakref.ref(base) if base is not None else None,
            )
        )

    # Backward calls --------------------------------------------------------------------------

    def _backward(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], caller: Any
    ) -> Any:
        recording = self.recording
        try:
            record = self._backward_record(func, args, kwargs, caller)
        except Exception as error:  # noqa: BLE001 - see __torch_function__
            recording.broken = repr(error)
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        record.tensors = []
        record.finished = True
        recording.current = None
        recording.backwards.append(record)
        if len(recording.backwards) > _KEEP_BACKWARDS:
            recording.backwards[-_KEEP_BACKWARDS - 1].roots = []
        if not record.retain:
            recording.epoch += 1
        return result

    def _backward_record(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], caller: Any
    ) -> Backward:
        recording = self.recording
        first = args[0] if args else kwargs.get("tensors", kwargs.get("outputs"))
        if isinstance(first, torch.Tensor):
            tensors = [first]
        elif isinstance(first, list | tuple):
            tensors = [item for item in first if isinstance(item, torch.Tensor)]
        else:
            tensors = []
        retain_at, create_at = _RETAIN_AT[func]
        names = ("retain_graph", "create_graph")
        retain, create = (
            kwargs[name] if name in kwargs else args[at] if len(args) > at else None
            for name, at in zip(names, (retain_at, create_at), strict=True)
        )
        frames, _ = user_frames(caller)
        roots = [tensor.grad_fn for tensor in tensors]
        seqs = tuple(recording.tag(root).seq if root is not None else None for root in roots)
        record = Backward(
            index=len(recording.backwards),
            frames=frames,
            retain=bool(retain if retain is not None else create),
            epoch=recording.epoch,
            root_seqs=seqs,
            roots=roots,
            tensors=tensors,
        )
        recording.current = record
        if self.finite and recording.backward_nonfinite is None:
            self._hook_nodes(roots)
        return record

    # Non-finite values -----------------------------------------------------------------------

    def _check_forward(
        self,
        op: str,
        inputs: list[torch.Tensor],
        outputs: list[torch.Tensor],
        frames: tuple[Where, ...],
    ) -> None:
        # Only a NaN: an infinity in the forward pass is often meant (a -inf attention mask).
        # Not in uninitialized memory (``nn.Linear`` makes its weight with ``torch.empty``,
        # then fills it): its bytes are whatever was there, a NaN now and then.
        if op in _UNINITIALIZED:
            return
        for index, output in enumerate(outputs):
            if nonfinite(output) == "nan":
                finite = all(nonfinite(tensor) != "nan" for tensor in inputs)
                self.recording.forward_nonfinite = NonFinite(
                    "forward", op, index, "nan", frames, finite, self.recording.epoch
                )
                return

    def _hook_nodes(self, roots: list[Any]) -> None:
        """A post-hook on every node of the graph about to be differentiated, each knowing the
        forward frames to report: its own, or those of the nearest tagged node above it (a
        node built inside a library call)."""
        recording = self.recording
        stack: list[tuple[Any, tuple[Where, ...]]] = [(root, ()) for root in roots if root]
        seen: set[int] = set()
        while stack:
            node, inherited = stack.pop()
            tag = recording.tag(node)
            if tag.seq in seen:
                continue
            seen.add(tag.seq)
            frames = tag.frames or inherited
            if not tag.hooked and node.name() != "torch::autograd::AccumulateGrad":
                node.register_hook(self._node_hook(node.name(), frames))
                tag.hooked = True
            stack.extend((child, frames) for child, _ in node.next_functions if child is not None)

    def _node_hook(self, name: str, frames: tuple[Where, ...]) -> Any:
        recording = self.recording

        def after_node(grad_inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> None:
            if recording.backward_nonfinite is not None or recording.broken is not None:
                return
            try:
                check(grad_inputs, grad_outputs)
            except Exception as error:  # noqa: BLE001 - see __torch_function__
                recording.broken = repr(error)

        def check(grad_inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> None:
            for index, grad in enumerate(grad_inputs):
                kind = nonfinite(grad) if isinstance(grad, torch.Tensor) else None
                if kind:
                    finite = all(
                        nonfinite(g) is None for g in grad_outputs if isinstance(g, torch.Tensor)
                    )
                    recording.backward_nonfinite = NonFinite(
                        "backward", name, index, kind, frames, finite, recording.epoch
                    )
                    return

        return after_node

    # Where graphs are cut --------------------------------------------------------------------

    def _requires_grad(self, tensor: Any, value: bool, caller: Any) -> None:
        if isinstance(tensor, torch.Tensor):
            frames, _ = user_frames(caller)
            self.recording.requires_grad_changes[tensor] = (value, frames)

    def _cuts(self, inputs: list[torch.Tensor]) -> tuple[Origin, ...]:
        origins = self.recording.origins
        found = []
        for tensor in inputs:
            if tensor.grad_fn is None and not tensor.requires_grad:
                origin = origins.get(tensor)
                if origin is not None and origin not in found:
                    found.append(origin)
        return tuple(found)

    def _origin(
        self,
        output: torch.Tensor,
        op: str,
        inputs: list[torch.Tensor],
        args: tuple[Any, ...],
        frames: tuple[Where, ...],
    ) -> None:
        recording = self.recording
        if output.requires_grad:  # a leaf made by requires_grad_() or a factory: no cut
            return
        needing = [tensor for tensor in inputs if tensor.requires_grad]
        origin: Origin | None = None
        if needing:
            node = needing[0].grad_fn
            if op in ("detach", "detach_"):
                origin = Origin(op, frames, "detach", node)
            elif torch.is_inference_mode_enabled():
                origin = Origin(op, frames, "inference-mode", node)
            elif not torch.is_grad_enabled():
                origin = Origin(op, frames, "no-grad", node)
            else:
                origin = Origin(op, frames, "non-differentiable", node)
        else:
            inherited = [recording.origins.get(tensor) for tensor in inputs]
            origin = next((found for found in inherited if found is not None), None)
            if origin is None and op in _FROM_VALUES:
                item = self._item_among(args)
                if item is not None:
                    origin = Origin(op, frames, "item", None, item)
            if origin is None:
                frozen = [
                    recording.requires_grad_changes.get(tensor)
                    for tensor in inputs
                    if isinstance(tensor, torch.nn.Parameter)
                ]
                change = next((c for c in frozen if c is not None and not c[0]), None)
                if change is not None:
                    origin = Origin(op, frames, "frozen", None, change[1])
        if origin is not None:
            recording.origins[output] = origin

    def _item(self, tensor: torch.Tensor, value: object, frames: tuple[Where, ...]) -> None:
        if tensor.requires_grad:
            items = self.recording.items
            items[id(value)] = (value, frames)  # the value is kept: its id stays its own
            while len(items) > 256:
                items.popitem(last=False)

    def _item_among(self, args: tuple[Any, ...]) -> tuple[Where, ...] | None:
        items = self.recording.items
        values = list(args)
        while values:
            value = values.pop()
            if isinstance(value, list | tuple):
                values.extend(value)
            elif id(value) in items and items[id(value)][0] is value:
                return items[id(value)][1]
        return None


class Recorder:
    """Records what the code run inside it does (see the module's docstring):

    >>> with Recorder({"nodes", "mutations"}) as recording:  # doctest: +SKIP
    ...     run_the_program()
    """

    def __init__(self, features: frozenset[str] | set[str] | tuple[str, ...]) -> None:
        unknown = set(features) - FEATURES
        if unknown:
            raise ValueError(f"unknown features: {sorted(unknown)}")
        self.recording = Recording(frozenset(features))
        self._mode = _Mode(self.recording)
        self._setattr: Any = None

    def __enter__(self) -> Recording:
        if "assignments" in self.recording.features:
            self._wrap_setattr()
        self._mode.__enter__()  # type: ignore[no-untyped-call]
        return self.recording

    def __exit__(self, *exc_info: object) -> None:
        self._mode.__exit__(*exc_info)  # type: ignore[no-untyped-call]
        if self._setattr is not None:
            torch.nn.Module.__setattr__ = self._setattr  # type: ignore[method-assign]
            self._setattr = None

    def _wrap_setattr(self) -> None:
        recording = self.recording
        original = self._setattr = torch.nn.Module.__setattr__

        def note(module: torch.nn.Module, name: str, value: Any, caller: Any) -> None:
            node = value.grad_fn if isinstance(value, torch.Tensor) else None
            if node is None and not isinstance(value, torch.nn.Module):
                return
            frames, _ = user_frames(caller)
            if node is not None:
                kind = "buffer" if name in module.__dict__.get("_buffers", {}) else "attribute"
            else:
                kind = "module"
            seq = recording.tag(node).seq if node is not None else None
            recording.assignments.append(Assignment(type(module).__name__, name, kind, frames, seq))

        def __setattr__(module: torch.nn.Module, name: str, value: Any) -> None:
            if recording.broken is None:
                try:
                    note(module, name, value, sys._getframe(1))
                except Exception as error:  # noqa: BLE001 - see _Mode.__torch_function__
                    recording.broken = repr(error)
            original(module, name, value)

        torch.nn.Module.__setattr__ = __setattr__  # type: ignore[method-assign, assignment]
