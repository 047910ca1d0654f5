"""The explain path stays light: ``python -m autograd_errors explain`` imports nothing heavy,
and no folder of the package it does not need (docs/contributing.md, "The rooms")."""

from __future__ import annotations

import subprocess
import sys

from helpers import MESSAGES_2_13

LEAF = MESSAGES_2_13["leaf-inplace"]["message"]
#: The folders of the package the explain path may import.
EXPLAIN_PATH = {"messages", "catalog", "matcher", "rendering", "cli"}
#: What explain must never import: the torch-side layers, the site's, the code checker's.
NEVER = {"verification", "interpreter", "browser", "sphinxext", "diagnosis", "lint", "hooks"}


def imported_by_explain(cli_env: dict[str, str], *args: str) -> tuple[str, set[str]]:
    """What explain prints and the modules it imports, with the catalog's cache filled (by a
    first run, as any first use fills it)."""
    command = [sys.executable, "-m", "autograd_errors", "explain", *args]
    subprocess.run(command, capture_output=True, env=cli_env, timeout=60, check=False)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograd_errors", "explain", *args],
        capture_output=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines()}
    return result.stdout.decode(), imported


def test_explaining_imports_nothing_heavy(cli_env):
    shown, imported = imported_by_explain(cli_env, LEAF)
    assert shown.startswith("In-place change to a leaf tensor that requires grad  (leaf-inplace)\n")
    heavy = {
        "torch",
        "numpy",
        "sphinx",
        "docutils",
        "json",
        "re",
        "typing",
        "dataclasses",
        "argparse",
        "tomllib",
        "textwrap",
        "pathlib",
        "html",
        "zlib",  # a shared library to load: the cache's checksum is integer arithmetic
        "_bisect",  # another: the skeleton's few bisections are Python's own
    }
    assert imported & heavy == set()


def test_explaining_imports_only_the_folders_it_needs(cli_env):
    """Not verification, the interpreter's patches, the browser's export, the Sphinx extension,
    and never a diagnosis or the linter; the same for a paste without an exact match."""
    for paste in (LEAF, "this is not an error message of any kind"):
        _, imported = imported_by_explain(cli_env, paste)
        ours = {name.split(".")[1] for name in imported if name.startswith("autograd_errors.")}
        assert ours <= EXPLAIN_PATH
        assert ours & NEVER == set()


def test_the_command_table_loads_only_the_command_that_runs(cli_env):
    _, imported = imported_by_explain(cli_env, LEAF)
    commands = {name for name in imported if name.startswith("autograd_errors.cli.")}
    assert commands == {
        "autograd_errors.cli.explain",
        "autograd_errors.cli.output",
        "autograd_errors.cli.table",
    }


def test_an_exact_match_never_loads_the_partial_matcher():
    """Cold start: the partial matcher is imported only on its own path."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from autograd_errors import catalog\n"
        "from autograd_errors.matcher.matching import find_entries\n"
        "found = find_entries('a leaf Variable that requires grad is being used in an in-place "
        "operation.', catalog.load(use_cache=False))\n"
        "print(found.matches[0].entry.id, sorted(m for m in ('autograd_errors.matcher.fuzzy',"
        " 'autograd_errors.matcher.not_autograd') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout == "leaf-inplace []\n"


FREEZES = (
    "import atexit, gc, sys\n"
    "sys.argv = ['autograd-errors', *sys.argv[1:]]\n"
    "atexit.register(lambda: print('frozen' if gc.get_freeze_count() else 'collected'))\n"
    "from autograd_errors.cli import console\n"
    "raise SystemExit(console())\n"
)


def test_explain_ends_with_its_objects_frozen_out_of_the_collector(cli_env):
    """The interpreter's shutdown then skips full collections over every object it made."""
    run = subprocess.run(
        [sys.executable, "-c", FREEZES, "explain", LEAF],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0
    assert run.stdout.startswith("In-place change to a leaf tensor")
    assert run.stdout.endswith("\nfrozen\n")


def test_a_program_run_ends_as_under_python_its_cycles_collected(cli_env, tmp_path):
    """``run`` is ``python`` with answers: a cycle's finalizer in the program runs at exit."""
    program = tmp_path / "cycle.py"
    program.write_text(
        "class Node:\n"
        "    def __del__(self):\n"
        "        print('finalized')\n"
        "node = Node()\n"
        "node.me = node\n"
        "del node\n"
        "import gc\n"
        "gc.disable()\n"  # so that only the shutdown's collection can finalize it
    )
    plain = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=60, check=False
    )
    assert (plain.returncode, plain.stdout) == (0, "finalized\n")
    run = subprocess.run(
        [sys.executable, "-c", FREEZES, "run", str(program)],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, "collected\nfinalized\n")
