"""The inventory of autograd messages: every message torch raises or warns in the autograd area.

    python tools/inventory.py [--torch RELEASE=TORCH_DIR ...] [--out DIR]
    python tools/inventory.py --cover [--out DIR]

``TORCH_DIR`` is an installed torch package (the ``torch`` folder in a venv's site-packages); it
is read, never imported, so the release's venv need not work with this checkout and no network
is needed. The defaults are the reference release (this checkout's ``.venv``) and the newest
(``/work/matrix/torch-2.15.0``). Writes, in ``DIR`` (default ``data/inventory``):

- ``messages.json``: each message once, as a template in the catalog's syntax, with its
  exception or warning class, where each release raises it, and the catalog entry that covers
  it (found with the project's own matcher, in both directions);
- ``ranking.json``: the messages no entry covers, ranked by the public threads that quote them,
  from ``counts.json`` (written by hand from the ``search`` tool, see its ``method``; read here,
  never written).

``--cover`` reads no wheel: it finds again the entries covering the messages of the existing
``messages.json`` with this checkout's catalog, for an entry added since the wheels were read
(they are several GB; the messages and their locations stay as read then).

Where the messages come from, per release:

- Python: every ``.py`` file of the area in the wheel, parsed with :mod:`ast`: ``raise X(...)``,
  ``warnings.warn(...)``, ``@deprecated(message)``, ``assert cond, message``,
  ``torch._check*(cond, lambda: message)``, an exception made to be raised later
  (``DelayedError(message)``), DDP's ``_log_and_throw(RuntimeError, message)`` and
  functorch's ``disable_saved_tensors_hooks(message)``;
  f-strings, ``%`` and ``str.format`` give templates with a placeholder per inserted value, and
  a message built in a variable first (``msg = f"..."; raise X(msg)``) is followed to it.
  Locations are exact (file:line in that wheel).
- C++: the wheel's compiled libraries. A C++ message is a string literal in the read-only data
  of ``libtorch_cpu.so``, ``libtorch_python.so``, ``libc10.so`` (and ``libtorch_cuda.so`` where
  the wheel has it); the compiler lays out each translation unit's strings together with its
  ``__FILE__`` and the ``file:line`` of its internal asserts, so a string belongs to the last
  source file named before it. A message torch assembles from several pieces
  (``c10::str("... [", type, "], which is output ", ...)``) appears as its pieces: the piece that
  starts it is its template, cut where the first value goes (``prefix`` is then true). Strings
  that differ in one identifier only (the generated kernels' one message per operator) are one
  template with an ``{op}`` placeholder. The location is the file; with a line where the file is
  a header the wheel ships (``torch/include``), and then the class from its macro. A ``.cpp``
  file's line and class are not in the library (``line`` and ``exception`` are then null).

What "the autograd area" includes, and what is left out, is ``AREA`` below; its edges: the
Tensor methods of autograd (``torch/_tensor.py``), ``nn.Parameter`` and ``nn.Buffer``, the
custom-op autograd registration (``torch/_library/autograd.py``), the serialisation of tensors
that require grad across processes (``torch/multiprocessing/reductions.py``), the older
``torch.cuda.amp`` and ``torch.cpu.amp`` shims, the tensor metadata checks of
``c10/core/TensorImpl`` (``.data`` / ``.detach()`` metadata changes, inference tensors,
``requires_grad``), DDP's reducer and logger; not the profiler (``torch/autograd/profiler*``,
``torch/csrc/autograd/profiler*``), not the rest of ``torch.distributed`` (RPC, c10d, DTensor,
pipelining, elastic, checkpointing of state). A file outside the area where a catalog entry's
message lives contributes that message only.

Left out as nobody sees them: C++ internal asserts (``INTERNAL ASSERT FAILED``, what
``TORCH_INTERNAL_ASSERT`` prints), Python ``raise`` and ``assert`` without a message, messages
with fewer than 6 characters of literal text (``raise ValueError(msg)`` where ``msg`` comes from
elsewhere), documentation strings and operator schemas in the libraries. The counts of what was
left out are in ``messages.json`` (``dropped``).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import struct
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from autograd_errors import catalog as catalog_module  # noqa: E402
from autograd_errors.matcher.matching import Match, find_matches  # noqa: E402
from autograd_errors.messages.normalize import skeleton  # noqa: E402
from autograd_errors.messages.templates import KINDS  # noqa: E402

DEFAULT_TORCH = {
    "2.13.0": REPO / ".venv/lib/python3.11/site-packages/torch",
    "2.15.0": Path("/work/matrix/torch-2.15.0/lib/python3.11/site-packages/torch"),
}
REFERENCE = "2.13.0"


@dataclass(frozen=True)
class Area:
    """Where autograd messages live: path prefixes relative to the site-packages folder."""

    python: tuple[str, ...]
    cpp: tuple[str, ...]
    excluded: tuple[str, ...]


AREA = Area(
    python=(
        "torch/autograd/",
        "torch/utils/checkpoint.py",
        "torch/nn/modules/module.py",
        "torch/nn/parameter.py",
        "torch/nn/parallel/",
        "torch/distributed/fsdp/",
        "torch/distributed/_composable/fsdp/",
        "torch/distributed/_composable/replicate",
        "torch/distributed/algorithms/ddp_comm_hooks/",
        "torch/distributed/algorithms/_checkpoint/",
        "torch/amp/",
        "torch/cuda/amp/",
        "torch/cpu/amp/",
        "torch/optim/",
        "torch/func/",
        "torch/_functorch/",
        "torch/_tensor.py",
        "torch/_library/autograd.py",
        "torch/multiprocessing/reductions.py",
    ),
    cpp=(
        "torch/csrc/autograd/",
        "torch/csrc/functorch/",
        "aten/src/ATen/functorch/",
        "torch/csrc/distributed/c10d/reducer",
        "torch/csrc/distributed/c10d/logger.cpp",
        "torch/csrc/distributed/c10d/default_comm_hooks.cpp",
        "c10/core/TensorImpl.",
        "c10/core/InferenceMode.",
        "c10/core/AutogradState.",
        "aten/src/ATen/native/AutogradComposite.cpp",
        "aten/src/ATen/native/VariableMethodStubs.cpp",
        "aten/src/ATen/core/VariableHooksInterface.",
    ),
    excluded=(
        "torch/autograd/profiler",
        "torch/autograd/_functions/profiler",
        "torch/csrc/autograd/profiler",
        "torch/csrc/autograd/generated/TraceType",
    ),
)

#: Where torch's own code is; a catalog wording's piece found elsewhere (a vendored library's
#: unit) is not torch's message.
TORCH_SOURCES = ("torch/", "c10/", "aten/")
LIBRARIES = ("libtorch_cpu.so", "libtorch_python.so", "libc10.so", "libtorch_cuda.so")

#: The check functions of torch._check*, and the exception each raises.
CHECKS = {
    "_check": "RuntimeError",
    "_check_value": "ValueError",
    "_check_type": "TypeError",
    "_check_index": "IndexError",
    "_check_not_implemented": "NotImplementedError",
    "_check_is_size": "RuntimeError",
}
#: C++ macros, and what Python sees.
MACROS = (
    ("TORCH_CHECK_VALUE", "ValueError"),
    ("TORCH_CHECK_TYPE", "TypeError"),
    ("TORCH_CHECK_INDEX", "IndexError"),
    ("TORCH_CHECK_NOT_IMPLEMENTED", "NotImplementedError"),
    ("TORCH_WARN_DEPRECATION", "UserWarning"),
    ("TORCH_WARN", "UserWarning"),
    ("TORCH_CHECK", "RuntimeError"),
    ("AT_ERROR", "RuntimeError"),
    ("throw std::", "RuntimeError"),
)
MIN_LITERAL = 6
#: A message shorter than this is not looked for inside an entry's wording (it would be found in
#: many: "expected ").
MIN_REVERSE_LITERAL = 15
#: A library string shorter than this is no piece of a message, even inside an entry's wording.
MIN_PIECE = 10
#: The kinds a placeholder of the inventory may take, most permissive first: the first whose
#: characters do not include the next character of the template keeps matching deterministic.
PLACEHOLDER_KINDS = ("location", "python_type", "attribute", "index")


# --- templates -------------------------------------------------------------------------------


class Hole:
    """A value torch inserts into a message; named after the expression that gives it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


