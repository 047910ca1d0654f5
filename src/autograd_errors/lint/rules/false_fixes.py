"""AE1: the "fixes" that make an autograd error go away and leave training silently wrong."""

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
    is_false,
    is_true,
    keyword,
    method_name,
    position,
    receiver,
)


def _requires_grad_switch(node: ast.AST) -> str | None:
    """``name`` of ``name.requires_grad = True`` or ``name.requires_grad_()``."""
    target: ast.expr | None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and is_true(node.value):
        target = node.targets[0]
        if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
            return dotted(target.value)
    if isinstance(node, ast.Call) and method_name(node) == "requires_grad_":
        switched = not node.args and not node.keywords
        switched = switched or (bool(node.args) and is_true(node.args[0]))
        switched = switched or is_true(keyword(node, "requires_grad"))
        target = receiver(node)
        if switched and isinstance(target, (ast.Name, ast.Attribute)):
            return dotted(target)
    return None


@rule("AE101")
def requires_grad_on_loss(facts: Facts) -> Iterator[Hit]:
    """``loss.requires_grad = True`` (or ``requires_grad_()``) and then ``loss.backward()``:
    the loss is a leaf without a graph (else setting the flag raises), so nothing trains."""
    for scope in facts.scopes:
        for node in scope.nodes:
            name = _requires_grad_switch(node)
            if name is None:
                continue
            made = scope.binding_before(name, position(node))
            if made is not None and (
                facts.is_factory(made.value) or facts.is_parameter_call(made.value)
            ):
                continue  # a tensor made here from values: a leaf on purpose
            for call, target in scope.backwards:
                if (
                    dotted(target) == name
                    and position(call) > position(node)
                    and scope.binding_before(name, position(call)) is made
                ):
                    yield Hit(node, {"name": name})
                    break


def _this_iterations(facts: Facts, scope: Scope, target: ast.expr | None, loop: ast.AST) -> bool:
    """The differentiated tensor is computed in the loop's body: a name bound there, or an
    expression computed in place."""
    if isinstance(target, (ast.Call, ast.BinOp)):
        return True
    name = dotted(target)
    if name is None or target is None:
        return False
    binding = scope.binding_before(name, position(target))
    return binding is not None and facts.inside(binding.node, loop)


@rule("AE102")
def retain_graph_in_loop(facts: Facts) -> Iterator[Hit]:
    """``retain_graph=True`` on the last backward of a loop's iteration: nothing in the
    iteration needs the graph again, so it is kept for the next one, which only the
    carried-state mistake does (or it is memory kept for nothing)."""
    for call in facts.calls:
        if not is_true(keyword(call, "retain_graph")) or not facts.is_backward_call(call):
            continue
        create_graph = keyword(call, "create_graph")
        if create_graph is not None and not is_false(create_graph):
            continue  # higher-order gradients keep the graph on purpose
        loop = facts.innermost_loop(call)
        if loop is None:
            continue
        scope = facts.scope(call)
        later = [
            other
            for other, _ in scope.backwards
            if other is not call and facts.inside(other, loop) and position(other) > position(call)
        ]
        if later or not _this_iterations(facts, scope, facts.backward_target(call), loop):
            continue
        if not facts.carried(loop):
            continue  # nothing reaches back into this graph: memory kept a little longer only
        yield Hit(call)


def _parameter_loop(facts: Facts, scope: Scope, write: ast.AST, tensor: ast.expr) -> ast.AST | None:
    """The ``for p in model.parameters():`` statement whose ``p`` is written, if any."""
    if not isinstance(tensor, ast.Name):
        return None
    binding = scope.binding_before(tensor.id, position(write))
    if binding is None or binding.kind != "for" or not isinstance(binding.value, ast.Call):
        return None
    if method_name(binding.value) in ("parameters", "named_parameters"):
        return binding.node
    return None


def _forward_uses(
    facts: Facts, scope: Scope, tensor: ast.expr, loop: ast.AST | None
) -> list[ast.AST]:
    """Where the tensor enters a computation: its reads (not ``.data``, ``.grad``, ``.shape``)
    or, for a module's parameters, the calls of the module."""
    if loop is not None:
        assert isinstance(loop, (ast.For, ast.AsyncFor))
        model = dotted(receiver(loop.iter)) if isinstance(loop.iter, ast.Call) else None
        if model is None:
            return []
        callers = {model, f"{model}.forward", f"{model}.module"}
        return [
            node
            for node in scope.nodes
            if isinstance(node, ast.Call) and dotted(node.func) in callers
        ]
    key = dotted(tensor)
    if key is None:
        return []
    uses: list[ast.AST] = []
    for node in scope.loads.get(key, ()):
        parent = facts.parent.get(node)
        if isinstance(parent, ast.Attribute):
            continue  # x.data, x.grad, x.shape: not the tensor in a computation
        uses.append(node)
    return uses


