"""What ``autograd_errors.lint`` may import, as its ``__init__`` says: the standard library and
its own modules; the command also the interface's language (``autograd_errors.ui``), the flake8
plugin the package's version. Never torch or anything slow: lint runs without torch."""

import ast
import subprocess
import sys
from pathlib import Path

from lint_cases import REPO, TRAIN_SNIPPET

LINT = REPO / "src" / "autograd_errors" / "lint"
ALLOWED = {
    "command.py": {"autograd_errors.ui"},
    "flake8.py": {"autograd_errors"},
}


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_lint_imports_the_standard_library_and_itself_only():
    for path in LINT.rglob("*.py"):
        for name in imports(path):
            top = name.partition(".")[0]
            if name.startswith("autograd_errors.lint") or top in sys.stdlib_module_names:
                continue
            if top == "tomli":  # tomllib on Python 3.10
                continue
            assert name in ALLOWED.get(path.name, set()), f"{path.relative_to(REPO)} imports {name}"


def test_linting_imports_nothing_heavy(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN_SNIPPET)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograd_errors", "lint", "train.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "autograd_errors.lint.rules.training" in imported  # it did run the rules
    assert imported & {"torch", "numpy", "sphinx", "docutils", "autograd_errors.catalog"} == set()
