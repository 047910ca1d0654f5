"""``pytest --autograd-errors-diagnose``: the failed test's culprit in the plugin's section,
run by pytest itself (pytester) on a project of two files: the bug in the module under test,
the failure in the test that calls it (issue 23)."""

from __future__ import annotations

import pytest

#: A residual block whose `out += x` changes the output sigmoid saved for its backward.
MODEL = """\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        out = torch.sigmoid(self.fc(x))
        out += x
        return out
"""
CHANGED_LINE, SAVED_LINE = 12, 11
TESTS = """\
import torch
from model import Block


def test_training_step():
    torch.manual_seed(0)
    block = Block()
    loss = block(torch.randn(2, 4)).sum()
    loss.backward()


def test_leaf_step():
    w = torch.randn(3, requires_grad=True)
    w += 1


def test_unrelated():
    assert {}.get("lr") == 0.1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(model=MODEL, test_train=TESTS)
    return pytester


def sections(printed: str) -> dict[str, str]:
    """The autograd-errors section of each failed test, by the test's name."""
    found = {}
    for block in printed.split("\n___")[1:]:
        name = block.split(" ")[1] if block.startswith("_") else block.split()[0]
        if "- autograd-errors -" in block:
            found[name.strip("_ ")] = block.split("- autograd-errors -", 1)[1]
    return found


def test_the_failed_test_gets_its_culprit_in_the_module_it_tests(project):
    result = project.runpytest_subprocess("--autograd-errors-diagnose")
    result.assert_outcomes(failed=3)
    found = sections(result.stdout.str())
    assert set(found) == {"test_training_step", "test_leaf_step"}  # the unrelated one: none
    section = found["test_training_step"]
    answer = section.index("(inplace-modified)")
    diagnosis = section.index("Diagnosis:")
    assert answer < diagnosis
    assert f"Culprit: model.py:{CHANGED_LINE} (changed in place)\n    out += x" in section
    assert f"Culprit: model.py:{SAVED_LINE} (saved for backward)" in section
    # The answer leads with the cause found there (said once: not again under the culprits).
    flat = " ".join(section[:diagnosis].split())
    assert "Most likely: An in-place operation on a tensor an operation saved" in flat
    assert f"the diagnosis found it at model.py:{CHANGED_LINE}." in flat
    assert "Cause:" not in section[diagnosis:]
    # Raised where the bug is: the test's own line, from its traceback.
    assert "Culprit: test_train.py:14 (raised)\n    w += 1" in found["test_leaf_step"]


def test_without_the_option_the_section_has_no_diagnosis(project):
    result = project.runpytest_subprocess("-p", "autograd_errors")
    result.assert_outcomes(failed=3)
    printed = result.stdout.str()
    assert "(inplace-modified)" in printed
    assert "Culprit:" not in printed


def test_the_diagnosis_speaks_chinese_when_asked(project):
    result = project.runpytest_subprocess(
        "--autograd-errors-diagnose", "--autograd-errors-lang", "zh"
    )
    section = sections(result.stdout.str())["test_training_step"]
    assert f"问题代码：model.py:{CHANGED_LINE} (原地修改)" in section
    assert "诊断：" in section
    assert "Culprit" not in section
