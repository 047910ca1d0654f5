"""AE2: in-place changes autograd refuses or does not see, and aliases taken for copies."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from autograd_errors.lint.declare import Hit, rule
from autograd_errors.lint.facts import (
    Facts,
    Scope,
    statement_of,
)
from autograd_errors.lint.syntax import (
    dotted,
    end_position,
    method_name,
    position,
    receiver,
    root_name,
)

#: In-place methods whose refusal is another error than the leaf's (resize-requires-grad).
NOT_LEAF_ERRORS = frozenset({"resize_", "resize_as_"})

#: Attributes read from a tensor without using its values in a computation.
METADATA = frozenset({"data", "grad", "shape", "dtype", "device", "requires_grad", "is_leaf"})


def _made_requiring_grad(facts: Facts, scope: Scope, name: str, at: ast.AST) -> bool:
    """``name`` was last bound to ``torch.…(..., requires_grad=True)`` or ``nn.Parameter(…)``."""
    binding = scope.binding_before(name, position(at))
    return (
        binding is not None
        and binding.kind == "assign"
        and (facts.requires_grad_true(binding.value) or facts.is_parameter_call(binding.value))
    )


@rule("AE201")
def leaf_updated_in_place(facts: Facts) -> Iterator[Hit]:
    """``w -= lr * w.grad`` (or ``w.add_(...)``, ``w[0] = ...``) with grad mode on, on a tensor
    that is a leaf requiring grad: its own ``.grad`` is read, or it was made so in this scope."""
    for scope in facts.scopes:
        for write in scope.writes:
            if write.through_data:
                continue
            key = dotted(write.tensor)
            if key is None or key.endswith((".grad", ".data")) or ".grad" in key.split("."):
                continue
            gradient = f"{key}.grad"
            grad_step = any(
                isinstance(node, ast.Attribute) and dotted(node) == gradient
                for value in write.values
                for node in ast.walk(value)
            )
            leaf = isinstance(write.tensor, ast.Name) and _made_requiring_grad(
                facts, scope, key, write.node
            )
            if not (grad_step or leaf) or not facts.grad_enabled(write.node):
                continue
            if isinstance(write.node, ast.Call) and method_name(write.node) in NOT_LEAF_ERRORS:
                continue
            made = scope.binding_before(key, position(write.node))
            since = made.position if made is not None else (0, 0)
            changes = facts.requires_grad_changes(scope, key, since, position(write.node))
            if changes and not changes[-1]:
                continue  # no longer requires grad: the in-place change is allowed
            yield Hit(write.node, {"name": key})


@rule("AE202")
def data_of_a_result(facts: Facts) -> Iterator[Hit]:
    """``out = net(x); out.data = other`` (or ``out.data.clamp_(...)``), ``out`` then used and
    differentiated: backward differentiates the values the operation computed, not these."""
    for scope in facts.scopes:
        candidates: list[tuple[ast.AST, str]] = []
        for node in scope.nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "data"
                    and isinstance(target.value, ast.Name)
                ):
                    candidates.append((node, target.value.id))
        candidates += [
            (write.node, write.tensor.id)
            for write in scope.writes
            if write.through_data and isinstance(write.tensor, ast.Name)
        ]
        for node, name in candidates:
            made = scope.binding_before(name, position(node))
            if made is None or made.kind != "assign" or not facts.is_computed(made.value):
                continue
            if not facts.grad_enabled(made.node):
                continue  # computed without a graph
            statement = statement_of(facts, node) or node
            after = end_position(statement)
            rebound = [b.position for b in scope.bindings.get(name, ()) if b.position > after]
            limit = min(rebound, default=(1 << 60, 0))
            used = [
                load
                for load in scope.loads_of(name, after)
                if position(load) < limit
                and not (
                    isinstance(parent := facts.parent.get(load), ast.Attribute)
                    and parent.attr in METADATA
                )
            ]
            if used and scope.backwards_between(after):
                yield Hit(node, {"name": name})


def _alias(value: ast.expr) -> ast.expr | None:
    """``x`` of ``x.detach()`` or ``x.data``."""
    if isinstance(value, ast.Attribute) and value.attr == "data":
        return value.value
    if (
        isinstance(value, ast.Call)
        and method_name(value) == "detach"
        and not value.args
        and not value.keywords
    ):
        return receiver(value)
    return None


def _changes_a_tensor(write: ast.AST) -> bool:
    """An in-place change that only a tensor takes: ``.data`` is also a dict's or a list's
    (``UserDict``, ``WeakKeyDictionary``), whose items are assigned (``d[k] = v``) and which
    grow with ``+=`` a list or ``|=`` a dict."""
    if isinstance(write, ast.Call):
        return True  # add_, zero_, clamp_: tensor methods
    if isinstance(write, ast.AugAssign):
        containers = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp)
        text = isinstance(write.value, ast.Constant) and isinstance(write.value.value, str)
        return not isinstance(write.value, containers) and not text
    return False


@rule("AE203")
def alias_taken_for_a_copy(facts: Facts) -> Iterator[Hit]:
    """``z = x.detach()`` (or ``x.data``), then one of the two changed in place and the other
    read: they are the same memory."""
    for scope in facts.scopes:
        for node in scope.nodes:
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                continue
            copy = node.targets[0].id
            origin = _alias(node.value)
            source = dotted(origin)
            if origin is None or source is None or root_name(origin) == copy:
                continue
            after = end_position(node)
            rebound = [b.position for b in scope.bindings.get(copy, ()) if b.position > after]
            limit = min(rebound, default=(1 << 60, 0))
            through_data = isinstance(node.value, ast.Attribute)
            for write in scope.writes:
                written = dotted(write.tensor)
                if not after < position(write.node) < limit or written not in (copy, source):
                    continue
                if through_data and not _changes_a_tensor(write.node):
                    continue
                other = source if written == copy else copy
                end = end_position(statement_of(facts, write.node) or write.node)
                reads = [
                    load
                    for load in scope.loads_of(other, end)
                    if (other == source or position(load) < limit)
                    and not (
                        isinstance(parent := facts.parent.get(load), ast.Attribute)
                        and parent.attr in METADATA
                    )
                ]
                if reads:
                    yield Hit(node, {"name": copy, "source": source})
                    break


def _trains(facts: Facts, scope: Scope, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Between ``start`` and ``end``: a backward pass, an optimizer step, or a call whose name
    says it trains (``train_one_epoch(...)``, ``trainer.fit(...)``)."""
    if scope.backwards_between(start, end):
        return True
    for node in scope.nodes:
        if not isinstance(node, ast.Call) or not start < position(node) < end:
            continue
        if facts.is_step_call(node):
            return True
        name = (dotted(node.func) or "").rsplit(".", 1)[-1].lower()
        if "train" in name or name == "fit":
            return True
    return False


