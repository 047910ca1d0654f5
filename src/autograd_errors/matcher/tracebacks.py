"""The tracebacks in a paste, and the exception a match is in: whose frames are "your line".

A paste often holds more than one exception's frames:

- a chain: ``raise TrainerError(...) from error`` prints the autograd error's traceback, then
  "The above exception was the direct cause of the following exception:", then the wrapper's;
- anomaly mode's "Traceback of forward call that caused the error:", a warning printed before
  the error's own traceback, and torch.compile's "from user code:" block inside a message;
- a torchrun log: each rank's lines prefixed ``[rank0]:`` (``[default0]:[rank0]:`` with
  ``--tee``), perhaps interleaved with the other ranks', then the launcher's own traceback;
- an exception group's ``|``-prefixed sub-tracebacks.

So the paste is read as *streams* (the lines of one prefix, in order), each cut into
*segments*: one exception's part of the output, from a chain separator, a new traceback or an
exception group's divider to the next. A match is in the segment holding its message's first
line. When the same message is printed again further down its chain (``raise
Wrapper(str(error)) from error``), the segment that printed it first is the one that failed.
Within the segment, in order of preference, the user's line is the last frame of their own
code in anomaly mode's forward traceback (the forward operation whose backward failed),
torch.compile's "from user code:" block, or the segment's traceback.

Offsets are those of the matcher's skeleton (:class:`..messages.normalize.Skeleton`: the
cleaned paste without whitespace), so that a match's ``start`` gives its line.
"""

from __future__ import annotations

from autograd_errors.matcher.frames import (
    Frame,
    arrow_line,
    context_line,
    header,
    indentation,
    is_caret_line,
    is_exception_line,
    is_word,
    named_cells,
    raises_outside_torch,
    user_frames,
)
from autograd_errors.messages.normalize import bisect_right

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

TRACEBACK_MARKER = "Traceback (most recent call last)"
FORWARD_MARKER = "Traceback of forward call that caused the error:"
COMPILE_MARKER = "from user code:"
#: Lines that join two exceptions of one chain.
CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception",
    "During handling of the above exception, another exception occurred",
)
#: Lines that divide an exception group's members (``+-+---- 1 ----``, ``+ Exception Group
#: Traceback (most recent call last):``).
GROUP_MARKERS = ("+-", "+ Exception Group Traceback")
#: A prefix is at most this long: ``[default0]:``, ``[rank12]:``.
MAX_PREFIX = 40


class Block:
    """Frames printed together: a traceback (``kind`` "traceback"), anomaly mode's forward
    traceback ("forward"), torch.compile's user code ("compile"), or where a warning was issued
    ("warning": ``x.py:3: UserWarning: ...``), starting at line ``start`` of the paste."""

    __slots__ = ("frames", "kind", "start")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind
        self.start = start
        self.frames: list[Frame] = []


class Segment:
    """One exception's part of a stream: its blocks, from line ``start`` of the paste; ``chain``
    numbers the chain it belongs to."""

    __slots__ = ("blocks", "chain", "start")

    def __init__(self, start: int, chain: int) -> None:
        self.start = start
        self.chain = chain
        self.blocks: list[Block] = []

    def has_traceback(self) -> bool:
        return any(block.kind == "traceback" for block in self.blocks)


class Located:
    """What the paste's traceback says about one exception: the user's line (``frame``), every
    frame of the user's own code it shows for it (``frames``, the user's line last), and all
    its frames, the libraries' too (``all_frames``): the evidence of a cause. ``raiser``: the
    innermost frame when its line raises the message from a file that is not PyTorch's
    (another library's copy of PyTorch's words), else None."""

    __slots__ = ("all_frames", "frame", "frames", "raiser")

    def __init__(
        self,
        frame: Frame | None,
        frames: list[Frame],
        all_frames: list[Frame] | None = None,
        raiser: Frame | None = None,
    ) -> None:
        self.frame = frame
        self.frames = frames
        self.all_frames = frames if all_frames is None else all_frames
        self.raiser = raiser


