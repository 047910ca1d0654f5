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