Parts = list["str | Hole"]


def escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def hole_name(expression: ast.expr | None) -> str:
    """``type(value).__name__`` -> ``value``; ``self.name`` -> ``name``; ``len(xs)`` -> ``xs``."""
    node = expression
    while node is not None:
        if isinstance(node, ast.Name):
            return _identifier(node.id)
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("__") and node.attr.endswith("__"):
                node = node.value
                continue
            return _identifier(node.attr)
        if isinstance(node, ast.Call):
            node = node.args[0] if node.args else node.func
            continue
        if isinstance(node, ast.Subscript):
            node = node.value
            continue
        if isinstance(node, ast.FormattedValue):
            node = node.value
            continue
        break
    return "value"


def _identifier(text: str) -> str:
    name = re.sub(r"[^0-9a-zA-Z_]", "_", text).strip("_").lower() or "value"
    return name if name[0].isalpha() else "v_" + name


def finish(parts: Parts) -> str | None:
    """The template text of ``parts``: holes as ``{name:kind}``; None without enough literal."""
    merged: Parts = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if merged and isinstance(merged[-1], str):
                merged[-1] += part
            else:
                merged.append(part)
            continue
        # Two values with only spaces between them are one value to the matcher.
        if merged and isinstance(merged[-1], Hole):
            continue
        if len(merged) >= 2 and isinstance(merged[-2], Hole) and not str(merged[-1]).strip():
            merged.pop()
            continue
        merged.append(part)
    literal = "".join(p for p in merged if isinstance(p, str))
    if len("".join(literal.split())) < MIN_LITERAL:
        return None
    names: set[str] = set()
    out: list[str] = []
    for index, part in enumerate(merged):
        if isinstance(part, str):
            out.append(escape(part))
            continue
        name = part.name
        suffix = 2
        while name in names:
            name, suffix = f"{part.name}_{suffix}", suffix + 1
        names.add(name)
        following = merged[index + 1] if index + 1 < len(merged) else None
        out.append("{" + name + ":" + _kind_before(following) + "}")
    return "".join(out).strip()