def prefix_of(line: str) -> tuple[str, str]:
    """``(prefix, content)``: a rank's ``[rank0]:`` (all of ``[default0]:[rank0]:``) taken off;
    an exception group's ``|`` is taken off too, and is no prefix."""
    content = line.lstrip()
    prefix = ""
    while content.startswith("["):
        close = content.find("]:", 1, MAX_PREFIX)
        if close == -1 or close == 1 or not is_word(content[1:close]):
            break
        prefix += content[: close + 2]
        content = content[close + 2 :]
    if content.lstrip().startswith("|"):
        content = content.lstrip()[1:]
    return prefix, content


def streams(lines: list[str]) -> dict[str, list[int]]:
    """The paste's line numbers by prefix, in order."""
    found: dict[str, list[int]] = {}
    for number, line in enumerate(lines):
        found.setdefault(prefix_of(line)[0], []).append(number)
    return found


def segments(lines: list[str], numbers: list[int]) -> list[Segment]:
    """The segments of the stream made of ``lines[n]`` for each ``n`` of ``numbers``."""
    contents = [prefix_of(lines[n])[1] for n in numbers]
    chain = 0
    found = [Segment(numbers[0] if numbers else 0, chain)]
    block: Block | None = None
    index = 0
    while index < len(contents):
        stripped = contents[index].strip()
        number = numbers[index]
        segment = found[-1]
        if stripped.startswith(GROUP_MARKERS):
            chain += 1
            found.append(Segment(number, chain))
            block = None
        elif stripped.startswith(CHAIN_MARKERS):
            found.append(Segment(number, chain))
            block = None
        elif TRACEBACK_MARKER in stripped:
            if segment.has_traceback():  # another exception, not chained to this one
                chain += 1
                segment = Segment(number, chain)
                found.append(segment)
            block = Block("traceback", number)
            segment.blocks.append(block)
        elif FORWARD_MARKER in stripped:
            block = Block("forward", number)
            segment.blocks.append(block)
        elif stripped.startswith(COMPILE_MARKER):
            block = Block("compile", number)
            segment.blocks.append(block)
        else:
            read = header(stripped)
            if read is not None:
                if read[2] == "warning":  # a warning's own location, printed with it
                    warned = Block("warning", number)
                    segment.blocks.append(warned)
                    frame, index = _frame(contents, index, read)
                    warned.frames.append(frame)
                    block = None
                    continue
                if block is None:  # frames pasted without their "Traceback" line
                    block = Block("traceback", number)
                    segment.blocks.append(block)
                frame, index = _frame(contents, index, read)
                block.frames.append(frame)
                continue
            if stripped and block is not None and block.frames:
                block = None  # the message after the frames: the block is over
        index += 1
    return found


def _frame(contents: list[str], index: int, read: tuple[str, int, str]) -> tuple[Frame, int]:
    """The frame whose first line is ``contents[index]``, and the index after it."""
    file, number, style = read
    code = ""
    context: list[str] = []
    after = index + 1
    if style in ("python", "warning"):
        own = indentation(contents[index])
        while after < len(contents):
            line = contents[after]
            stripped = line.strip()
            if not stripped or header(stripped) is not None:
                break
            deeper = indentation(line) > own
            if not deeper and (code or own or is_exception_line(stripped) or _marker(stripped)):
                break
            if not is_caret_line(stripped):
                if code:
                    context.append(stripped)
                else:
                    code = stripped
            after += 1
            if not deeper:  # a paste without indentation: the code is the next line alone
                break
        return Frame(file, number, code, None, tuple(context)), after
    while after < len(contents):
        stripped = contents[after].strip()
        arrow = arrow_line(stripped)
        if arrow is not None:
            if style == "arrow" and not number:
                number = arrow[0]
            if arrow[0] == number and not code:
                code = arrow[1]
            else:
                context.append(arrow[1])
        else:
            shown = context_line(stripped) if stripped else None
            if shown is None:
                break
            if shown:
                context.append(shown)
        after += 1
    return Frame(file, number, code, None, tuple(context)), after


def _marker(stripped: str) -> bool:
    return (
        TRACEBACK_MARKER in stripped
        or FORWARD_MARKER in stripped
        or stripped.startswith((COMPILE_MARKER, *CHAIN_MARKERS, *GROUP_MARKERS))
    )


