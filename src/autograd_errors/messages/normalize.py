"""Turn whatever a user pasted into text the templates can be matched against.

Pastes come from terminals, notebooks, CI logs, chat and issue trackers. Matching looks for a
message *inside* the paste, with whitespace ignored (see :mod:`.templates`), so
what merely surrounds a message needs no removing: traceback frames, ``RuntimeError:`` and other
exception prefixes (qualified, misspelled), ``path:12: UserWarning:`` prefixes, torch's
``(Triggered internally at ...)`` suffix, notebook headers. What has to go is what lands *inside*
a message and splits it: ANSI colour codes, carriage returns and control characters, and the
markers that quoting, prompts and test runners put at the start of each line of a wrapped
message (``> ``, ``>>> ``, ``... ``, ``In [3]: ``, pytest's ``E   ``).

Everything here is linear in the paste, and uses :mod:`re` only when a paste holds escape
codes: the common path must start as fast as a bare interpreter.
"""

from __future__ import annotations

#: Longest paste considered, in characters. Longer pastes keep their last characters, where a
#: traceback's final exception is.
MAX_CHARS = 4_000_000

_NEWLINE_MARK = "\x01"  # stands for a line end while splitting; a control character, so never kept
# Control characters other than tab, line feed and escape become spaces.
#: Control characters other than tab, line feed and escape, and a few invisible ones: each
#: becomes a space. (These constants are exported to the browser's matcher by export.py.)
CONTROL_CODES = (
    *range(0x09),
    0x0B,
    0x0C,
    *range(0x0E, 0x1B),
    *range(0x1C, 0x20),
    0x7F,
    0x85,
    0xFEFF,
    0x200B,
)
_CONTROLS = dict.fromkeys(CONTROL_CODES, " ")
#: Terminal escape sequences (a regular expression, valid in Python and JavaScript alike).
ANSI_PATTERN = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement
    r"|\x1b\][^\x07\x1b]{0,2048}(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|\x1b[@-Z\\-_]?"  # other escapes, and a lone ESC
)
#: What quoting, prompts and test runners put at the start of a line.
LINE_MARKERS = (">", "... ", "E   ", "In [", "Out[")
#: What may close a quoted, cut-off message before its line ends: quotes, code and bold marks.
CLOSERS = "\"'`)]*_\u201d\u2019"
#: What may end a message and be left out of a paste of it, the message still whole; and what a
#: user may end a cut-off message with ("... a second time." for "... a second time (or ...").
FINAL_STOPS = ".!"
#: How C++ names a function of an unnamed namespace, a node of TorchScript's
#: (``torch::jit::(anonymous namespace)::DifferentiableGraphBackward``), and the one word a
#: paste's copy of it is made: its space would cut the node's name in two.
ANONYMOUS_NAMESPACE = ("(anonymous namespace)", "(anonymous_namespace)")


def clean(text: str) -> str:
    """The paste without what splits a message: colour codes, CRs, controls, line markers."""
    if len(text) > MAX_CHARS:
        text = text[-MAX_CHARS:]
    if "\x1b" in text:
        import re  # only escape codes need it; keeps the usual path free of re's import cost

        text = re.sub(ANSI_PATTERN, "", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROLS)
    if ANONYMOUS_NAMESPACE[0] in text:
        text = text.replace(*ANONYMOUS_NAMESPACE)
    if any(marker in text for marker in LINE_MARKERS):
        text = "\n".join(_strip_marker(line) for line in text.split("\n"))
    return text