def _kind_before(following: str | Hole | None) -> str:
    if not isinstance(following, str) or following[:1].isspace() or not following.strip():
        return PLACEHOLDER_KINDS[0]
    char = following.strip()[0]
    for kind in PLACEHOLDER_KINDS:
        if char not in KINDS[kind].charset:
            return kind
    return PLACEHOLDER_KINDS[-1]


_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(\w+)(?::(\w+))?\}")


def render(template: str, fields: dict[str, str] | None = None) -> str:
    """The template as a message: each placeholder a sample value its kind holds."""

    def value(match: re.Match[str]) -> str:
        if match.group(0) in ("{{", "}}"):
            return match.group(0)[0]
        name, kind = match.group(1), match.group(2) or match.group(1)
        if fields and name in fields:
            return fields[name]
        return "[2, 3]" if KINDS.get(kind) is not None and KINDS[kind].delimited else "0"

    return _PLACEHOLDER.sub(value, template)


def literal_chars(template: str) -> int:
    return len("".join(_PLACEHOLDER.sub("", template).split()))


def reverse_pattern(template: str) -> re.Pattern[str]:
    """The template as a pattern over whitespace-free text: a placeholder holds any value."""
    chunks = [""]
    pos = 0
    for match in _PLACEHOLDER.finditer(template):
        chunks[-1] += template[pos : match.start()]
        if match.group(0) in ("{{", "}}"):
            chunks[-1] += match.group(0)[0]
        else:
            chunks.append("")
        pos = match.end()
    chunks[-1] += template[pos:]
    # A value may be empty (gradcheck's "Jacobian {mode}mismatch", mode "") or a whole tensor.
    return re.compile(".{0,1000}?".join(re.escape("".join(c.split())) for c in chunks))


def message_id(template: str) -> str:
    return "m-" + hashlib.sha1(template.encode()).hexdigest()[:10]


# --- Python ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    template: str
    exception: str | None
    file: str
    line: int | None
    prefix: bool = False


