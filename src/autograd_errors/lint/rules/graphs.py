"""AE3: what a graph holds and how long it lives: a backward with no graph, graphs kept alive
across iterations, a leaf turned into a copy."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from autograd_errors.lint.declare import Hit, rule
from autograd_errors.lint.facts import (
    OFF,
    Facts,
    Scope,
    statement_of,
)
from autograd_errors.lint.syntax import (
    Position,
    dotted,
    end_position,
    is_true,
    method_name,
    position,
    receiver,
    short,
)


def _made_without_graph(facts: Facts, scope: Scope, target: ast.expr, at: ast.AST) -> bool:
    """The name was last bound with grad mode off, to something that is not a new leaf."""
    name = dotted(target)
    if name is None:
        return False
    binding = scope.binding_before(name, position(at))
    if binding is None or binding.kind != "assign" or binding.value is None:
        return False
    if not facts.is_computed(binding.value):
        return False  # a leaf made there, a tensor read (``p.grad``), a list of them
    if facts.requires_grad_changes(scope, name, binding.position, position(at)):
        return False  # made to require grad since (AE101's false fix, if it is a loss)
    return facts.grad_mode(binding.node) == OFF


@rule("AE301")
def backward_without_graph(facts: Facts) -> Iterator[Hit]:
    """``backward()`` of a tensor computed under ``torch.no_grad()`` (or inference mode, or
    ``set_grad_enabled(False)``), inside that block or after it."""
    for scope in facts.scopes:
        for call, target in scope.backwards:
            if target is None:
                continue
            inline = isinstance(target, (ast.Call, ast.BinOp))
            if (facts.grad_mode(call) == OFF and inline) or (
                not inline and _made_without_graph(facts, scope, target, call)
            ):
                yield Hit(call, {"name": short(target)})


@dataclass(frozen=True)
class Accumulation:
    """``total += value``, ``total = total + value`` or ``total.append(value)`` in a loop."""

    node: ast.stmt
    total: str
    value: ast.expr
    loop: ast.For | ast.AsyncFor | ast.While


def _accumulations(facts: Facts, scope: Scope) -> list[Accumulation]:
    """The scope's accumulations, found once for AE302 and AE303."""
    memo = facts.memo.setdefault("accumulations", {})
    if id(scope) not in memo:
        memo[id(scope)] = list(_find_accumulations(facts, scope))
    found: list[Accumulation] = memo[id(scope)]
    return found


def _find_accumulations(facts: Facts, scope: Scope) -> Iterator[Accumulation]:
    for node in scope.nodes:
        total: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            total, value = node.target, node.value
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.value, ast.BinOp)
            and isinstance(node.value.op, ast.Add)
            and ast.unparse(node.value.left) == ast.unparse(node.targets[0])
        ):
            total, value = node.targets[0], node.value.right
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and method_name(node.value) == "append"
            and len(node.value.args) == 1
        ):
            total, value = receiver(node.value), node.value.args[0]
        if total is None or value is None or not isinstance(node, ast.stmt):
            continue
        loop = facts.innermost_loop(node)
        if loop is None:
            continue
        yield Accumulation(node, ast.unparse(total), value, loop)


def _graph_names(value: ast.expr) -> list[str]:
    """The names whose tensors the value keeps, graph included: ``loss`` in ``loss``,
    ``loss * n``; not in ``loss.item()``, ``float(loss)`` or ``loss.detach()``."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.BinOp):
        return _graph_names(value.left) + _graph_names(value.right)
    return []


def _reset_in_loop(facts: Facts, scope: Scope, item: Accumulation) -> bool:
    """The total is assigned afresh inside the loop: it lives one iteration only."""
    for binding in scope.bindings.get(item.total, ()):
        if binding.node is not item.node and facts.inside(binding.node, item.loop):
            return True
    return False


def _differentiated_in(facts: Facts, scope: Scope, loop: ast.AST) -> set[str]:
    return {
        ast.unparse(target)
        for call, target in scope.backwards
        if target is not None and facts.inside(call, loop)
    }


@rule("AE302")
def total_keeps_graphs(facts: Facts) -> Iterator[Hit]:
    """``total_loss += loss`` (or ``losses.append(loss)``) where ``loss`` is differentiated in
    the same loop: the total holds every iteration's graph."""
    for scope in facts.scopes:
        for item in _accumulations(facts, scope):
            differentiated = _differentiated_in(facts, scope, item.loop)
            if item.total in differentiated or _reset_in_loop(facts, scope, item):
                continue
            losses = [name for name in _graph_names(item.value) if name in differentiated]
            if losses and facts.grad_enabled(item.node):
                yield Hit(item.node, {"total": item.total, "loss": losses[0]})


