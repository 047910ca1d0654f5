"""The user's own line in a pasted traceback: where to look first.

An autograd error surfaces in ``loss.backward()``, deep inside torch; the line to change is
usually elsewhere. In order of preference:

1. anomaly mode's "Traceback of forward call that caused the error": the forward operation
   whose backward failed, the most useful line there is;
2. torch.compile's "from user code:" block, which names the user's frames of a compiled graph;
3. otherwise, the last frame of the traceback outside torch and installed packages.

Python's own frames (``File "x.py", line 3, in f`` then the code) and IPython's (``File
~/x.py:3, in f`` or ``Cell In[2], line 3`` then ``----> 3 code``) are read. String operations
only: ``re`` costs ``explain`` more start-up than this whole module.
"""

from __future__ import annotations

_FORWARD_MARKER = "Traceback of forward call that caused the error:"
_COMPILE_MARKER = "from user code:"
_LIBRARY_PARTS = ("site-packages", "dist-packages", "/torch/", "\\torch\\", "<frozen ")


class Frame:
    """One frame of a traceback: ``file``, ``line`` (a number) and the ``code`` shown for it."""

    __slots__ = ("code", "file", "line")

    def __init__(self, file: str, line: int, code: str) -> None:
        self.file = file
        self.line = line
        self.code = code

    def __repr__(self) -> str:
        return f"Frame({self.file!r}, {self.line}, {self.code!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frame) and (self.file, self.line, self.code) == (
            other.file,
            other.line,
            other.code,
        )

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.code))

    def as_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "code": self.code}

    @property
    def in_library(self) -> bool:
        return any(part in self.file for part in _LIBRARY_PARTS)


def user_frame(text: str) -> Frame | None:
    """The frame of the user's own code that the paste points at, or None."""
    lines = text.splitlines()
    for marker in (_FORWARD_MARKER, _COMPILE_MARKER):
        starts = [i for i, line in enumerate(lines) if marker in line]
        if starts:
            block = _frames(lines[starts[-1] + 1 :], stop_at_text=True)
            own = [frame for frame in block if not frame.in_library]
            if own:
                return own[-1]
    own = [frame for frame in _frames(lines, stop_at_text=False) if not frame.in_library]
    return own[-1] if own else None


def _frames(lines: list[str], *, stop_at_text: bool) -> list[Frame]:
    """The frames in ``lines``; with ``stop_at_text``, only those of the first traceback block
    (anomaly mode's forward traceback ends where the next message starts)."""
    frames: list[Frame] = []
    index = 0
    seen_frame = False
    while index < len(lines):
        header = _header(lines[index])
        if header is None:
            stripped = lines[index].strip()
            if stop_at_text and seen_frame and stripped and not _is_code_context(stripped):
                break
            index += 1
            continue
        seen_frame = True
        file, number = header
        code, index = _code_after(lines, index + 1, number)
        frames.append(Frame(file, number, code))
    return frames


def _header(line: str) -> tuple[str, int] | None:
    """``(file, line)`` of a frame header line, in Python's or IPython's format."""
    stripped = line.strip()
    if stripped.startswith('File "'):  # Python: File "x.py", line 3, in f
        file, quote, rest = stripped[6:].partition('"')
        if quote and rest.startswith(", line "):
            number = rest[7:].partition(",")[0].strip()
            if number.isdigit():
                return file, int(number)
    elif stripped.startswith("File "):  # IPython: File ~/x.py:3, in f
        location = stripped[5:].partition(", in ")[0].strip()
        file, colon, number = location.rpartition(":")
        if colon and number.isdigit():
            return file, int(number)
    elif stripped.startswith("Cell In["):  # IPython: Cell In[2], line 3
        cell, _, rest = stripped.partition(", line ")
        number = rest.partition(",")[0].strip()
        if number.isdigit():
            return cell, int(number)
    return None


def _is_code_context(stripped: str) -> bool:
    """Lines that belong to a frame: carets, IPython's numbered context lines."""
    first_word = stripped.split(" ", 1)[0]
    return set(stripped) <= set("^~ ") or first_word.lstrip("-").rstrip(">").isdigit()


def _code_after(lines: list[str], index: int, number: int) -> tuple[str, int]:
    """The code shown for the frame whose header ended at ``index``: Python's next line, or
    IPython's ``----> N code`` line; and the index after the frame."""
    code = ""
    while index < len(lines) and _header(lines[index]) is None:
        stripped = lines[index].strip()
        if not stripped:
            if code:
                break
            index += 1
            continue
        if stripped.startswith("-") and ">" in stripped[:8]:  # IPython's arrow line
            arrow_number, _, rest = stripped.lstrip("-").lstrip(">").strip().partition(" ")
            if arrow_number == str(number):
                code = rest.strip()
        elif not code and not _is_code_context(stripped):
            if stripped.startswith(("Traceback ", "During handling", "The above exception")):
                break
            if ": " in stripped and stripped.split(":", 1)[0].replace(".", "").isidentifier():
                break  # the exception line, not code
            code = stripped
        index += 1
        if code and not lines[index - 1].strip().startswith("-"):
            break
    return code, index