class _Messages(ast.NodeVisitor):
    """The messages one module raises or warns."""

    def __init__(self, file: str, module: ast.Module) -> None:
        self.file = file
        self.found: list[Found] = []
        self.dropped: defaultdict[str, int] = defaultdict(int)
        self._scopes: list[dict[str, list[tuple[int, ast.expr]]]] = [{}]
        # Functions that build a message (gradcheck's _get_notallclose_msg): by name.
        self._functions = {
            node.name: node
            for node in ast.walk(module)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }

    # A message built in a variable first: the nearest assignment above, in the same function.
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._scopes.append({})
        self.generic_visit(node)
        self._scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self._scopes[-1].setdefault(target.id, []).append((node.lineno, node.value))
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            assigned = self._scopes[-1].get(node.target.id)
            if assigned:
                line, value = assigned[-1]
                joined = ast.BinOp(left=value, op=ast.Add(), right=node.value)
                assigned.append((line, joined))
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call):
            name = _callee(exc.func)
            if name and name[0].isupper() and not _is_error_class(name):
                self._add(_message_argument(exc), name, node.lineno)
        elif exc is not None:
            self.dropped["raise without a message"] += 1
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if node.msg is None:
            self.dropped["assert without a message"] += 1
        else:
            self._add(node.msg, "AssertionError", node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        callee = _callee(func)
        if callee == "warn" and _is_warnings_warn(func):
            category = node.args[1] if len(node.args) > 1 else _keyword(node, "category")
            name = _callee(category) if category is not None else "UserWarning"
            message = node.args[0] if node.args else _keyword(node, "message")
            self._add(message, name or "UserWarning", node.lineno)
        elif callee == "deprecated" and node.args:
            # typing_extensions.deprecated(message, category=...) warns when the API is used.
            category = _keyword(node, "category")
            name = _callee(category) if category is not None else "DeprecationWarning"
            self._add(node.args[0], name or "DeprecationWarning", node.lineno)
        elif len(node.args) > 1 and _is_error_class(_callee(node.args[0]) or ""):
            # DDP's self._log_and_throw(RuntimeError, message)
            self._add(node.args[1], _callee(node.args[0]), node.lineno)
        elif callee == "disable_saved_tensors_hooks" and node.args:
            # torch.autograd.graph.disable_saved_tensors_hooks(message) raises it as a
            # RuntimeError where hooks are registered (functorch's transforms).
            self._add(node.args[0], "RuntimeError", node.lineno)
        elif callee and _is_error_class(callee):
            # Raised, or made to be raised later (``DelayedError(message)``, ``err = X(...)``).
            self._add(_message_argument(node), callee, node.lineno)
        elif callee in CHECKS and _is_torch_attribute(func):
            self._add(_lambda_body(_argument(node, 1, "message")), CHECKS[callee], node.lineno)
        elif callee == "_check_with" and _is_torch_attribute(func):
            exception = _callee(node.args[0]) if node.args else None
            self._add(_lambda_body(_argument(node, 2, "message")), exception, node.lineno)
        self.generic_visit(node)

    def _add(self, message: ast.expr | None, exception: str | None, line: int) -> None:
        parts = self._parts(message, depth=0)
        template = finish(parts) if parts is not None else None
        if template is None:
            self.dropped["no literal wording"] += 1
            return
        self.found.append(Found(template, exception, self.file, line))

    def _parts(self, node: ast.expr | None, depth: int) -> Parts | None:
        """The message as literal text and holes; None when it has no text of its own."""
        if node is None or depth > 8:
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bytes):  # DelayedError(b"...") decodes its message
                return [node.value.decode("utf-8", "replace")]
            return [node.value] if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            parts: Parts = []
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    parts.append(value.value)
                elif isinstance(value, ast.FormattedValue):
                    parts.append(Hole(hole_name(value.value)))
            return parts
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self._parts(node.left, depth + 1)
            right = self._parts(node.right, depth + 1)
            if left is None and right is None:
                return None
            return (left or [Hole(hole_name(node.left))]) + (right or [Hole(hole_name(node.right))])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = self._parts(node.left, depth + 1)
            if left is None or len(left) != 1 or not isinstance(left[0], str):
                return left
            return _percent_parts(left[0])
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
        ):
            base = self._parts(node.func.value, depth + 1)
            if base is None or len(base) != 1 or not isinstance(base[0], str):
                return base
            return _format_parts(base[0])
        if isinstance(node, ast.Name):
            # The innermost scope that assigns it: a closure reads its enclosing function's
            # (functorch's message, passed on by a nested function), then the module's.
            assigned = next(
                (scope[node.id] for scope in reversed(self._scopes) if node.id in scope), None
            )
            if assigned:
                before = [value for line, value in assigned if line <= node.lineno]
                if before:
                    return self._parts(before[-1], depth + 1)
            return None
        if isinstance(node, ast.Call) and _callee(node.func) in self._functions:
            return self._returned(self._functions[str(_callee(node.func))], depth + 1)
        if isinstance(node, ast.IfExp):
            return self._parts(node.body, depth + 1) or self._parts(node.orelse, depth + 1)
        if isinstance(node, ast.Call) and _callee(node.func) in ("dedent", "strip", "join"):
            if _callee(node.func) == "strip" and isinstance(node.func, ast.Attribute):
                return self._parts(node.func.value, depth + 1)
            return self._parts(node.args[0], depth + 1) if node.args else None
        return None

    def _returned(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, depth: int
    ) -> Parts | None:
        """The message a function returns, read in its own scope."""
        returns = [
            n for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None
        ]
        if not returns or depth > 4:
            return None
        scope: dict[str, list[tuple[int, ast.expr]]] = {}
        assigns = sorted(
            (n for n in ast.walk(function) if isinstance(n, ast.Assign)), key=lambda n: n.lineno
        )
        for assign in assigns:
            for target in assign.targets:
                if isinstance(target, ast.Name):
                    scope.setdefault(target.id, []).append((assign.lineno, assign.value))
        self._scopes.append(scope)
        try:
            return self._parts(returns[-1].value, depth)
        finally:
            self._scopes.pop()


def _percent_parts(text: str) -> Parts:
    parts: Parts = []
    pos = 0
    for match in re.finditer(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgxe%]", text):
        parts.append(text[pos : match.start()])
        parts.append("%" if match.group(0) == "%%" else Hole(match.group(1) or "value"))
        pos = match.end()
    parts.append(text[pos:])
    return parts


def _format_parts(text: str) -> Parts:
    parts: Parts = []
    pos = 0
    for match in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}", text):
        parts.append(text[pos : match.start()])
        if match.group(0) in ("{{", "}}"):
            parts.append(match.group(0)[0])
        else:
            name = re.split(r"[.\[:!]", match.group(1) or "")[0]
            parts.append(Hole(_identifier(name) if name and not name.isdigit() else "value"))
        pos = match.end()
    parts.append(text[pos:])
    return parts