class Paste:
    """A cleaned paste, read for its tracebacks once; :meth:`locate` answers for each match."""

    __slots__ = ("_ends", "_segments", "_streams", "lines")

    def __init__(self, cleaned: str) -> None:
        self.lines = cleaned.split("\n")
        self._ends: list[int] | None = None
        self._streams: dict[str, list[int]] | None = None
        self._segments: dict[str, list[Segment]] = {}

    def line_of(self, offset: int) -> int:
        """The line that holds skeleton offset ``offset``."""
        if self._ends is None:
            self._ends = []
            total = 0
            for line in self.lines:
                total += len("".join(line.split()))
                self._ends.append(total)
        return min(bisect_right(self._ends, offset), len(self.lines) - 1)

    def segments(self, prefix: str) -> list[Segment]:
        if self._streams is None:
            self._streams = streams(self.lines)
        if prefix not in self._segments:
            self._segments[prefix] = segments(self.lines, self._streams.get(prefix, []))
        return self._segments[prefix]

    def locate(
        self, offsets: Sequence[int] = (), cells: Mapping[str, int] | None = None
    ) -> Located:
        """The frames of the exception whose message starts at skeleton offset
        ``offsets[-1]`` (``offsets``: each place the matched wording starts, in order; none:
        the paste's last exception). ``cells``: a running kernel's names for its cells'
        files."""
        lines = self.lines
        at = [self.line_of(offset) for offset in offsets if offset >= 0]
        target = at[-1] if at else _last_line(lines)
        prefix = prefix_of(lines[target])[0]
        found = self.segments(prefix)
        segment = _segment_at(found, target)
        for earlier in at:  # the first segment of this chain that printed the message
            if prefix_of(lines[earlier])[0] != prefix:
                continue
            first = _segment_at(found, earlier)
            if first.chain == segment.chain:
                segment, target = first, earlier
                break
        return _located(segment, target, cells, prefix_of(lines[target])[1])


def user_frame(text: str, cells: Mapping[str, int] | None = None) -> Frame | None:
    """The frame of the user's own code that a paste points at, in its last exception, or
    None (:meth:`Paste.locate` finds it for the exception a match is in)."""
    from autograd_errors.messages.normalize import clean

    return Paste(clean(text)).locate((), cells).frame


def locate(
    cleaned: str, offsets: Sequence[int] = (), cells: Mapping[str, int] | None = None
) -> Located:
    """:meth:`Paste.locate` for one match."""
    return Paste(cleaned).locate(offsets, cells)


def _last_line(lines: list[str]) -> int:
    for number in range(len(lines) - 1, -1, -1):
        if lines[number].strip():
            return number
    return 0


def _segment_at(found: list[Segment], line: int) -> Segment:
    starts = [segment.start for segment in found]
    return found[max(bisect_right(starts, line) - 1, 0)]


def _located(
    segment: Segment, line: int, cells: Mapping[str, int] | None, message: str = ""
) -> Located:
    """The frames of ``segment`` for a message at ``line`` (whose text is ``message``): a
    warning's own location when the message is that warning's, else the forward traceback, the
    user code, the traceback."""
    evidence: list[Frame] = []
    every: list[Frame] = []
    shown: Frame | None = None
    for block in segment.blocks:
        named_cells(block.frames, cells)
        if block.kind == "warning" and block.start == line:
            shown = next(iter(user_frames(block.frames)), None)
    for kind in ("forward", "compile", "traceback", "warning"):
        blocks = [block for block in segment.blocks if block.kind == kind]
        own = [user_frames(block.frames) for block in blocks]
        every += [frame for block in blocks for frame in block.frames]
        evidence += [frame for frames in own for frame in frames]
        if shown is None and kind != "warning":
            shown = next((frames[-1] for frames in reversed(own) if frames), None)
    if shown is not None:
        evidence.remove(shown)
        evidence.append(shown)
    raised = [
        frame for block in segment.blocks if block.kind == "traceback" for frame in block.frames
    ]
    raiser = raised[-1] if raised and raises_outside_torch(raised[-1], message) else None
    return Located(shown, evidence, every, raiser)