@rule("AE303")
def backward_of_a_total(facts: Facts) -> Iterator[Hit]:
    """``total = total + loss`` then ``total.backward()`` in every iteration: the second
    backward goes through the first iteration's graph, already freed."""
    for scope in facts.scopes:
        for item in _accumulations(facts, scope):
            if isinstance(item.value, ast.Constant) or _reset_in_loop(facts, scope, item):
                continue
            started = [
                binding
                for binding in scope.bindings.get(item.total, ())
                if binding.position < position(item.loop)
            ]
            if not started:
                continue
            for call, target in scope.backwards:
                if (
                    target is not None
                    and ast.unparse(target) == item.total
                    and facts.inside(call, item.loop)
                    and position(call) > position(item.node)
                    and not is_true(_keyword(call, "retain_graph"))
                ):
                    yield Hit(item.node, {"total": item.total})
                    break


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((item.value for item in call.keywords if item.arg == name), None)


#: Calls whose result carries no graph from their arguments.
STOPS = frozenset(
    {
        "detach",
        "item",
        "tolist",
        "numpy",
        "size",
        "dim",
        "numel",
        "len",
        "int",
        "float",
        "bool",
        "data_ptr",
        "zeros_like",
        "ones_like",
        "empty_like",
    }
)


@dataclass(frozen=True)
class Reach:
    """What an expression computed in a method is made of: the attribute it stores into
    (``state``), anything else with a graph (``other``), through an operation (``operation``)."""

    state: bool = False
    other: bool = False
    operation: bool = False

    def __or__(self, other: Reach) -> Reach:
        return Reach(
            self.state or other.state,
            self.other or other.other,
            self.operation or other.operation,
        )


def _reach(
    facts: Facts,
    scope: Scope,
    node: ast.AST,
    attribute: str,
    at: Position,
    parameters: frozenset[str],
    depth: int = 0,
) -> Reach:
    """What ``node`` is computed from, following the method's local names."""
    if depth > 8:
        return Reach()
    own = f"self.{attribute}"

    def reach(inner: ast.AST, anchor: Position = at) -> Reach:
        return _reach(facts, scope, inner, attribute, anchor, parameters, depth + 1)

    if isinstance(node, ast.Attribute):
        name = dotted(node)
        if name == own:
            return Reach(state=True)
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return Reach(other=node.attr in parameters)
        return Reach()
    if isinstance(node, ast.Name):
        binding = scope.binding_before(node.id, at)
        if binding is None:
            return Reach()
        if binding.kind == "arg":
            return Reach(other=node.id != "self")
        if binding.value is not None and binding.kind == "assign":
            return reach(binding.value, binding.position)
        return Reach()
    if isinstance(node, ast.Call):
        name = (dotted(node.func) or "").rsplit(".", 1)[-1]
        if name in STOPS or method_name(node) in STOPS:
            return Reach()
        parts: list[ast.AST] = [*node.args, *(item.value for item in node.keywords)]
        callee = facts.call_name(node) or ""
        submodule = (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
        )
        if isinstance(node.func, ast.Attribute) and not submodule:
            parts.append(node.func.value)  # a method of a tensor: h.mm(w)
        found = Reach()
        for part in parts:
            found = found | reach(part)
        operation = callee.startswith("torch.") or submodule or method_name(node) is not None
        return Reach(found.state, found.other or submodule, found.operation or operation)
    if isinstance(node, ast.BinOp):
        found = reach(node.left) | reach(node.right)
        return found | Reach(operation=isinstance(node.op, ast.MatMult))
    if isinstance(node, ast.UnaryOp):
        return reach(node.operand)
    if isinstance(node, ast.Subscript):
        return reach(node.value)
    if isinstance(node, (ast.Tuple, ast.List)):
        found = Reach()
        for element in node.elts:
            found = found | reach(element)
        return found
    if isinstance(node, ast.IfExp):
        return reach(node.body) | reach(node.orelse)
    return Reach()


def _managed_elsewhere(facts: Facts, attribute: str) -> bool:
    """The attribute is also set outside ``__init__`` and the modules' forward methods (a
    reset method, the training loop), or detached in place: its lifetime is managed."""
    for node in facts.assigns:
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == attribute:
                function = facts.function_of(node)
                if function is None or function.name not in ("__init__", *FORWARD):
                    return True
    return any(
        method_name(call) == "detach_"
        and isinstance(owner := receiver(call), ast.Attribute)
        and owner.attr == attribute
        for call in facts.calls
    )