def _callee(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _callee(node.func)
    return None


def _is_error_class(name: str) -> bool:
    return name[:1].isupper() and name.endswith(("Error", "Exception", "Warning"))


def _message_argument(call: ast.Call) -> ast.expr | None:
    return call.args[0] if call.args else _keyword(call, "msg", "message")


def _is_warnings_warn(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return True  # from warnings import warn
    return isinstance(func, ast.Attribute) and _callee(func.value) == "warnings"


def _is_torch_attribute(func: ast.expr) -> bool:
    return isinstance(func, ast.Name) or (
        isinstance(func, ast.Attribute) and _callee(func.value) == "torch"
    )


def _keyword(call: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in names), None)


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    return call.args[position] if len(call.args) > position else _keyword(call, name)


def _lambda_body(node: ast.expr | None) -> ast.expr | None:
    return node.body if isinstance(node, ast.Lambda) else node


def in_area(path: str, prefixes: Iterable[str]) -> bool:
    return any(path.startswith(p) for p in prefixes) and not any(
        path.startswith(p) for p in AREA.excluded
    )


def python_messages(torch_dir: Path) -> tuple[list[Found], dict[str, int], int]:
    """Every message of the area's Python files, what was dropped, and how many files."""
    site = torch_dir.parent
    found: list[Found] = []
    dropped: defaultdict[str, int] = defaultdict(int)
    files = sorted(
        path
        for path in torch_dir.rglob("*.py")
        if in_area(path.relative_to(site).as_posix(), AREA.python)
    )
    for path in files:
        relative = path.relative_to(site).as_posix()
        module = ast.parse(path.read_text(encoding="utf-8"), relative)
        visitor = _Messages(relative, module)
        visitor.visit(module)
        found += visitor.found
        for reason, count in visitor.dropped.items():
            dropped[reason] += count
    return found, dict(dropped), len(files)


# --- C++ -------------------------------------------------------------------------------------

_SOURCE_PATH = re.compile(
    r"(?:^|/)((?:torch|c10|aten|caffe2|build|third_party)/[^\"\s]+\.(?:cpp|h|hpp|cc|cu|cuh))$"
)
_ASSERT = re.compile(r"INTERNAL ASSERT FAILED at \"[^\"]*?/((?:torch|c10|aten)/[^\"]+)\":\d+")
_SCHEMA = re.compile(r"^[\w.:]+(?:\.\w+)?\(.*\)\s*->")
#: The Python argument parser's signatures: ``celu_(Tensor input, Scalar alpha=1.0)``.
_SIGNATURE = re.compile(r"^[\w.]+\((?:[A-Z*]|\)|int64_t|double|bool|c10::)[^()]*\)$")
_DOCUMENTATION = ("Args:", "Arguments:", "Returns:", "Example::", "\n.. ")


def rodata_strings(library: Path) -> Iterator[str]:
    """The NUL-terminated strings of an ELF library's ``.rodata``, in their order there."""
    data = library.read_bytes()
    (section_offset,) = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, section_offset + i * entry_size)
        for i in range(count)
    ]
    names_at = sections[names_index][4]
    for section in sections:
        start = names_at + section[0]
        if data[start : data.index(b"\0", start)] == b".rodata":
            for raw in data[section[4] : section[4] + section[5]].split(b"\0"):
                if len(raw) >= MIN_LITERAL:
                    try:
                        yield raw.decode("utf-8")
                    except UnicodeDecodeError:
                        continue


def is_message(text: str) -> bool:
    """Whether a library string reads as a message or a piece of one, not a name, path or
    schema: three words at least; a piece torch puts after a value (it starts with a space or a
    punctuation mark) needs 20 characters."""
    words = text.split()
    continues = text[:1].isspace() or text[:1] in ",.;:)]}'\"-"
    return (
        len(words) >= 3
        and len(text.strip()) >= (20 if continues else 15)
        and any(c.islower() for c in text)
        and "INTERNAL ASSERT FAILED" not in text
        and not _SCHEMA.match(text)
        and not _SIGNATURE.match(text)
        and ") -> " not in text
        and not any(marker in text for marker in _DOCUMENTATION)
    )


def library_messages(
    torch_dir: Path, edge_texts: list[str], headers: dict[str, tuple[str, int, str | None]]
) -> tuple[list[tuple[str, str]], dict[str, int], list[str]]:
    """(file, string) for each message string of the area in the release's libraries."""
    found: list[tuple[str, str]] = []
    dropped: defaultdict[str, int] = defaultdict(int)
    read: list[str] = []
    for name in LIBRARIES:
        library = torch_dir / "lib" / name
        if not library.exists():
            continue
        read.append(name)
        current: str | None = None
        for text in rodata_strings(library):
            # Only a translation unit's own file says where its strings come from: a header
            # named here is included by many, and its strings are found by header_literals.
            path = _SOURCE_PATH.search(text) if len(text) < 300 else None
            if path:
                current = path.group(1) if _is_unit(path.group(1)) else current
                continue
            asserted = _ASSERT.search(text)
            if asserted:
                current = asserted.group(1) if _is_unit(asserted.group(1)) else current
                if in_area(asserted.group(1), AREA.cpp):
                    dropped["internal assert"] += 1
                continue
            if not (is_message(text) or _in_wording(text, edge_texts)):
                continue
            # Before any unit names itself, a string is located by its library alone.
            file = headers[text][0] if text in headers else current or f"torch/lib/{name}"
            if in_area(file, AREA.cpp) or (
                file.startswith(TORCH_SOURCES) and _in_wording(text, edge_texts)
            ):
                found.append((file, text))
    return found, dict(dropped), read


