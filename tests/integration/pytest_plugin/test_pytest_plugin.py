"""The pytest plugin, run by pytest itself (pytester) on a failing test of its own."""

from __future__ import annotations

import pytest

FAILING_TESTS = """
import torch

def test_training_step():
    x = torch.randn(3, requires_grad=True)
    x += 1

def test_unrelated():
    assert {}.get("lr") == 0.1
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_model=FAILING_TESTS)
    return pytester


def test_without_asking_the_report_is_pytests_own(suite):
    result = suite.runpytest_subprocess()
    result.assert_outcomes(failed=2)
    assert "- autograd-errors -" not in result.stdout.str()


@pytest.mark.parametrize("asking", [["-p", "autograd_errors"], ["--autograd-errors"]])
def test_asked_for_a_failed_test_gets_its_answer(suite, asking):
    result = suite.runpytest_subprocess(*asking)
    result.assert_outcomes(failed=2)
    printed = result.stdout.str()
    assert printed.count("- autograd-errors -") == 1  # the torch error gets one, the other none
    result.stdout.fnmatch_lines(
        [
            "*_ test_training_step _*",
            "*RuntimeError: a leaf Variable that requires grad is being used in an in-place*",
            "*- autograd-errors -*",
            "In-place change to a leaf tensor that requires grad  (leaf-inplace)",
            "*More: https://autograd-errors.readthedocs.io/en/latest/errors/inplace/leaf-inplace.html",
            "*_ test_unrelated _*",
        ]
    )


def test_with_plugin_autoload_off_it_loads_by_name(suite, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = suite.runpytest_subprocess("-p", "autograd_errors")
    result.assert_outcomes(failed=2)
    assert "- autograd-errors -" in result.stdout.str()


#: A test module whose import raises a known autograd error (P10).
BROKEN_MODULE = """
import torch

x = torch.randn(3, requires_grad=True)
x += 1

def test_never_collected():
    pass
"""


def test_a_collection_error_gets_its_section(pytester):
    pytester.makepyfile(test_broken=BROKEN_MODULE)
    result = pytester.runpytest_subprocess("-p", "autograd_errors")
    result.assert_outcomes(errors=1)
    printed = result.stdout.str()
    assert printed.count("- autograd-errors -") == 1
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting test_broken.py*",
            "*RuntimeError: a leaf Variable that requires grad is being used in an in-place*",
            "*- autograd-errors -*",
            "In-place change to a leaf tensor that requires grad  (leaf-inplace)",
            "  Your line:*",
            "*test_broken.py*4",
            "    x += 1",
        ]
    )


def test_a_collection_error_of_another_kind_gets_none(pytester):
    pytester.makepyfile(test_broken="import no_such_module_here\n")
    result = pytester.runpytest_subprocess("-p", "autograd_errors")
    result.assert_outcomes(errors=1)
    assert "- autograd-errors -" not in result.stdout.str()


ZH_TITLE = "需要梯度的叶子张量被原地修改"


@pytest.mark.parametrize(
    ("asking", "env"),
    [
        (["--autograd-errors-lang", "zh"], {}),
        (["--autograd-errors-lang=zh_CN"], {"LC_ALL": "en_US.UTF-8"}),
        ([], {"LC_ALL": "zh_CN.UTF-8"}),
        ([], {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_SG.UTF-8"}),
    ],
)
def test_the_section_speaks_the_language_asked_for(suite, monkeypatch, asking, env):
    from helpers import english_left

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = suite.runpytest_subprocess("-p", "autograd_errors", *asking)
    result.assert_outcomes(failed=2)
    printed = result.stdout.str()
    section = printed.split("- autograd-errors -", 1)[1].split("\n_", 1)[0]
    assert f"{ZH_TITLE}  (leaf-inplace)" in section
    assert "/zh_CN/errors/inplace/leaf-inplace.html" in section
    assert english_left(section.split("\n", 1)[1]) == []


def test_an_english_locale_or_option_gives_english(suite, monkeypatch):
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    result = suite.runpytest_subprocess("-p", "autograd_errors", "--autograd-errors-lang", "en")
    assert "In-place change to a leaf tensor that requires grad  (leaf-inplace)" in (
        result.stdout.str()
    )


def test_an_unknown_language_is_a_usage_error(suite):
    result = suite.runpytest_subprocess("-p", "autograd_errors", "--autograd-errors-lang", "fr")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--autograd-errors-lang must be en or zh, not 'fr'" in result.stderr.str()
