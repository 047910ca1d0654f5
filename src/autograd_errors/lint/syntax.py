"""The vocabulary the lint rules read code with: positions, dotted names, calls, constants,
and the names torch gives to its factories, moves and optimizers. Pure functions of one node,
used by :mod:`.facts` and by the rules."""

from __future__ import annotations

import ast
import re

Position = tuple[int, int]

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
LOOPS = (ast.For, ast.AsyncFor, ast.While)

#: What ``import x as y`` spellings are taken to mean when a file does not import them (a
#: snippet, a notebook's cell): the names PyTorch's own documentation uses.
CONVENTIONAL = {"nn": "torch.nn", "F": "torch.nn.functional", "optim": "torch.optim"}

#: Methods whose name ends in ``_`` but that change no values: flags, sharing, naming.
NOT_DATA_WRITES = frozenset(
    {"requires_grad_", "detach_", "share_memory_", "retain_grad_", "rename_", "pin_memory_"}
)

#: torch functions that make a new tensor from values (not from other tensors' graphs).
FACTORIES = frozenset(
    [
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "tensor",
        "as_tensor",
        "from_numpy",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "load",
        "Tensor",
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "LongTensor",
        "IntTensor",
        "BoolTensor",
        "ByteTensor",
    ]
)

#: Methods that move, cast or copy a tensor rather than compute from it.
MOVES = frozenset(
    [
        "to",
        "cuda",
        "cpu",
        "float",
        "double",
        "half",
        "bfloat16",
        "long",
        "int",
        "bool",
        "type",
        "clone",
        "detach",
        "contiguous",
        "numpy",
        "tolist",
        "item",
        "requires_grad_",
        "pin_memory",
        "share_memory_",
    ]
)

#: Objects whose ``backward(loss)`` runs the loss's backward (Accelerate, Lightning Fabric,
#: DeepSpeed's engine).
BACKWARD_WRAPPERS = frozenset({"accelerator", "fabric", "engine", "model_engine"})

_OPTIMIZER_NAME = re.compile(r"(^|_)[Oo]pt(im)?s?($|_|\d)|[Oo]ptimi[sz]er|^opt[A-Z]")
OPTIMIZER_CLASSES = frozenset(
    [
        "SGD",
        "Adam",
        "AdamW",
        "Adamax",
        "Adagrad",
        "Adadelta",
        "ASGD",
        "NAdam",
        "RAdam",
        "RMSprop",
        "Rprop",
        "LBFGS",
        "SparseAdam",
        "Adafactor",
        "Lion",
        "LAMB",
        "Lamb",
        "LARS",
        "Muon",
    ]
)


def position(node: ast.AST) -> Position:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def end_position(node: ast.AST) -> Position:
    return (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)


def dotted(node: ast.AST | None) -> str | None:
    """``a.b.c`` for a chain of names and attributes; ``net[0].weight`` when an index is a
    constant; None for anything else (a call, an arithmetic expression)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        base = dotted(node.value)
        return None if base is None else f"{base}[{node.slice.value!r}]"
    return None


def root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def strip_subscripts(node: ast.expr) -> ast.expr:
    """The tensor an indexed write changes: ``x`` for ``x[0]``, ``x[mask][0]``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def is_false(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    return None


def method_name(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def receiver(call: ast.Call) -> ast.expr | None:
    return call.func.value if isinstance(call.func, ast.Attribute) else None


def is_inplace_method(name: str | None) -> bool:
    return (
        name is not None
        and name.endswith("_")
        and not name.startswith("_")
        and name not in NOT_DATA_WRITES
    )


def is_optimizer_name(name: str) -> bool:
    """``optimizer``, ``opt_d``, ``optimizer_G``, ``g_optim``, ``optD``: how code names them."""
    last = name.rsplit(".", 1)[-1]
    return bool(_OPTIMIZER_NAME.search(last)) and "sched" not in last.lower()


def short(node: ast.AST, limit: int = 40) -> str:
    """Source text of an expression for a message, on one line, cut to ``limit`` characters."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
