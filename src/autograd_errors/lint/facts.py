"""What the rules may ask about one parsed module, computed once: parents and scopes, the names
imports give to ``torch``, bindings, grad mode at a statement, in-place writes, backward calls.

Everything here is syntax read with :mod:`ast`: no types are inferred. A rule that needs to know
more than the code shows stays silent (precision first: ``docs/lint.md``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from autograd_errors.lint.syntax import (
    BACKWARD_WRAPPERS,
    CONVENTIONAL,
    FACTORIES,
    FUNCTIONS,
    LOOPS,
    MOVES,
    OPTIMIZER_CLASSES,
    SCOPES,
    Position,
    dotted,
    end_position,
    is_false,
    is_inplace_method,
    is_optimizer_name,
    is_true,
    keyword,
    method_name,
    position,
    receiver,
    root_name,
    strip_subscripts,
)

#: Grad mode at a statement: on, off, or not known from the code (a function's body runs in the
#: caller's mode; a decorator we do not know may change it).
ON, OFF, UNKNOWN, INHERITED = "on", "off", "unknown", "inherited"


@dataclass(frozen=True)
class Binding:
    """A name given a value in a scope: ``value`` is the expression (None when unknown: a
    parameter, a tuple unpacked); ``kind`` is assign, for, with, arg, import."""

    name: str
    node: ast.AST
    value: ast.expr | None
    kind: str

    @property
    def position(self) -> Position:
        return position(self.node)


@dataclass(frozen=True)
class Write:
    """An in-place change to a tensor's values: ``x += 1``, ``x.add_(1)``, ``x[0] = 1``, and
    the same through ``.data`` (``through_data``). ``tensor`` is the expression changed (without
    ``.data``), ``values`` what the change reads."""

    node: ast.AST
    tensor: ast.expr
    through_data: bool
    values: tuple[ast.expr, ...]


@dataclass
class Scope:
    """A function, class or module body, without the scopes nested in it."""

    node: ast.AST
    nodes: list[ast.AST] = field(default_factory=list)
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    loads: dict[str, list[ast.expr]] = field(default_factory=dict)
    writes: list[Write] = field(default_factory=list)
    backwards: list[tuple[ast.Call, ast.expr | None]] = field(default_factory=list)

    def binding_before(self, name: str, at: Position) -> Binding | None:
        found = None
        for binding in self.bindings.get(name, ()):
            if binding.position < at:
                found = binding
        return found

    def loads_of(self, key: str, after: Position = (0, 0)) -> list[ast.expr]:
        return [node for node in self.loads.get(key, ()) if position(node) > after]

    def rebound(self, name: str, after: Position) -> Position:
        """Where ``name`` is next given a value after ``after`` (far away when never): reads
        past it are of another value."""
        later = [b.position for b in self.bindings.get(name, ()) if b.position > after]
        return min(later, default=(1 << 60, 0))

    def reads_of_this_value(self, name: str, after: Position) -> list[ast.expr]:
        """The reads of ``name`` after ``after`` and before it is rebound."""
        limit = self.rebound(name, after)
        return [node for node in self.loads_of(name, after) if position(node) < limit]

    def backwards_between(self, start: Position, end: Position = (1 << 60, 0)) -> list[ast.Call]:
        return [call for call, _ in self.backwards if start < position(call) < end]


class Facts:
    """The facts of one module, built in one walk of its tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parent: dict[ast.AST, ast.AST] = {}
        self.children: dict[ast.AST, list[ast.AST]] = {}
        self.calls: list[ast.Call] = []
        self.loops: list[ast.For | ast.AsyncFor | ast.While] = []
        self.classes: list[ast.ClassDef] = []
        self.assigns: list[ast.Assign] = []
        self.withs: list[ast.With | ast.AsyncWith] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.deletes: list[ast.Delete] = []
        #: What the rules compute once and share (``graphs._accumulations``).
        self.memo: dict[str, Any] = {}
        #: The statement lists of the module (bodies, ``else`` and ``finally`` blocks).
        self.blocks: list[list[ast.stmt]] = []
        #: Bare ``torch.set_grad_enabled(...)`` statements: rare, so looked for only if any.
        self.switches: list[ast.Expr] = []
        self.aliases: dict[str, str] = {}
        self.module_imports: set[str] = set()
        # One walk of the tree, which every question below reuses (the rules' cost is mostly
        # walking, and ast.walk is slow).
        buckets: dict[type, list[Any]] = {
            ast.Call: self.calls,
            ast.For: self.loops,
            ast.AsyncFor: self.loops,
            ast.While: self.loops,
            ast.ClassDef: self.classes,
            ast.Assign: self.assigns,
            ast.With: self.withs,
            ast.AsyncWith: self.withs,
            ast.FunctionDef: self.functions,
            ast.AsyncFunctionDef: self.functions,
            ast.Delete: self.deletes,
        }
        # Each node is indexed in its scope during the same walk: a function's or a class's
        # body is a scope of its own; its decorators run in the enclosing one; its arguments'
        # defaults, bases and annotations are left out.
        module = Scope(tree)
        self._scopes: dict[ast.AST, Scope] = {tree: module}
        self._scope_of: dict[ast.AST, Scope] = {}
        self._all_scopes = [module]
        calls: list[tuple[Scope, ast.Call]] = []
        stack: list[tuple[ast.AST, Scope | None]] = [(tree, None)]
        parents, children_of, blocks = self.parent, self.children, self.blocks
        scope_of, index = self._scope_of, self._index
        push, pop = stack.append, stack.pop
        while stack:
            node, scope = pop()
            kind = type(node)
            children: list[ast.AST] = []
            for name in _fields(kind):
                value = getattr(node, name, None)
                if type(value) is list:
                    children.extend(item for item in value if isinstance(item, ast.AST))
                    if name in _BLOCKS and value and isinstance(value[0], ast.stmt):
                        blocks.append(value)
                elif isinstance(value, ast.AST):
                    children.append(value)
            children_of[node] = children
            for child in children:
                parents[child] = node
            if scope is not None:
                scope.nodes.append(node)
                scope_of[node] = scope
                if kind is ast.Name or kind is ast.Attribute:
                    if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                        key = dotted(node)
                        if key is not None:
                            scope.loads.setdefault(key, []).append(node)  # type: ignore[arg-type]
                elif kind is ast.Call:
                    calls.append((scope, node))  # type: ignore[arg-type]
                elif kind in _BINDING_KINDS:
                    index(scope, node)
            if node is tree:
                for child in reversed(children):
                    push((child, module))
            elif kind in _SCOPE_KINDS:
                own = self._new_scope(node)
                self._scopes[node] = own
                self._all_scopes.append(own)
                body = node.body  # type: ignore[attr-defined]
                body_ids = {id(item) for item in body} if isinstance(body, list) else {id(body)}
                decorators = {id(item) for item in getattr(node, "decorator_list", ())}
                for child in reversed(children):
                    if id(child) in body_ids:
                        push((child, own))
                    else:
                        push((child, scope if id(child) in decorators else None))
            else:
                for child in reversed(children):
                    push((child, scope))
            bucket = buckets.get(kind)
            if bucket is not None:
                bucket.append(node)
            elif kind is ast.Expr and isinstance(node.value, ast.Call):  # type: ignore[attr-defined]
                if (dotted(node.value.func) or "").endswith("set_grad_enabled"):  # type: ignore[attr-defined]
                    self.switches.append(node)  # type: ignore[arg-type]
            elif kind is ast.Import:
                for alias in node.names:  # type: ignore[attr-defined]
                    local = alias.asname or alias.name.partition(".")[0]
                    self.aliases[local] = alias.name if alias.asname else local
                    self.module_imports.add(local)
            elif kind is ast.ImportFrom and node.module and not node.level:  # type: ignore[attr-defined]
                for alias in node.names:  # type: ignore[attr-defined]
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"  # type: ignore[attr-defined]
        # Calls are indexed once every import is known (whether ``x.add_`` is a tensor's or a
        # module's, whether ``backward`` is torch's).
        for scope, call in calls:
            self._index_call(scope, call)
        for scope in self._all_scopes:
            for bindings in scope.bindings.values():
                bindings.sort(key=lambda binding: binding.position)

    # Names ---------------------------------------------------------------------------------

    def canonical(self, node: ast.AST | None) -> str | None:
        """The dotted name with import aliases resolved: ``nn.Linear`` is ``torch.nn.Linear``
        after ``from torch import nn`` (or in a file that imports no ``nn`` at all)."""
        name = dotted(node)
        if name is None:
            return None
        head, dot, rest = name.partition(".")
        if head in self.aliases:
            head = self.aliases[head]
        elif head in CONVENTIONAL:
            head = CONVENTIONAL[head]
        return head + dot + rest

    def call_name(self, call: ast.Call) -> str | None:
        return self.canonical(call.func)

    def is_torch_call(self, call: ast.Call, *names: str) -> bool:
        """A call of ``torch.<name>`` (or of its ``torch.nn``, ``torch.autograd`` spelling)."""
        name = self.call_name(call)
        return name is not None and any(name == f"torch.{n}" for n in names)

    def is_namespace(self, node: ast.AST) -> bool:
        """A module rather than a tensor: ``torch``, ``nn.init``, ``np``."""
        root = root_name(node)
        if root is None:
            return False
        full = self.canonical(node) or ""
        return root in self.module_imports or full == "torch" or full.startswith("torch.")

    def is_factory(self, node: ast.AST | None) -> bool:
        """``torch.zeros(3)``, ``torch.tensor([1.0])``: a tensor made from values."""
        if not isinstance(node, ast.Call):
            return False
        name = self.call_name(node) or ""
        return name.startswith("torch.") and name.rsplit(".", 1)[-1] in FACTORIES

    def is_computed(self, value: ast.expr | None) -> bool:
        """A result of an operation autograd may have recorded: ``model(x)``, ``torch.sigmoid(x)``,
        ``a * b``; not a tensor made from values, moved or copied, nor an object constructed."""
        if isinstance(value, (ast.BinOp, ast.UnaryOp)):
            return any(
                isinstance(node, (ast.Name, ast.Attribute, ast.Call)) for node in ast.walk(value)
            )
        if not isinstance(value, ast.Call):
            return False
        if (
            self.is_factory(value)
            or self.is_parameter_call(value)
            or self.is_module_constructor(value)
        ):
            return False
        if method_name(value) in MOVES:
            return False
        name = self.call_name(value) or ""
        root = root_name(value.func)
        if root is not None and root in self.module_imports and not name.startswith("torch"):
            return False  # numpy, math, another library
        last = name.rsplit(".", 1)[-1]
        return not last[:1].isupper()  # a class: an object made, not a tensor computed

    def is_gradient(self, node: ast.AST) -> bool:
        """``p.grad``, ``p.grad.data``, ``p.grad[0]``: a gradient, not a tensor of the forward
        pass."""
        name = dotted(strip_subscripts(node)) if isinstance(node, ast.expr) else None
        return name is not None and "grad" in name.split(".")[1:]

    def requires_grad_changes(
        self, scope: Scope, name: str, start: Position, end: Position
    ) -> list[bool]:
        """What ``name.requires_grad = ...``, ``name.requires_grad_(...)`` and
        ``name.detach_()`` set between ``start`` and ``end``, in order (True: on)."""
        changes = []
        for node in scope.nodes:
            if not start < position(node) < end:
                continue
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and target.attr == "requires_grad"
                        and dotted(target.value) == name
                    ):
                        changes.append(bool(node.value.value))
            elif isinstance(node, ast.Call) and dotted(receiver(node)) == name:
                if method_name(node) == "detach_":
                    changes.append(False)
                elif method_name(node) == "requires_grad_":
                    flag = node.args[0] if node.args else keyword(node, "requires_grad")
                    changes.append(flag is None or not is_false(flag))
        return changes

    def carried(self, loop: ast.AST) -> list[str]:
        """Names a loop hands from one iteration to the next with their graph: bound in the
        body to a computed value, read before that binding takes effect (``h = cell(x, h)``),
        and never detached in the body."""
        scope = self.scope(loop)
        found = []
        for name, bindings in scope.bindings.items():
            inside = [b for b in bindings if self.inside(b.node, loop) and b.node is not loop]
            computed = [b for b in inside if b.kind in ("assign", "unpack")]
            if not computed or not any(self.is_computed(b.value) for b in computed):
                continue
            if any(_cuts_graph(self, b.value) for b in inside):
                continue
            first = min(computed, key=lambda b: b.position)
            loop_body = getattr(loop, "body", [])
            if any(
                b.position < first.position
                and _in_list(b.node, loop_body)
                and (self.is_factory(b.value) or isinstance(b.value, ast.Constant))
                for b in inside
            ):
                continue  # reset at the start of every iteration
            reads = [
                load
                for load in scope.loads.get(name, ())
                if self.inside(load, loop) and position(load) < end_position(first.node)
            ]
            detached = any(
                isinstance(call, ast.Call)
                and self.inside(call, loop)
                and (
                    (method_name(call) == "detach_" and dotted(receiver(call)) == name)
                    or (
                        (
                            "detach" in (dotted(call.func) or "").lower()
                            or "repackage" in (dotted(call.func) or "").lower()
                        )
                        and any(dotted(arg) == name for arg in call.args)
                    )
                )
                for call in self.calls
            )
            if reads and not detached:
                found.append(name)
        return sorted(found)

    def is_parameter_call(self, node: ast.AST | None) -> bool:
        if not isinstance(node, ast.Call):
            return False
        name = self.call_name(node) or ""
        return name.rsplit(".", 1)[-1] in ("Parameter", "UninitializedParameter")

    def is_module_constructor(self, node: ast.AST | None) -> bool:
        """``nn.Linear(4, 2)``, ``torch.nn.Sequential(...)``: a new module."""
        if not isinstance(node, ast.Call):
            return False
        name = self.call_name(node) or ""
        last = name.rsplit(".", 1)[-1]
        return (
            name.startswith("torch.nn.")
            and not name.startswith("torch.nn.functional.")
            and last[:1].isupper()
            and last not in ("Parameter", "UninitializedParameter", "ParameterList")
        )

    def is_optimizer_constructor(self, node: ast.AST | None) -> bool:
        if not isinstance(node, ast.Call):
            return False
        name = self.call_name(node) or ""
        if name.startswith("torch.optim.") and not name.startswith(
            ("torch.optim.lr_scheduler", "torch.optim.swa_utils")
        ):
            return True
        return name.rsplit(".", 1)[-1] in OPTIMIZER_CLASSES

    def requires_grad_true(self, node: ast.AST | None) -> bool:
        """A call given ``requires_grad=True``."""
        return isinstance(node, ast.Call) and is_true(keyword(node, "requires_grad"))

    def is_backward_call(self, call: ast.Call) -> bool:
        """``loss.backward()``, ``torch.autograd.backward(loss)``, ``torch.autograd.grad(...)``,
        ``accelerator.backward(loss)``, ``self.manual_backward(loss)``."""
        name = method_name(call)
        if name in ("backward", "manual_backward"):
            return True
        return self.is_torch_call(call, "autograd.grad", "autograd.backward")

    def backward_target(self, call: ast.Call) -> ast.expr | None:
        """The tensor a backward call differentiates: ``loss`` in ``loss.backward()``,
        ``accelerator.backward(loss)``, ``torch.autograd.grad(loss, params)``."""
        name = method_name(call)
        target = receiver(call)
        if name == "backward" and target is not None and not self.is_namespace(target):
            wrapper = (dotted(target) or "").rsplit(".", 1)[-1] in BACKWARD_WRAPPERS
            if not wrapper:
                return target
        if call.args:
            return call.args[0]
        return keyword(call, "outputs") or keyword(call, "tensors") or keyword(call, "loss")

    def is_step_call(self, call: ast.Call) -> bool:
        """An optimizer's step: ``optimizer.step()``, or ``scaler.step(optimizer)``."""
        if method_name(call) != "step":
            return False
        target = dotted(receiver(call))
        if target is not None and self.is_optimizer(target):
            return True
        return (
            bool(call.args)
            and (name := dotted(call.args[0])) is not None
            and (self.is_optimizer(name))
        )

    @cached_property
    def _optimizers(self) -> set[str]:
        """Names assigned an optimizer somewhere in the module."""
        found = set()
        for node in self.assigns:
            if self.is_optimizer_constructor(node.value):
                for target in node.targets:
                    if (name := dotted(target)) is not None:
                        found.add(name)
        return found

    def is_optimizer(self, name: str) -> bool:
        return name in self._optimizers or is_optimizer_name(name)

    # Structure -----------------------------------------------------------------------------

    def walk(self, node: ast.AST) -> Iterator[ast.AST]:
        """``node`` and everything under it, as :func:`ast.walk` gives it, from the one walk."""
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(self.children.get(current, ()))

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parent.get(node)
        while current is not None:
            yield current
            current = self.parent.get(current)

    def scope_node(self, node: ast.AST) -> ast.AST:
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, SCOPES):
                return ancestor
        return self.tree

    def function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return ancestor
            if isinstance(ancestor, (ast.Lambda, ast.ClassDef)):
                return None
        return None

    def class_of(self, node: ast.AST) -> ast.ClassDef | None:
        """The class whose method holds ``node``."""
        function = self.function_of(node)
        parent = self.parent.get(function) if function is not None else None
        return parent if isinstance(parent, ast.ClassDef) else None

    def innermost_loop(self, node: ast.AST) -> ast.For | ast.AsyncFor | ast.While | None:
        """The loop whose body (not ``else``) holds ``node``, in the same function."""
        child = node
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, SCOPES):
                return None
            if isinstance(ancestor, LOOPS) and _in_list(child, ancestor.body):
                return ancestor
            child = ancestor
        return None

    def inside(self, node: ast.AST, container: ast.AST) -> bool:
        return node is container or any(a is container for a in self.ancestors(node))

    def scope(self, node: ast.AST) -> Scope:
        """The scope a node is in (the node itself when it is a function, class or module)."""
        if node in self._scopes:
            return self._scopes[node]
        found = self._scope_of.get(node)
        if found is not None:
            return found
        return self._scopes[self.scope_node(node)]

    @property
    def scopes(self) -> list[Scope]:
        """Every scope of the module, the module first."""
        return self._all_scopes

    def _new_scope(self, owner: ast.AST) -> Scope:
        scope = Scope(owner)
        if isinstance(owner, FUNCTIONS):
            arguments = owner.args
            for arg in (
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                *filter(None, (arguments.vararg, arguments.kwarg)),
            ):
                scope.bindings.setdefault(arg.arg, []).append(Binding(arg.arg, owner, None, "arg"))
        return scope

    def _index_call(self, scope: Scope, node: ast.Call) -> None:
        name = method_name(node)
        owner = receiver(node)
        if is_inplace_method(name) and owner is not None and not self.is_namespace(owner):
            values = (*node.args, *(item.value for item in node.keywords))
            scope.writes.append(Write(node, *_unwrap_data(strip_subscripts(owner)), values))
        if self.is_backward_call(node):
            scope.backwards.append((node, self.backward_target(node)))

    def _index(self, scope: Scope, node: ast.AST) -> None:
        def bind(target: ast.AST, value: ast.expr | None, kind: str, at: ast.AST) -> None:
            if isinstance(target, ast.Name):
                scope.bindings.setdefault(target.id, []).append(Binding(target.id, at, value, kind))
            elif isinstance(target, (ast.Tuple, ast.List)):
                # Each name is bound to a part of the value: "unpack" keeps the value for what
                # it was computed by, not for what each name holds.
                for element in target.elts:
                    bind(element, value, "unpack" if kind == "assign" else kind, at)
            elif isinstance(target, ast.Starred):
                bind(target.value, None, kind, at)
            elif (key := dotted(target)) is not None and isinstance(target, ast.Attribute):
                scope.bindings.setdefault(key, []).append(Binding(key, at, value, kind))

        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value, "assign", node)
                if isinstance(target, ast.Subscript):
                    scope.writes.append(
                        Write(node, *_unwrap_data(strip_subscripts(target)), (node.value,))
                    )
        elif (isinstance(node, ast.AnnAssign) and node.value is not None) or isinstance(
            node, ast.NamedExpr
        ):
            bind(node.target, node.value, "assign", node)
        elif isinstance(node, ast.AugAssign):
            target = strip_subscripts(node.target)
            if not isinstance(target, (ast.Name, ast.Attribute)):
                return
            scope.writes.append(Write(node, *_unwrap_data(target), (node.value,)))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            bind(node.target, node.iter, "for", node)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    bind(item.optional_vars, item.context_expr, "with", node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope.bindings.setdefault(node.name, []).append(Binding(node.name, node, None, "def"))

    # Grad mode -----------------------------------------------------------------------------

    def grad_mode(self, node: ast.AST) -> str:
        """ON, OFF, UNKNOWN, or INHERITED (a function's body whose mode is its caller's)."""
        child = node
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, (ast.With, ast.AsyncWith)) and _in_list(child, ancestor.body):
                for item in reversed(ancestor.items):
                    mode = self.context_mode(item.context_expr)
                    if mode is not None:
                        return mode
            mode = self._switch_before(ancestor, child)
            if mode is not None:
                return mode
            if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in ancestor.decorator_list:
                    mode = self.decorator_mode(decorator)
                    if mode is not None:
                        return mode
                return INHERITED
            if isinstance(ancestor, (ast.Lambda, ast.ClassDef)):
                return INHERITED
            child = ancestor
        return ON

    def grad_enabled(self, node: ast.AST) -> bool:
        """Grad mode is on at ``node`` as far as the code shows: on, or a function body whose
        function this module never calls with grad mode off."""
        mode = self.grad_mode(node)
        if mode == ON:
            return True
        if mode != INHERITED:
            return False
        function = self.function_of(node)
        return function is None or function.name not in self._called_without_grad

    @cached_property
    def _called_without_grad(self) -> set[str]:
        """The module's functions called somewhere with grad mode off."""
        defined = {function.name for function in self.functions}
        names = set()
        for call in self.calls:
            name = (dotted(call.func) or "").rsplit(".", 1)[-1]
            if name in defined and self.grad_mode(call) == OFF:
                names.add(name)
        return names

    def context_mode(self, expression: ast.expr) -> str | None:
        """The grad mode a ``with`` item sets, or None when it sets none."""
        call = expression if isinstance(expression, ast.Call) else None
        name = self.canonical(call.func if call else expression) or ""
        last = name.rsplit(".", 1)[-1]
        if last == "no_grad":
            return OFF
        if last == "enable_grad":
            return ON
        if last == "inference_mode":
            argument = (call.args[0] if call.args else keyword(call, "mode")) if call else None
            if argument is None or is_true(argument):
                return OFF
            return None  # inference_mode(False) leaves grad mode as it was
        if last == "set_grad_enabled":
            argument = (call.args[0] if call.args else keyword(call, "mode")) if call else None
            return ON if is_true(argument) else OFF if is_false(argument) else UNKNOWN
        return None

    def decorator_mode(self, decorator: ast.expr) -> str | None:
        mode = self.context_mode(decorator)
        if mode is not None:
            return mode
        name = self.canonical(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if name and ("grad" in name or "inference" in name):
            return UNKNOWN  # a decorator of its own that may switch grad mode
        return None

    def _switch_before(self, block_owner: ast.AST, child: ast.AST) -> str | None:
        """A bare ``torch.set_grad_enabled(False)`` statement before ``child`` in its block."""
        if not self.switches:
            return None
        for name in ("body", "orelse", "finalbody"):
            value = getattr(block_owner, name, None)
            if isinstance(value, list) and _in_list(child, value):
                index = next(i for i, item in enumerate(value) if item is child)
                for statement in reversed(value[:index]):
                    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                        call = statement.value
                        if (self.call_name(call) or "").endswith("set_grad_enabled"):
                            return self.context_mode(call)
        return None


def _cuts_graph(facts: Facts, value: ast.expr | None) -> bool:
    """``x.detach()``, ``x.item()``, ``repackage_hidden(h)``: the graph cut in the loop."""
    if not isinstance(value, ast.Call):
        return False
    name = (dotted(value.func) or "").lower()
    return (
        method_name(value) in ("detach", "item", "tolist", "numpy")
        or "detach" in name
        or "repackage" in name
    )


_BLOCKS = frozenset({"body", "orelse", "finalbody"})
_SCOPE_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
#: The statements and expressions that bind names or write tensors (Facts._index).
_BINDING_KINDS = frozenset(
    {
        ast.Assign,
        ast.AnnAssign,
        ast.NamedExpr,
        ast.AugAssign,
        ast.For,
        ast.AsyncFor,
        ast.With,
        ast.AsyncWith,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes (``ctx``, Load or Store, left out)."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(
            name for name in getattr(kind, "_fields", ()) if name not in ("ctx", "type_comment")
        )
    return fields


def _in_list(node: ast.AST, nodes: list[ast.AST] | list[ast.stmt]) -> bool:
    return any(item is node for item in nodes)


def _unwrap_data(target: ast.expr) -> tuple[ast.expr, bool]:
    """``(p, True)`` for ``p.data``, ``(p, False)`` for ``p``."""
    if isinstance(target, ast.Attribute) and target.attr == "data":
        return target.value, True
    return target, False


def statement_of(facts: Facts, node: ast.AST) -> ast.stmt | None:
    """The statement that holds ``node`` (itself when it is one)."""
    if isinstance(node, ast.stmt):
        return node
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, ast.stmt):
            return ancestor
    return None
