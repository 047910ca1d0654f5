"""The package's layers, as folders, import one another downward only, without a cycle.

Each module's imports are found in its source with :mod:`ast` (those inside functions and
``TYPE_CHECKING`` blocks too). They form a graph with no loop, and every import between two
folders runs from a higher layer to a lower one (:data:`LAYERS`, docs/contributing.md "The
rooms"). Two layers are reserved for code being written elsewhere: ``diagnosis/`` (imports
torch lazily) and ``lint/`` (the standard library's :mod:`ast`).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "src" / "autograd_errors"
ROOT = "autograd_errors"

#: Lowest first. A module may import its own folder, and any folder of a lower layer. The
#: package's face (``autograd_errors/__init__.py``: the public API) stands above the surfaces
#: it hands on, and below the command line and the Sphinx extension, which read its version.
LAYERS = (
    {"messages", "interpreter"},
    {"catalog"},
    {"matcher"},
    {"rendering"},
    {"verification", "lint"},
    {"browser", "diagnosis"},
    {"hooks"},
    {"ipython", "pytest_plugin"},
    {ROOT},
    {"cli", "sphinxext"},
    {"__main__"},
)
RANK = {room: rank for rank, rooms in enumerate(LAYERS) for room in rooms}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module: str) -> str:
    """The folder (or top-level module) a module of the package belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def imported(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that the module at ``path`` imports, anywhere in its source."""
    return {target for target, _ in imports_of(path, modules) if target}


def imports_of(path: Path, modules: set[str]) -> list[tuple[str, str]]:
    """``(package module or "", imported name)`` for each import in the module at ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
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
            inside = target
            while inside and inside not in modules:
                inside = inside.rpartition(".")[0]
            found.append((inside if inside != name else "", target))
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    return {module_name(path): imported(path, modules) for path in paths}


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


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports between folders that do not run from a higher layer to a lower one."""
    return [
        f"{module} -> {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if room(module) != room(target) and RANK[room(module)] <= RANK[room(target)]
    ]


def test_no_module_of_the_package_imports_itself_through_others():
    assert find_cycle(import_graph()) == []


def test_every_folder_of_the_package_is_a_layer():
    rooms = {room(module) for module in import_graph()}
    assert rooms - set(RANK) == set()


def test_the_layers_import_downward_only():
    assert upward_imports(import_graph()) == []


def test_an_upward_import_is_found():
    graph = {"autograd_errors.catalog.model": {"autograd_errors.rendering.strings"}}
    assert upward_imports(graph) == [
        "autograd_errors.catalog.model -> autograd_errors.rendering.strings"
    ]


def test_the_cycle_finder_finds_a_cycle():
    # recordings and the judge imported each other before the judge was split.
    graph = {
        "autograd_errors.verification.recordings": {"autograd_errors.verification.judge"},
        "autograd_errors.verification.judge": {
            "autograd_errors.verification.gallery",
            "autograd_errors.verification.recordings",
        },
        "autograd_errors.verification.gallery": set(),
    }
    assert find_cycle(graph) == [
        "autograd_errors.verification.judge",
        "autograd_errors.verification.recordings",
        "autograd_errors.verification.judge",
    ]


def test_the_graph_sees_imports_in_functions_and_type_checking_blocks():
    graph = import_graph()
    assert "autograd_errors.verification.runner" in graph["autograd_errors.cli.checking"]
    recordings = graph["autograd_errors.verification.recordings"]
    assert "autograd_errors.verification.observer" in recordings  # TYPE_CHECKING
    assert "autograd_errors.sphinxext.verification" in graph["autograd_errors.sphinxext"]


def _third_party(path: Path, modules: set[str]) -> set[str]:
    return {
        target.split(".")[0]
        for inside, target in imports_of(path, modules)
        if not inside
        and target.split(".")[0] not in sys.stdlib_module_names
        and target.split(".")[0] != ROOT
    }


@pytest.mark.parametrize("folder", ["messages", "interpreter", "catalog", "matcher", "rendering"])
def test_the_explain_path_and_the_interpreter_use_the_standard_library_only(folder):
    modules = set(import_graph())
    paths = sorted((PACKAGE / folder).glob("*.py"))
    # Python 3.10 has no tomllib: the loader reads the records with tomli there.
    tomli = {("catalog", "loader.py")}
    assert {path.name: _third_party(path, modules) for path in paths} == {
        path.name: {"tomli"} if (folder, path.name) in tomli else set() for path in paths
    }


def test_lint_uses_the_standard_library_only():
    """``lint/``: the standard library's ast, the catalog's entries and their pages' URLs
    (``tomli``: tomllib's backport, on Python 3.10 only, as for the catalog)."""
    modules = set(import_graph())
    paths = sorted((PACKAGE / "lint").rglob("*.py"))
    assert {path.name: _third_party(path, modules) - {"tomli"} for path in paths} == {
        path.name: set() for path in paths
    }


def test_diagnosis_imports_torch_only_when_it_runs():
    """``diagnosis/`` instruments a script with torch, but importing it costs no torch: torch
    is imported inside functions, never at a module's top level."""
    top_level = {}
    for path in sorted((PACKAGE / "diagnosis").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level[path.name] = [
            name
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            if name == "torch" or name.startswith("torch.")
        ]
    # The recorder runs only inside the instrumented re-run of a failed program, where torch is
    # loaded already: its modules subclass torch's own (TorchFunctionMode), so import it.
    recording = {"calls.py", "recorder.py", "records.py"}
    assert {name: found for name, found in top_level.items() if found} == {
        name: found for name, found in top_level.items() if found and name in recording
    }
    assert set(top_level) >= recording  # the exemptions name modules that exist
