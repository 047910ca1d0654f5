"""``run`` in Chinese (issue 25): ``run --lang zh SCRIPT`` and the locale, as for ``explain``;
the options are the command's only before the program, and ``--`` runs a script whose name
looks like an option."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import english_left

PROGRAM = """\
import sys
import torch

print("argv:", sys.argv)
x = torch.randn(3, requires_grad=True)
x += 1
"""
ZH_TITLE = "需要梯度的叶子张量被原地修改"
RUN = (sys.executable, "-m", "autograd_errors", "run")


@pytest.fixture
def program(tmp_path):
    (tmp_path / "train.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "--lang").write_text(PROGRAM, encoding="utf-8")
    return tmp_path


def run(directory, *args: str, cli_env, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in cli_env.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [*RUN, *args],
        capture_output=True,
        encoding="utf-8",
        cwd=directory,
        env={**clean, **env},
        timeout=120,
        check=False,
    )


def answer_of(result: subprocess.CompletedProcess[str]) -> str:
    return result.stderr[result.stderr.index("\nautograd-errors: ") + 1 :]


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("--lang", "zh", "train.py"), {}),
        (("--lang=zh_CN", "train.py"), {"LC_ALL": "en_US.UTF-8"}),
        (("train.py",), {"LC_ALL": "zh_CN.UTF-8"}),
        (("train.py",), {"LANG": "zh_CN.UTF-8"}),
    ],
)
def test_run_speaks_the_language_of_lang_or_of_the_locale(program, cli_env, args, env):
    result = run(program, *args, cli_env=cli_env, **env)
    assert result.returncode == 1
    assert result.stdout == "argv: ['train.py']\n"  # --lang is not the program's
    answer = answer_of(result)
    assert answer.startswith(f"autograd-errors: {ZH_TITLE}")
    assert answer.rstrip().endswith("/zh_CN/errors/inplace/leaf-inplace.html")
    assert english_left(answer) == []


def test_lang_en_wins_over_a_chinese_locale(program, cli_env):
    result = run(program, "--lang", "en", "train.py", cli_env=cli_env, LC_ALL="zh_CN.UTF-8")
    assert answer_of(result).startswith("autograd-errors: In-place change to a leaf tensor")


def test_after_the_program_the_options_are_the_programs(program, cli_env):
    result = run(program, "train.py", "--lang", "zh", cli_env=cli_env)
    assert result.stdout == "argv: ['train.py', '--lang', 'zh']\n"
    assert answer_of(result).startswith("autograd-errors: In-place change")


def test_a_script_named_like_an_option_runs_after_dashes(program, cli_env):
    result = run(program, "--", "--lang", "zh", cli_env=cli_env)
    assert result.returncode == 1
    assert result.stdout == "argv: ['--lang', 'zh']\n"
    assert "(leaf-inplace)" in result.stderr
    with_lang = run(program, "--lang", "zh", "--", "--lang", cli_env=cli_env)
    assert with_lang.stdout == "argv: ['--lang']\n"
    assert answer_of(with_lang).startswith(f"autograd-errors: {ZH_TITLE}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--lang", "fr", "train.py"), "run: --lang must be en or zh, not 'fr'"),
        (("--lang",), "run: --lang needs en or zh"),
        (("--lang", "--", "train.py"), "run: --lang needs en or zh"),
        (("--lang", "zh"), "run needs a script, or -m and a module"),
        (("--",), "run needs a script, or -m and a module"),
    ],
)
def test_a_bad_lang_or_no_program_is_a_usage_error(program, cli_env, args, message):
    result = run(program, *args, cli_env=cli_env)
    assert result.returncode == 2
    assert result.stderr.startswith(f"autograd-errors: {message}\n")
    assert result.stdout == ""
