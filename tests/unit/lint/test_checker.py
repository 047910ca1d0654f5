"""One file checked (``autograd_errors.lint.checker``): ``# noqa`` as flake8 reads it, a file
that does not parse, columns in characters, flake8's order."""

import pytest

from autograd_errors.lint.checker import check_source, suppressions

STEP = b"for x, y in loader:\n    loss = f(x, y)\n    loss.backward()\n    optimizer.step()%s\n"


def codes(source, **options):
    return [(finding.line, finding.code) for finding in check_source(source, "t.py", **options)]


@pytest.mark.parametrize(
    ("comment", "reported"),
    [
        (b"", True),
        (b"  # noqa", False),
        (b"  # NOQA", False),
        (b"  #noqa", False),
        (b"  # noqa: AE501", False),
        (b"  # noqa:AE501", False),
        (b"  # noqa: AE5", False),  # a prefix, as flake8 takes it
        (b"  # noqa: E501, AE501", False),
        (b"  # noqa: AE101", True),  # another code
        (b"  # noqa: E501", True),
        (b"  # no qa", True),
    ],
)
def test_noqa(comment, reported):
    assert codes(STEP % comment) == ([(4, "AE501")] if reported else [])


def test_noqa_on_any_line_of_a_statement_spread_over_several():
    source = (
        b"for x in loader:\n    f(x).backward()\n"
        b"    optimizer.step(\n        closure=None,  # noqa: AE501\n    )\n"
    )
    assert codes(source) == []
    assert codes(source.replace(b"  # noqa: AE501", b"")) == [(3, "AE501")]


def test_noqa_inside_a_string_is_not_a_comment():
    source = STEP % b'; note = "# noqa"'
    assert codes(source) == [(4, "AE501")]


def test_suppressions_map_lines_to_codes():
    source = b"a = 1  # noqa\nb = 2  # noqa: AE101,AE2\nc = 3\n"
    assert suppressions(source) == {1: ("*",), 2: ("AE101", "AE2")}


@pytest.mark.parametrize(
    ("source", "line", "col", "reason"),
    [
        (b"def f(:\n    pass\n", 1, 7, "SyntaxError: invalid syntax"),
        (b"x = 1\nprint('x'\n", 2, 6, "SyntaxError: '(' was never closed"),
        (b"x = 1\n\x00\n", 1, 1, "source code string cannot contain null bytes"),
        (b"x = '\xff'\n", 1, 8, "SyntaxError: (unicode error) 'utf-8' codec can't decode"),
        (b"if True:\n  x = 1\n    y = 2\n", 3, 4, "IndentationError: unexpected indent"),
    ],
)
def test_a_file_that_does_not_parse_is_one_finding(source, line, col, reason):
    """One finding where Python's parser stopped (its line, and its column from 1)."""
    (finding,) = check_source(source, "t.py")
    assert (finding.line, finding.col, finding.code, finding.entry) == (line, col, "AE000", None)
    assert finding.message.startswith("cannot check this file: ")
    assert reason in finding.message


def test_a_parse_error_can_be_ignored():
    assert check_source(b"def f(:\n", "t.py", ignore=["AE000"]) == []


def test_columns_count_characters_not_bytes():
    source = "# coding: utf-8\nfor x in 数据:\n    f(x).backward(); 优化器 = 1; optimizer.step()\n"
    (finding,) = check_source(source.encode(), "t.py")
    assert (finding.line, finding.col) == (3, 5 + len("f(x).backward(); 优化器 = 1; "))


def test_a_declared_encoding_is_read():
    source = (
        "# -*- coding: latin-1 -*-\nfor x in données:\n    f(x).backward()\n    optimizer.step()\n"
    )
    assert codes(source.encode("latin-1")) == [(4, "AE501")]


def test_findings_come_in_flake8s_order_and_once():
    source = (
        b"loss = f(x).detach()\nloss.requires_grad = True\nloss.backward()\n"
        b"for x in loader:\n    g(x).backward()\n    optimizer.step()\n"
    )
    assert codes(source) == [(2, "AE101"), (6, "AE501")]


def test_the_language_of_the_messages():
    (finding,) = check_source(STEP % b"", "t.py", language="zh_CN")
    assert finding.message.startswith("这个循环调用了 backward() 和 `optimizer.step()`")


def test_deeply_nested_code_is_reported_not_crashed():
    source = b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n"
    (finding,) = check_source(source, "t.py")
    assert finding.code == "AE000"
    chain = b"x = a" + b".b" * 200_000 + b"\n"
    assert {f.code for f in check_source(chain, "t.py")} <= {"AE000"}