def _is_unit(file: str) -> bool:
    return file.endswith((".cpp", ".cc", ".cu"))


def _in_wording(text: str, wordings: list[str]) -> bool:
    """Whether the string is a piece of an entry's wording: two words, 10 characters at least."""
    bare = "".join(text.split())
    return (
        len(bare) >= MIN_PIECE
        and len(text.split()) >= 2
        and any(bare in wording for wording in wordings)
    )


_TOKEN = re.compile(r"^([^\w]*)([\w.:<>]+?)([^\w]*)$")


def collapse(strings: list[str]) -> dict[str, str]:
    """Strings that differ in one identifier only, three or more: one template with ``{op}``."""
    groups: defaultdict[tuple[str, ...], set[str]] = defaultdict(set)
    for text in strings:
        tokens = text.split(" ")
        for index, token in enumerate(tokens):
            shape = _TOKEN.match(token)
            if shape and re.search(r"[a-z_]", shape.group(2)):
                masked = f"{shape.group(1)}\0{shape.group(3)}"
                groups[(*tokens[:index], masked, *tokens[index + 1 :])].add(text)
    templates: dict[str, str] = {}
    for key, members in sorted(groups.items(), key=lambda item: -len(item[1])):
        if len(members) < 3:
            break
        template = " ".join(escape(t) for t in key).replace("\0", "{op:op}")
        if literal_chars(template) < MIN_PIECE:
            continue
        for text in members:
            templates.setdefault(text, template)
    return templates


def cpp_template(text: str) -> tuple[str, bool]:
    """A library string as a template, and whether it is a piece of a message torch assembles
    with values: it starts after one (a space or a mark first) or ends where one goes."""
    ends_open = text != text.rstrip() or text.rstrip()[-1:] in "[(:'=,\"`"
    starts_open = text[:1].isspace() or text[:1] in ",.;:)]}'\"-"
    parts: Parts = []
    pos = 0
    stripped = text.strip()
    # fmt's "{}" and printf's "%s" are where the value goes (torch/csrc/autograd/python_*).
    for match in re.finditer(r"\{(?:\d*|:[^{}]*)\}|%l?[sdzu]", stripped):
        parts += [stripped[pos : match.start()], Hole("value")]
        pos = match.end()
    parts.append(stripped[pos:])
    template = finish(parts) if len(parts) > 1 else escape(stripped)
    return template or escape(stripped), ends_open or starts_open


_LITERALS = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def header_literals(torch_dir: Path) -> dict[str, tuple[str, int, str | None]]:
    """String literal -> (file, line, class) for every header of the area the wheel ships.

    A header's inline functions put their strings in whichever translation unit uses them first,
    so a string found in one of these headers is located there, not by its neighbours."""
    include = torch_dir / "include"
    literals: dict[str, tuple[str, int, str | None]] = {}
    for header in sorted(include.rglob("*.h")):
        relative = header.relative_to(include).as_posix()
        file = "aten/src/" + relative if relative.startswith("ATen/") else relative
        if not in_area(file, AREA.cpp):
            continue
        source = header.read_text(encoding="utf-8", errors="replace")
        for match in _LITERALS.finditer(source):
            pieces = re.findall(r'"((?:[^"\\\n]|\\.)*)"', match.group(0))
            text = re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(1)), "".join(pieces))
            if len(text) < MIN_LITERAL or text in literals:
                continue
            line = source.count("\n", 0, match.start()) + 1
            before = source[max(0, match.start() - 400) : match.start()]
            macro = max(
                ((before.rfind(m), cls) for m, cls in MACROS if m in before), default=(-1, None)
            )
            literals[text] = (file, line, macro[1])
    return literals


# --- the inventory ---------------------------------------------------------------------------