def _kept(
    facts: Facts, scope: Scope, snapshot: str, model: str, after: tuple[int, int]
) -> list[ast.expr]:
    """Where the snapshot is used as the model's weights: loaded back into the same model
    (``model.load_state_dict(best)``), saved (``torch.save(best, path)``) or returned. Loaded
    into another module, it is a copy made at once, as intended."""
    used = []
    for load in scope.loads_of(snapshot, after):
        parent = facts.parent.get(load)
        if isinstance(parent, ast.Return):
            used.append(load)
        elif isinstance(parent, ast.Call) and load in parent.args:
            name = (dotted(parent.func) or "").rsplit(".", 1)[-1]
            if name == "save" or (name == "load_state_dict" and dotted(receiver(parent)) == model):
                used.append(load)
    return used


@rule("AE204")
def state_dict_snapshot(facts: Facts) -> Iterator[Hit]:
    """``best = model.state_dict()`` taken in a training loop and read after it, or taken and
    then loaded, saved or returned after training: the state dict holds the parameters
    themselves, which the later steps change."""
    for scope in facts.scopes:
        for node in scope.nodes:
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.value, ast.Call)
                and method_name(node.value) == "state_dict"
                and not node.value.args
            ):
                continue
            snapshot = dotted(node.targets[0])
            model = dotted(receiver(node.value))
            if snapshot is None or model is None or facts.is_optimizer(model):
                continue
            if "sched" in model.lower():
                continue  # a scheduler's state dict holds numbers
            loop = facts.innermost_loop(node)
            if loop is not None:
                start, end = position(loop), end_position(loop)
            else:
                start, end = end_position(node), (1 << 60, 0)
            if loop is not None:
                # Taken inside a training loop and read after it: the loop went on training.
                kept = scope.reads_of_this_value(snapshot, end)
            else:
                kept = _kept(facts, scope, snapshot, model, start)
                end = position(kept[-1]) if kept else end
            if kept and _trains(facts, scope, start, end):
                yield Hit(node, {"name": snapshot, "model": model})