@rule("AE103")
def data_write_before_backward(facts: Facts) -> Iterator[Hit]:
    """An in-place change through ``.data`` between the forward pass that used the tensor and
    the backward pass through it: backward differentiates with the new values."""
    for scope in facts.scopes:
        for write in scope.writes:
            if not write.through_data or facts.is_gradient(write.tensor):
                continue
            loop = _parameter_loop(facts, scope, write.node, write.tensor)
            anchor = loop if loop is not None else statement_of(facts, write.node) or write.node
            uses = _forward_uses(facts, scope, write.tensor, loop)
            before = [use for use in uses if position(use) < position(anchor)]
            if not before:
                continue
            used = max(position(use) for use in before)
            if scope.backwards_between(used, position(anchor)):
                continue  # that graph was already differentiated
            after = end_position(anchor)
            backwards = scope.backwards_between(after)
            if not backwards:
                continue
            first = min(position(call) for call in backwards)
            if any(after < position(use) < first for use in uses):
                continue  # a new forward pass: the backward is probably its own
            name = dotted(write.tensor) or "the tensor"
            yield Hit(write.node, {"name": name})


REBUILDERS = frozenset(
    {
        "torch.tensor",
        "torch.Tensor",
        "torch.FloatTensor",
        "torch.DoubleTensor",
        "torch.as_tensor",
        "torch.cuda.FloatTensor",
        "torch.autograd.Variable",
    }
)


def _holds_numbers(facts: Facts, scope: Scope, expression: ast.expr, at: ast.AST) -> bool:
    """The expression holds Python numbers taken out of tensors: ``.item()`` or ``.tolist()``,
    directly, through a name bound to such values, or a list they were appended to."""
    for node in ast.walk(expression):
        if isinstance(node, ast.Call) and method_name(node) in ("item", "tolist") and not node.args:
            return True
    if isinstance(expression, (ast.List, ast.Tuple)):
        return any(_holds_numbers(facts, scope, element, at) for element in expression.elts)
    if not isinstance(expression, ast.Name):
        return False
    binding = scope.binding_before(expression.id, position(at))
    if (
        binding is not None
        and binding.value is not None
        and binding.kind == "assign"
        and any(
            isinstance(node, ast.Call) and method_name(node) in ("item", "tolist")
            for node in ast.walk(binding.value)
        )
    ):
        return True
    for node in scope.nodes:
        if (
            isinstance(node, ast.Call)
            and method_name(node) == "append"
            and dotted(receiver(node)) == expression.id
            and node.args
            and any(
                isinstance(inner, ast.Call) and method_name(inner) == "item"
                for inner in ast.walk(node.args[0])
            )
        ):
            return True
    return False


def _differentiated_in_chain(facts: Facts, node: ast.AST) -> bool:
    """``node.backward()``, ``node.sum().backward()``: a chain of methods that ends in
    backward."""
    parent = facts.parent.get(node)
    while isinstance(parent, (ast.Attribute, ast.Call)):
        if isinstance(parent, ast.Attribute):
            if parent.value is not node:
                return False
            if parent.attr == "backward":
                return True
        elif parent.func is not node:
            return False
        node, parent = parent, facts.parent.get(parent)
    return False


@rule("AE104")
def loss_rebuilt_from_numbers(facts: Facts) -> Iterator[Hit]:
    """``torch.tensor(loss.item(), requires_grad=True)``, or such a tensor differentiated: a
    new leaf with no graph behind it."""
    for call in facts.calls:
        name = facts.call_name(call) or ""
        if name not in REBUILDERS and name.rsplit(".", 1)[-1] != "Variable":
            continue
        scope = facts.scope(call)
        if not call.args or not any(_holds_numbers(facts, scope, arg, call) for arg in call.args):
            continue
        if facts.requires_grad_true(call) or is_true(keyword(call, "requires_grad")):
            yield Hit(call)
            continue
        if _differentiated_in_chain(facts, call):
            yield Hit(call)
            continue
        statement = statement_of(facts, call)
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            loss = statement.targets[0].id
            if any(
                dotted(target) == loss and position(backward) > position(statement)
                for backward, target in scope.backwards
            ):
                yield Hit(call)
