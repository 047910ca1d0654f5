"""AE5: the training loop: gradients never cleared, cleared at the wrong moment, anomaly mode
left on for the whole run."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from autograd_errors.lint.declare import Hit, rule
from autograd_errors.lint.facts import (
    Facts,
)
from autograd_errors.lint.syntax import (
    dotted,
    is_true,
    keyword,
    method_name,
    position,
    receiver,
)

_CLEARS = re.compile(r"(?i)(zero|clear|reset)_?grads?|_foreach_zero_")
_GRAD_METHODS = frozenset({"zero_", "fill_", "detach_", "mul_", "copy_", "requires_grad_"})


def _clears_gradients(facts: Facts, node: ast.AST) -> bool:
    """``zero_grad()`` by any name, ``p.grad = None``, ``p.grad.zero_()``, ``del p.grad``."""
    for inner in facts.walk(node):
        if isinstance(inner, ast.Call):
            name = (dotted(inner.func) or method_name(inner) or "").rsplit(".", 1)[-1]
            if _CLEARS.search(name) or keyword(inner, "set_to_none") is not None:
                return True
            owner = dotted(receiver(inner)) or ""
            if method_name(inner) in _GRAD_METHODS and owner.endswith((".grad", ".grad.data")):
                return True
        elif isinstance(inner, (ast.Assign, ast.AnnAssign, ast.Delete)):
            targets = (
                inner.targets if isinstance(inner, (ast.Assign, ast.Delete)) else [inner.target]
            )
            if any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in targets):
                return True
    return False


def _optimizer_of(step: ast.Call) -> str:
    """``optimizer`` of ``optimizer.step()`` and of ``scaler.step(optimizer)``."""
    if step.args and (name := dotted(step.args[0])) is not None:
        return name
    return dotted(receiver(step)) or "optimizer"


@rule("AE501")
def loop_without_zero_grad(facts: Facts) -> Iterator[Hit]:
    """The innermost loop that calls both ``backward()`` and ``optimizer.step()`` clears no
    gradient anywhere in its body: each step uses the sum of all the gradients so far."""
    trains: dict[ast.AST, ast.Call] = {}
    steps = [call for call in facts.calls if facts.is_step_call(call)]
    if not steps:
        return
    for loop in facts.loops:
        scope = facts.scope(loop)
        backwards = [
            call
            for call, _ in scope.backwards
            if facts.inside(call, loop)
            # Distributed autograd accumulates into a context of its own, new each iteration.
            and not (facts.call_name(call) or "").startswith("torch.distributed.autograd.")
        ]
        if not backwards:
            continue
        stepped = [
            call for call in steps if facts.scope(call) is scope and facts.inside(call, loop)
        ]
        if stepped:
            trains[loop] = min(stepped, key=position)
    for trained, step in trains.items():
        inner = [other for other in trains if other is not trained and facts.inside(other, trained)]
        if inner or _clears_gradients(facts, trained):
            continue
        yield Hit(step, {"optimizer": _optimizer_of(step)})


@rule("AE502")
def zero_grad_before_step(facts: Facts) -> Iterator[Hit]:
    """``loss.backward(); optimizer.zero_grad(); optimizer.step()``: the gradients are
    cleared before the step could use them."""
    for block in facts.blocks:
        for index, statement in enumerate(block):
            if not (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and method_name(statement.value) == "zero_grad"
            ):
                continue
            optimizer = dotted(receiver(statement.value))
            if optimizer is None:
                continue

            def steps(node: ast.AST, name: str = optimizer) -> bool:
                return any(
                    isinstance(call, ast.Call)
                    and method_name(call) == "step"
                    and dotted(receiver(call)) == name
                    for call in facts.walk(node)
                )

            def differentiates(node: ast.AST) -> bool:
                return any(
                    isinstance(call, ast.Call) and facts.is_backward_call(call)
                    for call in facts.walk(node)
                )

            before = False
            for earlier in reversed(block[:index]):
                if steps(earlier):
                    break
                if differentiates(earlier):
                    before = True
                    break
            if not before:
                continue
            for later in block[index + 1 :]:
                if differentiates(later):
                    break
                if steps(later):
                    yield Hit(statement.value, {"optimizer": optimizer})
                    break


def _guarded(facts: Facts, node: ast.AST) -> bool:
    """Inside an ``if`` (a debugging switch), other than ``if __name__ == "__main__":``."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, ast.If):
            test = ancestor.test
            main = (
                isinstance(test, ast.Compare)
                and dotted(test.left) == "__name__"
                and any(
                    isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators
                )
            )
            if not main:
                return True
    return False


def _training_loop_in(facts: Facts, node: ast.AST) -> bool:
    return any(
        isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
        and any(isinstance(c, ast.Call) and facts.is_backward_call(c) for c in facts.walk(loop))
        and any(isinstance(c, ast.Call) and facts.is_step_call(c) for c in facts.walk(loop))
        for loop in facts.walk(node)
    )


@rule("AE503")
def anomaly_mode_left_on(facts: Facts) -> Iterator[Hit]:
    """``torch.autograd.set_detect_anomaly(True)`` never switched off in a script that trains,
    or ``with torch.autograd.detect_anomaly():`` around a whole training loop."""
    switches = [
        call
        for call in facts.calls
        if (facts.call_name(call) or "").rsplit(".", 1)[-1] == "set_detect_anomaly"
    ]
    trains = any(facts.is_backward_call(call) for call in facts.calls)
    for call in switches:
        mode = call.args[0] if call.args else keyword(call, "mode")
        if not is_true(mode) or not isinstance(facts.parent.get(call), ast.Expr):
            continue
        switched_off = any(
            position(other) > position(call)
            and not is_true(other.args[0] if other.args else keyword(other, "mode"))
            for other in switches
        )
        if trains and not switched_off and not _guarded(facts, call):
            yield Hit(call)
    for node in facts.withs:
        for item in node.items:
            expression = item.context_expr
            name = (
                facts.canonical(expression.func if isinstance(expression, ast.Call) else expression)
                or ""
            )
            if (
                name.rsplit(".", 1)[-1] == "detect_anomaly"
                and not _guarded(facts, node)
                and any(_training_loop_in(facts, statement) for statement in node.body)
            ):
                yield Hit(expression)
