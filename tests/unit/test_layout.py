"""The package's modules import one another without a cycle: each module's imports, found in its
source with :mod:`ast` (those inside functions and ``TYPE_CHECKING`` blocks too), form a graph
with no loop."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "src" / "autograd_errors"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that the module at ``path`` imports, anywhere in its source."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from package import module` imports the module.
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    return {module_name(path): imported_modules(path, modules) for path in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph, as the modules along it, or [] when there is none."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*stack[stack.index(target) :], target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_no_module_of_the_package_imports_itself_through_others():
    assert find_cycle(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    # observations and verify imported each other before verify was split.
    graph = {
        "autograd_errors.observations": {"autograd_errors.verify"},
        "autograd_errors.verify": {"autograd_errors.gallery", "autograd_errors.observations"},
        "autograd_errors.gallery": set(),
    }
    assert find_cycle(graph) == [
        "autograd_errors.observations",
        "autograd_errors.verify",
        "autograd_errors.observations",
    ]


def test_the_graph_sees_imports_in_functions_and_type_checking_blocks():
    graph = import_graph()
    assert "autograd_errors.verify" in graph["autograd_errors.cli"]  # inside _check
    assert "autograd_errors.observe" in graph["autograd_errors.observations"]  # TYPE_CHECKING
    assert "autograd_errors.sphinxext.verification" in graph["autograd_errors.sphinxext"]
