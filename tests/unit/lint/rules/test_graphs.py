"""The AE3 rules (``autograd_errors.lint.rules.graphs``) on their eval files: each fires on
the lines marked with its code and nowhere else, written correctly it stays silent."""

import pytest
from lint_cases import compare, eval_file

from autograd_errors.lint.registry import active

CODES = [rule.code for rule in active() if rule.code.startswith("AE3")]


def test_the_family_has_rules():
    assert CODES


@pytest.mark.parametrize("code", CODES)
def test_eval_file(code):
    assert compare(eval_file(code)) == ""