@dataclass
class Message:
    template: str
    source: str  # "python" or "c++"
    exception: str | None
    prefix: bool = False
    locations: dict[str, set[str]] = field(default_factory=dict)
    covered_by: list[dict[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return message_id(self.template)


def catalog_wording_texts(cat: catalog_module.Catalog) -> list[str]:
    """Every wording of every entry, whitespace-free, without its placeholders' values."""
    return [
        chunk
        for entry in cat
        for wording in entry.wordings
        for chunk in "".join(wording.message.split()).replace("{{", "{").split("{")
    ]


def collect(releases: dict[str, Path], cat: catalog_module.Catalog) -> tuple[dict, list[Message]]:
    # One record per template: a text both a Python file and a library hold (a message a C++
    # binding repeats) is one message, with both locations; it is "python", the richer source.
    messages: dict[str, Message] = {}
    about: dict[str, dict] = {}
    edge_texts = catalog_wording_texts(cat)
    for release, torch_dir in releases.items():
        python, dropped, files = python_messages(torch_dir)
        for found in python:
            message = messages.setdefault(
                found.template, Message(found.template, "python", found.exception)
            )
            message.locations.setdefault(release, set()).add(f"{found.file}:{found.line}")
        headers = header_literals(torch_dir)
        strings, cpp_dropped, libraries = library_messages(torch_dir, edge_texts, headers)
        collapsed = collapse(sorted({text for _, text in strings}))
        for file, text in strings:
            template, prefix = cpp_template(text)
            template = collapsed.get(text, template)
            _, line, exception = headers.get(text, (file, None, None))
            message = messages.setdefault(template, Message(template, "c++", exception, prefix))
            message.exception = message.exception or exception
            where = file if line is None else f"{file}:{line}"
            message.locations.setdefault(release, set()).add(where)
        version = (torch_dir / "version.py").read_text(encoding="utf-8")
        git = re.search(r"git_version = '(\w+)'", version)
        about[release] = {
            "git_version": git.group(1) if git else None,
            "python_files": files,
            "libraries": libraries,
            "dropped": {**dropped, **cpp_dropped},
        }
    inventory = sorted(messages.values(), key=_order)
    cover(inventory, cat)
    return about, inventory


def _order(message: Message) -> tuple[str, int, str]:
    release = REFERENCE if REFERENCE in message.locations else max(message.locations)
    first = sorted(message.locations[release])[0]
    file, _, line = first.partition(":")
    return file, int(line or 0), message.template


def forward_matches(template: str, cat: catalog_module.Catalog) -> list[Match]:
    """The matches of the message rendered with sample values that stand for it: whole, or cut
    off where the message stops (not where only its first sentences agree with a wording)."""
    rendered = render(template)
    whole = skeleton(rendered)
    return [
        match
        for match in find_matches(rendered, cat)
        if match.kind == "exact" or whole.ends_line(match.end)
    ]


def cover(inventory: list[Message], cat: catalog_module.Catalog) -> None:
    """The entries covering each message, in both directions.

    forward: the project's matcher, on the message rendered with sample values, finds the
    entry's wording (whole, or cut off where the message stops); reverse: the message's own
    template is found inside one of the entry's wordings (rendered, or its real example).
    """
    patterns = {
        message.id: reverse_pattern(message.template)
        for message in inventory
        if literal_chars(message.template) >= MIN_REVERSE_LITERAL
        or (message.source == "c++" and literal_chars(message.template) >= MIN_PIECE)
    }
    wordings = [
        (entry.id, wording.variant, "".join(text.split()))
        for entry in cat
        for wording in entry.wordings
        for text in (render(wording.message), wording.example)
        if text
    ]
    for message in inventory:
        how: dict[tuple[str, str], set[str]] = defaultdict(set)
        for match in forward_matches(message.template, cat):
            how[(match.entry.id, match.wording.variant)].add("forward")
        pattern = patterns.get(message.id)
        if pattern is not None:
            for entry_id, variant, text in wordings:
                if pattern.search(text):
                    how[(entry_id, variant)].add("reverse")
        message.covered_by = [
            {"entry": entry_id, "wording": variant, "how": "+".join(sorted(directions))}
            for (entry_id, variant), directions in sorted(how.items())
        ]


# --- counts and ranking ----------------------------------------------------------------------


def thread_counts(counts: dict, inventory: list[Message]) -> dict[str, set[str]]:
    """Message id -> the threads (addresses) counted as quoting it, over every query.

    A thread quotes message ids, or ``entry:wording``: a catalog wording it quotes, which
    counts for every message that wording covers (the pieces of a C++ message, its sentences).
    """
    covering: defaultdict[str, set[str]] = defaultdict(set)
    for message in inventory:
        for cover in message.covered_by:
            covering[f"{cover['entry']}:{cover['wording']}"].add(message.id)
    threads: defaultdict[str, set[str]] = defaultdict(set)
    for query in counts.get("queries", []):
        for url, quoted in query.get("threads", {}).items():
            for target in quoted:
                for message in covering.get(target, {target}):
                    threads[message].add(url)
    return threads


def counted_ids(counts: dict, inventory: list[Message]) -> set[str]:
    """The messages some query looked for: its ``for``, as message ids. A query for one of an
    entry's wordings looked for the entry: every message the entry covers was looked for."""
    by_entry: defaultdict[str, set[str]] = defaultdict(set)
    for message in inventory:
        for cover in message.covered_by:
            by_entry[cover["entry"]].add(message.id)
    return {
        message
        for query in counts.get("queries", [])
        for target in query.get("for", [])
        for message in by_entry.get(target.partition(":")[0], {target})
    }


def ranking(inventory: list[Message], counts: dict) -> list[dict]:
    """The messages no entry covers that were counted, most threads first."""
    threads = thread_counts(counts, inventory)
    counted = counted_ids(counts, inventory)
    families = counts.get("families", {})
    rows = [
        {
            "id": m.id,
            "threads": len(threads.get(m.id, ())),
            "template": m.template,
            "exception": m.exception,
            "location": sorted(m.locations.get(REFERENCE) or m.locations[max(m.locations)])[0],
            "family": next((f for f, ids in families.items() if m.id in ids), None),
        }
        for m in inventory
        if not m.covered_by and (m.id in counted or m.id in threads)
    ]
    return sorted(rows, key=lambda row: (-row["threads"], row["location"], row["id"]))


def coverage_counts(inventory: list[Message], counts: dict) -> dict[str, int]:
    """Message id -> its thread count, for every message counted (covered or not)."""
    threads = thread_counts(counts, inventory)
    counted = counted_ids(counts, inventory) | set(threads)
    return {m.id: len(threads.get(m.id, ())) for m in inventory if m.id in counted}


def as_record(message: Message, threads: dict[str, int]) -> dict:
    return {
        "id": message.id,
        "source": message.source,
        "exception": message.exception,
        "template": message.template,
        "prefix": message.prefix,
        "locations": {r: sorted(where) for r, where in sorted(message.locations.items())},
        "covered_by": message.covered_by,
        "threads": threads.get(message.id),
    }


def write_json(path: Path, data: object, list_key: str | None = None) -> None:
    """JSON with one line per record of ``data[list_key]``: a diff shows the messages changed."""
    if list_key is None or not isinstance(data, dict):
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    head = {k: v for k, v in data.items() if k != list_key}
    text = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
    rows = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in data[list_key])
    text += f',\n "{list_key}": [\n{rows}\n ]\n}}\n'
    path.write_text(text, encoding="utf-8")


ABOUT = (
    "Every message torch raises or warns in the autograd area, per release, written by "
    "tools/inventory.py (its docstring says how they are found, what the area includes and "
    "what is left out). template: the catalog's template syntax; locations: file:line in the "
    "wheel of each release (C++: the file the library's strings name, with a line for headers "
    "the wheel ships); prefix: a C++ message torch continues with values after this text; "
    "covered_by: the catalog entries whose wording the project's matcher finds in the message "
    "(forward) or in which the message is found (reverse); threads: the public threads counted "
    "as quoting it (counts.json says how), null where it was not counted."
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Reads the wheels only: no network, no torch import.",
    )
    parser.add_argument(
        "--torch",
        action="append",
        metavar="RELEASE=TORCH_DIR",
        help="a release and its installed torch package (repeat; default: "
        + ", ".join(f"{r}={p}" for r, p in DEFAULT_TORCH.items())
        + ")",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "data" / "inventory",
        help="where messages.json and ranking.json go, and counts.json is read (default: "
        "data/inventory)",
    )
    parser.add_argument(
        "--cover",
        action="store_true",
        help="find the covering entries of the existing messages.json again, reading no wheel",
    )
    args = parser.parse_args(argv)
    if args.cover:
        return recover(args.out)
    releases = dict(DEFAULT_TORCH)
    if args.torch:
        releases = {}
        for item in args.torch:
            release, _, where = item.partition("=")
            releases[release] = Path(where)
    for release, where in releases.items():
        if not (where / "version.py").exists():
            print(f"inventory: no torch package at {where} (for {release})", file=sys.stderr)
            return 2
    cat = catalog_module.load(use_cache=False)
    about, inventory = collect(releases, cat)
    return write_inventory(args.out, about, inventory)


def recover(out: Path) -> int:
    """``--cover``: the messages of ``out/messages.json``, covered by the current catalog."""
    path = out / "messages.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        inventory = [
            Message(
                record["template"],
                record["source"],
                record["exception"],
                record["prefix"],
                {release: set(where) for release, where in record["locations"].items()},
            )
            for record in data["messages"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"inventory: cannot read {path}: {error}", file=sys.stderr)
        return 2
    cover(inventory, catalog_module.load(use_cache=False))
    return write_inventory(out, data["releases"], inventory)


def write_inventory(out: Path, about: dict, inventory: list[Message]) -> int:
    """Write ``messages.json`` and ``ranking.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    counts_file = out / "counts.json"
    counts = json.loads(counts_file.read_text(encoding="utf-8")) if counts_file.exists() else {}
    threads = coverage_counts(inventory, counts)
    write_json(
        out / "messages.json",
        {
            "_about": ABOUT,
            "reference": REFERENCE,
            "counted": {"date": counts.get("date"), "method": "counts.json"},
            "releases": about,
            "area": {"python": AREA.python, "cpp": AREA.cpp, "excluded": AREA.excluded},
            "messages": [as_record(m, threads) for m in inventory],
        },
        "messages",
    )
    write_json(
        out / "ranking.json",
        {
            "_about": "The messages no entry covers that were counted, most threads first: "
            "messages.json and counts.json joined by tools/inventory.py.",
            "date": counts.get("date"),
            "ranking": ranking(inventory, counts),
        },
        "ranking",
    )
    covered = sum(1 for m in inventory if m.covered_by)
    print(f"{len(inventory)} messages, {covered} covered by an entry, written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