def _parameters_of(facts: Facts, cls: ast.ClassDef) -> set[str]:
    """``A`` of ``self.A = nn.Parameter(...)`` or ``self.A = nn.Linear(...)`` in the class."""
    names = set()
    for node in facts.walk(cls):
        if isinstance(node, ast.Assign) and (
            facts.is_parameter_call(node.value) or facts.is_module_constructor(node.value)
        ):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                    names.add(target.attr)
    return names


def _is_module(facts: Facts, cls: ast.ClassDef) -> bool:
    return any((facts.canonical(base) or "").startswith("torch.nn.") for base in cls.bases) or any(
        (dotted(base) or "").endswith("Module") for base in cls.bases
    )


@rule("AE304")
def state_carried_with_graph(facts: Facts) -> Iterator[Hit]:
    """``self.h = f(self.h, x)`` in a module's method, not detached and not reset anywhere:
    the next call's graph reaches back into this one's."""
    for cls in facts.classes:
        if not _is_module(facts, cls):
            continue
        parameters = frozenset(_parameters_of(facts, cls))
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if method.name not in FORWARD:
                continue  # where a step's computation runs, once per step
            scope = facts.scope(method)
            for node in scope.nodes:
                if not (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(target := node.targets[0], ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    continue
                attribute = target.attr
                if facts.is_parameter_call(node.value) or facts.is_module_constructor(node.value):
                    continue
                earlier = [
                    b
                    for b in scope.bindings.get(f"self.{attribute}", ())
                    if b.position < position(node)
                ]
                if earlier:
                    continue  # set afresh earlier in the same call
                found = _reach(facts, scope, node.value, attribute, position(node), parameters)
                if not (found.state and found.other and found.operation):
                    continue
                if not facts.grad_enabled(node) or _managed_elsewhere(facts, attribute):
                    continue
                yield Hit(node, {"attr": attribute})


FORWARD = ("forward", "__call__")
MOVE_METHODS = frozenset({"to", "cuda", "cpu", "double", "float", "half", "bfloat16", "type"})


def _new_leaf(facts: Facts, node: ast.AST) -> bool:
    return facts.requires_grad_true(node) or facts.is_parameter_call(node)


def _leaf_copies(facts: Facts) -> Iterator[tuple[ast.expr, ast.expr]]:
    """``(expression, leaf)``: ``torch.randn(3, requires_grad=True).cuda()``,
    ``torch.zeros(3, requires_grad=True) * 0.01``, ``nn.Parameter(w).to(device)``."""
    for call in facts.calls:
        inner = receiver(call)
        if method_name(call) in MOVE_METHODS and inner is not None and _new_leaf(facts, inner):
            yield call, inner
    for scope in facts.scopes:
        for node in scope.nodes:
            if isinstance(node, ast.BinOp) and not isinstance(facts.parent.get(node), ast.BinOp):
                for side in (node.left, node.right):
                    if _new_leaf(facts, side):
                        yield node, side


@rule("AE305")
def leaf_copied_after_requires_grad(facts: Facts) -> Iterator[Hit]:
    """A tensor made with ``requires_grad=True`` (or an ``nn.Parameter``) then moved, cast or
    scaled, and used as if it were the leaf: its ``.grad`` read, given to an optimizer, stored
    on ``self``."""
    for expression, _ in _leaf_copies(facts):
        statement = statement_of(facts, expression)
        parent = facts.parent.get(expression)
        if isinstance(parent, (ast.List, ast.Tuple)) and any(
            facts.is_optimizer_constructor(a) and facts.inside(parent, a)
            for a in facts.ancestors(parent)
        ):
            yield Hit(expression, {"expr": short(expression)})
            continue
        if not (isinstance(statement, ast.Assign) and statement.value is expression):
            continue
        for target in statement.targets:
            name = dotted(target)
            if name is None:
                continue
            scope = facts.scope(statement)
            after = end_position(statement)
            limit = scope.rebound(name, after)
            grads = [
                load for load in scope.loads_of(f"{name}.grad", after) if position(load) < limit
            ]
            as_leaf = bool(grads) or name.startswith("self.")
            as_leaf = as_leaf or any(
                facts.is_optimizer_constructor(call)
                and after < position(call) < limit
                and any(dotted(node) == name for node in ast.walk(call))
                for call in facts.calls
            )
            if as_leaf:
                yield Hit(expression, {"expr": short(expression)})
                break
