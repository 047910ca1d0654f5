"""Filling text for a terminal: Chinese characters take two columns, and a line breaks between
them where Chinese typesetting allows it."""

from __future__ import annotations

import unicodedata

from autograd_errors.rendering import terminal


def squeezed(text: str) -> str:
    """``text`` without whitespace: what wrapping cannot change."""
    return "".join(text.split())


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_paragraphs_count_wide_characters_as_two_columns():
    text = "梯度" * 30  # 60 characters, 120 columns: 19 a line after the indent
    lines = terminal.fill(text, 40, "  ")
    assert [columns(line) for line in lines] == [40, 40, 40, 2 + 3 * 2]
    assert "".join(line.strip() for line in lines) == text
    mixed = "对 `nn.ReLU(inplace=True)` 的输出做 `+=`，写成 `out = out + x`。"
    lines = terminal.fill(mixed, 30, "")
    assert all(columns(line) <= 30 for line in lines), lines
    assert not any(line[0] in "，。" for line in lines), lines
    assert any("`nn.ReLU(inplace=True)`" in line for line in lines)  # a Latin word is not cut
    assert squeezed("".join(lines)) == squeezed(mixed)


def test_a_label_is_followed_by_a_space_except_after_chinese_punctuation():
    assert terminal.after("Fix:") == " "
    assert terminal.after("修复：") == ""


def test_colour_is_for_terminals_only(monkeypatch):
    import io

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert terminal.Style.for_stream(io.StringIO()).bold("x") == "x"
    assert terminal.Style(True).bold("x") == "\x1b[1mx\x1b[0m"
