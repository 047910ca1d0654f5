"""The command table: usage, help, parsing and dispatch all come from its rows."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from autograd_errors.cli import output, table
from autograd_errors.cli.table import COMMANDS, OPTIONS, UsageError, help_text, parse, usage

USAGE, HELP = usage(), help_text()

CLI = Path(table.__file__).parent


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_every_command_is_in_the_usage_and_the_help_and_runs_a_function(command):
    assert f"autograd-errors {command.name}" in USAGE
    assert f"\n  {command.name} " in HELP
    module_name, _, function = command.runner.partition(":")
    assert callable(
        getattr(importlib.import_module(f"autograd_errors.cli.{module_name}"), function)
    )


@pytest.mark.parametrize("option", OPTIONS.values(), ids=list(OPTIONS))
def test_every_option_is_in_the_help_and_taken_by_a_command(option):
    assert f"  {', '.join((*option.names[:-1], option.shown))} " in HELP
    assert any(option.attribute in command.options for command in COMMANDS.values())


def test_usage_and_help_lines_fit_100_columns():
    assert [line for line in HELP.splitlines() if len(line) > 100] == []


def test_an_option_is_taken_only_by_the_commands_whose_row_names_it():
    assert parse(["explain", "--json", "--lang=zh", "x"]).json
    assert parse(["explain", "--lang", "zh", "x"]).lang == "zh_CN"
    with pytest.raises(UsageError, match=r"^unknown option '--json' for record$"):
        parse(["record", "--json"])
    with pytest.raises(UsageError, match=r"^unknown option '--json=1' for list$"):
        parse(["list", "--json=1"])


def test_arguments_are_counted_as_the_row_says():
    assert parse(["show", "leaf-inplace"]).args == ["leaf-inplace"]
    with pytest.raises(UsageError, match=r"^show needs an argument$"):
        parse(["show"])
    with pytest.raises(UsageError, match=r"^list takes no arguments$"):
        parse(["list", "extra"])
    assert parse(["explain", "--", "--json"]).args == ["--json"]


def test_run_keeps_the_programs_own_arguments():
    assert parse(["run", "train.py", "--json", "-v"]).args == ["train.py", "--json", "-v"]


def test_a_bad_option_value_is_one_line_without_the_usage():
    with pytest.raises(UsageError, match=r"^--lang must be en or zh, not 'fr'$") as caught:
        parse(["list", "--lang", "fr"])
    assert not caught.value.show_usage


def test_no_command_prints_on_its_own():
    """Every command writes through :mod:`.output` (text made safe, JSON made valid, the exit
    code kept): none calls ``print`` or ``json.dumps`` itself, but for its errors on stderr."""
    printing = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "output.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            to_stderr = any(
                keyword.arg == "file" and "stderr" in ast.unparse(keyword.value)
                for keyword in node.keywords
            )
            if name in ("print", "dumps") and not to_stderr:
                printing.append(f"{path.name}:{node.lineno}")
    assert printing == []


def test_json_of_any_text_is_valid_and_safe():
    import json

    text = output.json_text({"query": "\u202ebidi\u2028 \x9b"})
    assert json.loads(text) == {"query": "\u202ebidi\u2028 \x9b"}
    assert all(char not in text for char in output.UNSAFE)
