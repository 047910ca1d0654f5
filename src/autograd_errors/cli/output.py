"""What every command prints goes through here: text and JSON made safe for any terminal and
any encoding, one-line errors on stderr, and the exit code each chose.

Exit codes: 0 matched (or success), 1 nothing matched (``check``: a failing entry), 2 usage
error, 3 internal error; 130 on Ctrl-C.
"""

from __future__ import annotations

import os
import sys

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

#: C1 controls (U+009B is a terminal's CSI), bidirectional overrides and isolates, and the two
#: Unicode line breaks: a paste may hold them, and printed raw they can rewrite what a terminal
#: or an editor shows. Text shows them escaped; JSON escapes them as \\uXXXX.
UNSAFE = frozenset(
    [*map(chr, range(0x80, 0xA0)), "\u061c", "\u200e", "\u200f", "\u2028", "\u2029"]
    + [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
)


class Outcome:
    """The exit code a command chose, kept for when writing its output fails: ``explain … |
    true`` still exits 1 on a no-match, though nobody reads what it printed."""

    code = EXIT_OK
    #: Whether the command ran the user's program (``run``): its process ends as Python's.
    ran_program = False


def print_text(text: str, code: int) -> int:
    """Print a command's text, remembering its exit code first (see :class:`Outcome`)."""
    Outcome.code = code
    print(visible(text))
    return code


def print_json(value: object, code: int) -> int:
    """Print a command's JSON, remembering its exit code first."""
    Outcome.code = code
    print(json_text(value))
    return code


def refuse(command: str, reason: str) -> int:
    """One line on stderr saying why ``command`` cannot run, and the usage error's exit code."""
    print_error(f"autograd-errors {command}: {reason}\n")
    return EXIT_USAGE


def print_error(text: str) -> None:
    """``text`` on stderr, if it can be written. A closed stderr (``2>&-``: ``sys.stderr`` is
    None, and ``print(file=None)`` would write to stdout, where a ``--json`` reader is) or a
    full one (``2>/dev/full``) loses the words only: the exit code stays the one chosen."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass


def visible(text: str) -> str:
    """``text`` with the characters of :data:`UNSAFE` shown as ``\\uXXXX``."""
    if UNSAFE.isdisjoint(text):
        return text
    return "".join(f"\\u{ord(char):04x}" if char in UNSAFE else char for char in text)


def json_text(value: object) -> str:
    """JSON that stays valid JSON whatever stdout's encoding: characters the stream cannot
    encode, and the unsafe ones of :data:`UNSAFE`, become ``\\uXXXX`` escapes (they can only
    occur inside strings)."""
    import json

    text = json.dumps(value, ensure_ascii=False, indent=2)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        "".encode(encoding)
    except LookupError:
        encoding = "utf-8"

    def escaped(char: str) -> str:
        if char not in UNSAFE:
            try:
                char.encode(encoding)
                return char
            except UnicodeEncodeError:
                pass
        return json.dumps(char)[1:-1] if ord(char) > 0xFFFF else f"\\u{ord(char):04x}"

    if text.isascii():
        return text
    return "".join(char if char.isascii() else escaped(char) for char in text)


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