def _strip_marker(line: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith(">"):
        return stripped.lstrip("> \t")  # quoting ("> > ") and the ">>>" prompt
    if stripped.startswith(("... ", "E   ")) or stripped in ("...", "E"):
        return stripped[3:]
    if stripped.startswith(("In [", "Out[")):
        close = stripped.find("]:", 0, 16)
        if close != -1:
            return stripped[close + 2 :]
    return line


def decode(data: bytes) -> str:
    """Bytes from a pipe or a file, as text. Never fails: undecodable bytes become U+FFFD.

    UTF-8 is expected; a UTF-16 byte-order mark (a file saved by Windows PowerShell) is honoured.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


class Skeleton:
    """A cleaned paste with all whitespace removed, remembering where the whitespace was.

    ``breaks`` are the offsets in ``text`` where whitespace was removed, ascending; ``newline``
    says, for each, whether that whitespace held a line end.
    """

    __slots__ = ("breaks", "newline", "text")

    def __init__(self, text: str, breaks: list[int], newline: list[bool]) -> None:
        self.text = text
        self.breaks = breaks
        self.newline = newline

    @classmethod
    def of(cls, cleaned: str) -> Skeleton:
        words = cleaned.replace("\n", f" {_NEWLINE_MARK} ").split()
        pieces: list[str] = []
        breaks: list[int] = []
        newline: list[bool] = []
        offset = 0
        after_newline = False
        for word in words:
            if word == _NEWLINE_MARK:
                after_newline = True
                continue
            if pieces:
                breaks.append(offset)
                newline.append(after_newline)
            pieces.append(word)
            offset += len(word)
            after_newline = False
        return cls("".join(pieces), breaks, newline)

    def starts_word(self, pos: int) -> bool:
        """Whether a word could start at ``pos``: not in the middle of a run of word characters."""
        if pos == 0 or not (is_word_char(self.text[pos]) and is_word_char(self.text[pos - 1])):
            return True
        i = bisect_left(self.breaks, pos)
        return i < len(self.breaks) and self.breaks[i] == pos

    def next_break(self, pos: int) -> int:
        """The first offset at or after ``pos`` where a word ends."""
        i = bisect_left(self.breaks, pos)
        return self.breaks[i] if i < len(self.breaks) else len(self.text)

    def previous_break(self, pos: int) -> int:
        """The last offset at or before ``pos`` where a word starts."""
        i = bisect_right(self.breaks, pos)
        return self.breaks[i - 1] if i else 0

    def ends_line(self, pos: int) -> bool:
        """Whether a line of the paste ends at ``pos``, perhaps after closing quotes, "..." or
        the user's own full stop (``time.**``, a bold quote's)."""
        text = self.text
        end = pos
        while end < len(text) and text[end] in CLOSERS:
            end += 1
        if text.startswith("...", end):
            end += 3
        elif text.startswith("\u2026", end):
            end += 1
        elif end < len(text) and text[end] in FINAL_STOPS:
            end += 1
            while end < len(text) and text[end] in CLOSERS:
                end += 1
        if end == len(text):
            return True
        i = bisect_left(self.breaks, end)
        return i < len(self.breaks) and self.breaks[i] == end and self.newline[i]

    def ends_sentence(self, pos: int) -> bool:
        """Whether a sentence of the paste ends at ``pos``, after a full stop or before the
        user's own, and another starts after a space: ``once. Without``, ``time. When``."""
        text = self.text
        if 0 < pos < len(text) and text[pos] in FINAL_STOPS:
            pos += 1  # the user's full stop
        elif not 0 < pos < len(text) or text[pos - 1] not in FINAL_STOPS:
            return False
        i = bisect_left(self.breaks, pos)
        return (
            i < len(self.breaks)
            and self.breaks[i] == pos
            and pos < len(text)
            and text[pos].isupper()
        )

    def last_sentence_end(self, low: int, high: int) -> int:
        """The last offset in ``(low, high]`` where a sentence ends (:meth:`ends_sentence`),
        or ``high`` when none does."""
        for pos in range(high, low, -1):
            if self.text[pos - 1] in FINAL_STOPS and self.ends_sentence(pos):
                return pos
        return high


def bisect_left(items: list[int], value: int) -> int:
    """Where ``value`` goes in the sorted ``items``, before any equal to it. The standard
    library's :mod:`bisect` loads a shared library: 0.4 ms of a cold ``explain``, for lists
    that a few steps of Python search as fast."""
    low, high = 0, len(items)
    while low < high:
        middle = (low + high) // 2
        if items[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low


def bisect_right(items: list[int], value: int) -> int:
    """Where ``value`` goes in the sorted ``items``, after any equal to it."""
    low, high = 0, len(items)
    while low < high:
        middle = (low + high) // 2
        if value < items[middle]:
            high = middle
        else:
            low = middle + 1
    return low


#: Scripts written without spaces between words (Chinese, Japanese, Thai; Korean, whose
#: particles attach to the word before): where a user's sentence in one of them runs into
#: PyTorch's English ("出现了element 0 of tensors ..."), the English word starts a word.
UNSPACED_SCRIPTS = (
    ("\u0e00", "\u0e7f"),  # Thai
    ("\u2e80", "\u9fff"),  # CJK radicals, kana, CJK ideographs
    ("\uac00", "\ud7af"),  # Hangul syllables
    ("\uf900", "\ufaff"),  # CJK compatibility ideographs
    ("\uff00", "\uffef"),  # full-width forms
)


def is_word_char(char: str) -> bool:
    """Whether ``char`` belongs to a word of PyTorch's messages (a letter, digit or "_" of a
    script that spaces its words)."""
    if not (char.isalnum() or char == "_"):
        return False
    return char < "\u0e00" or not any(low <= char <= high for low, high in UNSPACED_SCRIPTS)


def skeleton(text: str) -> Skeleton:
    """Clean a paste and strip its whitespace, ready for :meth:`Template.find`."""
    return Skeleton.of(clean(text))
