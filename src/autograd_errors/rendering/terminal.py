"""Text for a terminal: ANSI styling (or none), the width to fill, and filling itself, which
counts a Chinese character as two columns and breaks lines between characters where Chinese
typesetting allows it.

>>> columns("修复：Fix")
9
>>> fill("张量在 autograd 保存它之后被原地修改了。", 16, "  ")
['  张量在', '  autograd 保存', '  它之后被原地修', '  改了。']
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO


class Style:
    """ANSI styling, or none at all."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: IO[str] | None) -> Style:
        """Colour only on a terminal, and never with NO_COLOR set or TERM=dumb."""
        try:
            terminal = stream is not None and stream.isatty()
        except (AttributeError, ValueError):
            terminal = False
        return cls(terminal and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb")

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)


def text_width(stream: IO[str] | None) -> int:
    """The columns text is filled to: $COLUMNS when set, else the terminal's width, else 80."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit():
        width = int(columns)
    else:
        try:
            width = os.get_terminal_size(stream.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            width = 80
    return max(40, width) - 2


#: Punctuation a line must not start with (it stays with the character before), and punctuation
#: a line must not end with (it goes with the character after): Chinese typesetting's rules.
_NO_LINE_START = frozenset("，。、；：？！）》」』】”’%,.;:?!)]}")
_NO_LINE_END = frozenset("（《「『【“‘([{")


def after(label: str) -> str:
    """What separates a label from its text: a space, except after Chinese punctuation
    (``修复：改成…``), which has its own space built in."""
    return "" if label.endswith(("：", "。", "，")) else " "


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: two for a wide (CJK) character, as wcwidth
    counts, one for the rest (ANSI escapes included, as before: they are short and rare)."""
    if text.isascii():
        return len(text)
    from unicodedata import east_asian_width  # only for text that needs it

    return sum(2 if east_asian_width(char) in "WF" else 1 for char in text)


def _pieces(word: str) -> list[str]:
    """A space-free run of text cut where a line may break: between wide characters, and
    between a wide character and a Latin run, keeping punctuation with its neighbour."""
    if word.isascii():
        return [word]
    pieces: list[str] = []

    def push(piece: str) -> None:
        if pieces and (piece[0] in _NO_LINE_START or pieces[-1][-1] in _NO_LINE_END):
            pieces[-1] += piece
        else:
            pieces.append(piece)

    latin = ""
    for char in word:
        if columns(char) == 1:
            latin += char
            continue
        if latin:
            push(latin)
            latin = ""
        push(char)
    if latin:
        push(latin)
    return pieces


def fill(text: str, width: int, indent: str, hanging: str | None = None) -> list[str]:
    """``text`` filled to ``width`` columns, paragraph by paragraph (textwrap costs an import,
    and counts a Chinese character as one column). Chinese text breaks between characters.
    ``hanging``: the indent of a paragraph's later lines (under a list item's text)."""
    lines: list[str] = []
    later = indent if hanging is None else hanging
    for paragraph in text.split("\n\n"):
        line, used = indent, columns(indent)
        for word in paragraph.split():
            for n, piece in enumerate(_pieces(word)):
                gap = " " if n == 0 and line not in (indent, later) else ""
                size = columns(piece)
                if line not in (indent, later) and used + len(gap) + size > width:
                    lines.append(line)
                    line, used, gap = later, columns(later), ""
                line += gap + piece
                used += len(gap) + size
        if line not in (indent, later):
            lines.append(line)
    return lines
