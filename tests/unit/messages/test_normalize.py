"""Cleaning pastes: what must go because it lands inside a message."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_errors.messages.normalize import MAX_CHARS, Skeleton, clean, decode, skeleton

MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
SKELETON = "aleafVariablethatrequiresgradisbeingusedinanin-placeoperation."


@pytest.mark.parametrize(
    ("paste", "why"),
    [
        (
            "\x1b[0;31mRuntimeError\x1b[0m: a leaf Variable that requires grad is "
            "being\x1b[1m used in an in-place operation.\x1b[0m",
            "ANSI colours (IPython, rich, pytest)",
        ),
        (
            "\x1b]8;;file:///t.py\x07a leaf Variable\x1b]8;;\x07 that requires grad is being "
            "used in an in-place operation.",
            "OSC 8 hyperlinks",
        ),
        (
            "RuntimeError: a leaf Variable that requires grad is being used in\r\nan in-place "
            "operation.\r\n",
            "CRLF line ends",
        ),
        (
            "> RuntimeError: a leaf Variable that requires grad is being used\n> in an in-place "
            "operation.",
            "markdown quoting",
        ),
        (
            "> > a leaf Variable that requires grad is being used\n> > in an in-place operation.",
            "nested quoting",
        ),
        (
            ">>> x += 1\n... a leaf Variable that requires grad is being used\n... in an in-place "
            "operation.",
            "Python prompts",
        ),
        (
            "In [3]: a leaf Variable that requires grad is being used\nin an in-place operation.",
            "IPython prompts",
        ),
        (
            "E       RuntimeError: a leaf Variable that requires grad is being used\nE       in an "
            "in-place operation.",
            "pytest failure lines",
        ),
        (
            "a leaf Variable that requires grad is\x00 being used in an\x0c in-place operation.",
            "NUL and form feeds",
        ),
        (
            "a leaf Variable that requires grad is being used in an in-place opera\ntion.",
            "a line a terminal cut mid-word",
        ),
        (
            "\ufeffa leaf Variable that requires grad is being used in an "
            "in-place\u200b operation.",
            "byte-order mark and zero-width space",
        ),
    ],
)
def test_what_splits_a_message_is_removed(paste, why):
    assert SKELETON in skeleton(paste).text, why


def test_text_around_a_message_is_left_alone():
    paste = '  File "t.py", line 3, in <module>\n    x += 1\nRuntimeError: ' + MESSAGE
    assert clean(paste) == paste


def test_a_greater_than_sign_inside_a_line_stays():
    assert clean("x -> y <lambda>") == "x -> y <lambda>"


def test_skeleton_remembers_line_and_word_breaks():
    sk = skeleton("ab cd\nef")
    assert sk.text == "abcdef"
    assert sk.breaks == [2, 4]
    assert sk.newline == [False, True]
    assert sk.ends_line(4)
    assert not sk.ends_line(2)
    assert sk.ends_line(6)
    assert sk.next_break(3) == 4
    assert sk.previous_break(3) == 2


@pytest.mark.parametrize("closing", ['"', "`", "'", "**", ")", "...", "\u2026", '"...'])
def test_a_line_may_end_after_closing_quotes_and_elisions(closing):
    sk = skeleton(f"message{closing}\nnext line")
    assert sk.ends_line(len("message"))


@pytest.mark.parametrize("closing", [".", "!", ".**", "**.", '."', "`.`"])
def test_a_line_may_end_after_the_users_own_full_stop(closing):
    sk = skeleton(f"message{closing} \nnext line")
    assert sk.ends_line(len("message"))


@pytest.mark.parametrize("rest", [". Next sentence", ".x", ",", ". and more", "?"])
def test_a_full_stop_inside_a_line_ends_no_line(rest):
    assert not skeleton(f"message{rest}\nnext line").ends_line(len("message"))


def test_empty_and_blank_pastes_have_empty_skeletons():
    for blank in ("", "   ", "\n\n\t"):
        assert Skeleton.of(clean(blank)).text == ""


def test_a_huge_paste_keeps_its_end():
    paste = "x" * (MAX_CHARS + 10) + "END"
    assert clean(paste).endswith("END")
    assert len(clean(paste)) == MAX_CHARS


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"caf\xc3\xa9", "caf\u00e9"),
        (b"\xef\xbb\xbfbom", "bom"),
        (b"bad \xff\xfe byte", "bad \ufffd\ufffd byte"),
        ("utf-16".encode("utf-16"), "utf-16"),
        (b"\x00\x01\x02", "\x00\x01\x02"),
    ],
)
def test_decode_never_fails(data, text):
    assert decode(data) == text


def test_a_lone_carriage_return_ends_a_line():
    # Classic Mac line ends, and progress bars that rewrite their line with "\r".
    assert clean("first\rsecond") == "first\nsecond"
    sk = skeleton("Trying to backward through the graph a second time\rnext")
    assert sk.ends_line(len("Tryingtobackwardthroughthegraphasecondtime"))


@given(st.lists(st.integers(-5, 5)).map(sorted), st.integers(-7, 7))
def test_bisection_places_a_value_as_the_standard_library_does(items, value):
    import bisect as standard

    from autograd_errors.messages.normalize import bisect_left, bisect_right

    assert bisect_left(items, value) == standard.bisect_left(items, value)
    assert bisect_right(items, value) == standard.bisect_right(items, value)


@pytest.mark.parametrize("before", ["出现了", "エラー", "에러", "เกิด", "（"])
def test_english_after_a_script_without_spaces_starts_a_word(before):
    sk = skeleton(f"{before}element 0")
    assert sk.starts_word(len(before))


@pytest.mark.parametrize("before", ["Linear", "é", "x_", "Ünicode", "2"])
def test_a_word_char_of_a_spaced_script_joins_the_next(before):
    assert not skeleton(f"{before}Function").starts_word(len(before))


@pytest.mark.parametrize(
    ("paste", "pos", "ends"),
    [
        ("ready only once. Without checkpointing", len("readyonlyonce."), True),  # its own stop
        ("a second time. When I do", len("asecondtime"), True),  # before the user's own stop
        ("a second time. when I do", len("asecondtime"), False),  # no new sentence
        ("only once.Without", len("onlyonce."), False),  # no space after it
        ("torch. nn", len("torch."), False),
        ("only once.", len("onlyonce."), False),  # the end of the paste is a line's end
    ],
)
def test_a_sentence_ends_at_a_full_stop_before_another(paste, pos, ends):
    assert skeleton(paste).ends_sentence(pos) is ends


def test_the_last_sentence_end_of_a_span():
    sk = skeleton("One. Two. Three four")
    assert sk.last_sentence_end(0, len("One.Two.Three")) == len("One.Two.")
    assert sk.last_sentence_end(len("One.Two."), len("One.Two.Three")) == len("One.Two.Three")


def test_an_unnamed_namespace_stays_in_one_word():
    name = "torch::jit::(anonymous namespace)::DifferentiableGraphBackward"
    assert clean(f"Error detected in {name}.") == (
        "Error detected in torch::jit::(anonymous_namespace)::DifferentiableGraphBackward."
    )
