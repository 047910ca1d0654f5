"""AE4: modules and optimizers: a plain tensor where a parameter must go, a model changed after
its optimizer took the parameters."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from autograd_errors.lint.declare import Hit, rule
from autograd_errors.lint.facts import (
    Facts,
)
from autograd_errors.lint.syntax import (
    dotted,
    end_position,
    method_name,
    position,
    receiver,
)

#: Tensor methods whose result is a plain tensor even on a parameter (``.to()`` and the casts
#: are left out: on the same device and dtype they return the parameter itself).
TENSOR_METHODS = frozenset(
    [
        "clone",
        "detach",
        "t",
        "view",
        "reshape",
        "transpose",
        "permute",
        "mul",
        "add",
        "sub",
        "div",
        "softmax",
        "log_softmax",
        "sigmoid",
        "tanh",
        "relu",
        "sum",
        "mean",
        "sqrt",
        "exp",
        "log",
        "abs",
        "squeeze",
        "unsqueeze",
        "expand",
        "repeat",
        "flatten",
        "new_zeros",
        "new_ones",
        "new_tensor",
        "new_empty",
        "new_full",
        "matmul",
        "mm",
    ]
)
PARAMETER_NAMES = ("weight", "bias")


def _plain_tensor(facts: Facts, value: ast.expr, parameters: set[str]) -> bool:
    """An expression that is a tensor and certainly not an ``nn.Parameter``."""
    if isinstance(value, ast.Call):
        if facts.is_parameter_call(value):
            return False
        name = facts.call_name(value) or ""
        if name.startswith("torch.nn.functional.") or (
            name.startswith("torch.") and not name.startswith("torch.nn.")
        ):
            return True
        return (
            method_name(value) in TENSOR_METHODS
            and receiver(value) is not None
            and not (
                facts.is_namespace(receiver(value))  # type: ignore[arg-type]
            )
        )
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):
        operands = [value.left, value.right] if isinstance(value, ast.BinOp) else [value.operand]
        return any(
            _plain_tensor(facts, operand, parameters)
            or (dotted(operand) or "").rsplit(".", 1)[-1] in parameters
            for operand in operands
        )
    return False


def _module_class(facts: Facts, cls: ast.ClassDef) -> tuple[bool, bool]:
    """(an ``nn.Module`` subclass, a subclass of a layer that has ``weight`` and ``bias``)."""
    bases = [facts.canonical(base) or "" for base in cls.bases]
    module = any(base.startswith("torch.nn.") or base.endswith("Module") for base in bases)
    layer = any(
        base.startswith("torch.nn.")
        and base.rsplit(".", 1)[-1] not in ("Module", "ModuleList", "ModuleDict", "Sequential")
        for base in bases
    )
    return module, layer


def _declared_parameters(facts: Facts, cls: ast.ClassDef) -> set[str]:
    """``A`` of ``self.A = nn.Parameter(...)`` and ``self.register_parameter("A", ...)``."""
    names = set()
    for node in facts.walk(cls):
        if isinstance(node, ast.Assign) and facts.is_parameter_call(node.value):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                    names.add(target.attr)
        if (
            isinstance(node, ast.Call)
            and method_name(node) == "register_parameter"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
    return names


def _is_module_expression(facts: Facts, node: ast.expr, at: ast.AST) -> bool:
    """``net``, ``net[0]``, ``model.fc``, ``self.fc``: an expression that holds a module, as
    its assignments show."""
    if isinstance(node, ast.Subscript):
        return _is_module_expression(facts, node.value, at)
    if isinstance(node, ast.Attribute):
        name = dotted(node)
        cls = facts.class_of(at)
        if name is not None and name.startswith("self.") and cls is not None:
            for inner in facts.walk(cls):
                if (
                    isinstance(inner, ast.Assign)
                    and facts.is_module_constructor(inner.value)
                    and any(dotted(target) == name for target in inner.targets)
                ):
                    return True
        return _is_module_expression(facts, node.value, at)
    if isinstance(node, ast.Name):
        for scope in (facts.scope(at), facts.scope(facts.tree)):
            binding = scope.binding_before(node.id, position(at))
            if binding is not None and binding.kind == "assign":
                return facts.is_module_constructor(binding.value)
    return False


def _deleted(facts: Facts) -> set[str]:
    """``target.weight`` of ``del target.weight``: no longer a parameter, an attribute that
    takes any tensor (the way to compute a weight and keep its graph)."""
    return {
        name
        for node in facts.deletes
        for target in node.targets
        if (name := dotted(target)) is not None
    }


@rule("AE401")
def plain_tensor_for_a_parameter(facts: Facts) -> Iterator[Hit]:
    """A plain tensor assigned where a module keeps a parameter: raises ``TypeError: cannot
    assign ... as parameter``."""
    reported: set[int] = set()
    deleted = _deleted(facts)
    for cls in facts.classes:
        module, layer = _module_class(facts, cls)
        if not module:
            continue
        parameters = _declared_parameters(facts, cls) | (set(PARAMETER_NAMES) if layer else set())
        for node in facts.walk(cls):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target = node.targets[0]
            if (
                isinstance(target, ast.Attribute)
                and dotted(target.value) == "self"
                and target.attr in parameters
                and f"self.{target.attr}" not in deleted
                and facts.class_of(node) is cls
                and _plain_tensor(facts, node.value, parameters)
            ):
                reported.add(id(node))
                yield Hit(node, {"target": dotted(target) or target.attr})
    for node in facts.assigns:
        if id(node) in reported or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and target.attr in PARAMETER_NAMES
            and ast.unparse(target) not in deleted
            and dotted(target) not in deleted
            and _is_module_expression(facts, target.value, node)
            and _plain_tensor(facts, node.value, set(PARAMETER_NAMES))
        ):
            yield Hit(node, {"target": ast.unparse(target)})
    for call in facts.calls:
        if (
            method_name(call) == "register_parameter"
            and len(call.args) == 2
            and _plain_tensor(facts, call.args[1], set())
        ):
            name = call.args[0]
            label = str(name.value) if isinstance(name, ast.Constant) else ast.unparse(name)
            yield Hit(call, {"target": f"{dotted(receiver(call)) or 'module'}.{label}"})


def _given_parameters(facts: Facts, optimizer: ast.Call) -> set[str]:
    """``model`` and ``model.fc`` of ``SGD(model.parameters())``, ``[{"params":
    model.fc.parameters()}]``."""
    found = set()
    for node in ast.walk(optimizer):
        if isinstance(node, ast.Call) and method_name(node) in ("parameters", "named_parameters"):
            owner = dotted(receiver(node))
            if owner is not None:
                found.add(owner)
    return found


def _overlaps(path: str, owners: set[str]) -> bool:
    """``model.fc`` (or ``model[1]``) is part of ``model``, or ``model.fc`` holds
    ``model.fc.conv``."""
    return any(
        path == owner
        or path.startswith((owner + ".", owner + "["))
        or owner.startswith((path + ".", path + "["))
        for owner in owners
    )


@rule("AE402")
def replaced_after_the_optimizer(facts: Facts) -> Iterator[Hit]:
    """``opt = SGD(model.parameters())`` then ``model.fc = nn.Linear(...)`` (or a new
    ``nn.Parameter``), and ``opt`` used without being rebuilt."""
    for scope in facts.scopes:
        for node in scope.nodes:
            if not isinstance(node, ast.Assign) or not facts.is_optimizer_constructor(node.value):
                continue
            assert isinstance(node.value, ast.Call)
            owners = _given_parameters(facts, node.value)
            names = {name for target in node.targets if (name := dotted(target)) is not None}
            if not owners or not names:
                continue
            for later in scope.nodes:
                if not (
                    isinstance(later, ast.Assign)
                    and position(later) > end_position(node)
                    and (
                        facts.is_module_constructor(later.value)
                        or facts.is_parameter_call(later.value)
                    )
                ):
                    continue
                replaced = [
                    path
                    for target in later.targets
                    if isinstance(target, (ast.Attribute, ast.Subscript))
                    and (path := dotted(target)) is not None
                    and _overlaps(path, owners)
                ]
                if not replaced:
                    continue
                # The same model and the same optimizer: neither name bound again in between.
                between = (end_position(node), position(later))
                roots = {path.split(".")[0].split("[")[0] for path in owners} | owners | names
                if any(
                    between[0] < binding.position < between[1]
                    for root in roots
                    for binding in scope.bindings.get(root, ())
                ):
                    continue
                after = end_position(later)
                rebuilds = [
                    position(other)
                    for other in scope.nodes
                    if position(other) > after
                    and (
                        (
                            isinstance(other, ast.Assign)
                            and facts.is_optimizer_constructor(other.value)
                            and any(dotted(target) in names for target in other.targets)
                        )
                        or (
                            isinstance(other, ast.Call)
                            and method_name(other) == "add_param_group"
                            and dotted(receiver(other)) in names
                        )
                    )
                ]
                rebuilt = min(rebuilds, default=(1 << 60, 0))
                # Used before it is rebuilt (a script may build it again later, for a fix).
                used = any(
                    position(load) < rebuilt
                    for name in names
                    for load in scope.loads_of(name, after)
                )
                rebuilt_first = not used
                if not rebuilt_first:
                    optimizer = sorted(names)[0]
                    yield Hit(later, {"target": replaced[0], "optimizer": optimizer})
