"""``explain [TEXT ... | -]``: the entries a paste holds, as text or JSON. The paste comes from
the arguments, or from standard input (of which only the tail the matcher reads is kept).

This is the command that must start as fast as a bare interpreter: it imports the catalog,
the matcher and the text renderers, and nothing heavy (see ``benchmarks/cold_start.py``).
"""

from __future__ import annotations

import sys

from autograd_errors.cli.output import EXIT_NO_MATCH, EXIT_OK, print_json, print_text
from autograd_errors.cli.table import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

    from autograd_errors.cli.table import Options


def explain(options: Options) -> int:
    from autograd_errors.catalog import load
    from autograd_errors.rendering.answer import Answer
    from autograd_errors.rendering.strings import ui
    from autograd_errors.rendering.urls import base_url

    text = read_text(options)
    if not text.strip():
        raise UsageError("explain got no text (only whitespace)")
    answer = Answer.of(text, load())
    site, language = base_url(options.base_url), options.language
    code = EXIT_OK if answer.matches else EXIT_NO_MATCH
    if options.json:
        from autograd_errors.rendering.payloads import answer_json

        found = answer_json(answer, site, language)
        return print_json({"query": text, **found} if options.echo else found, code)
    from autograd_errors.rendering.terminal import Style, text_width
    from autograd_errors.rendering.text import answer_text

    style, width = Style.for_stream(sys.stdout), text_width(sys.stdout)
    more = ui("cli.more_options", language)
    shown = answer_text(
        answer, site, style, width, language=language, verbose=options.verbose, more=more
    )
    return print_text(shown, code)


def read_text(options: Options) -> str:
    """The paste: the arguments joined, or standard input."""
    from autograd_errors.messages.normalize import decode

    if options.args and options.args != ["-"]:
        if "-" in options.args:
            raise UsageError("give the text as arguments or as -, not both")
        joined = " ".join(options.args)
        # Undecodable bytes in argv arrive as surrogates; make them visible replacement marks.
        return joined.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    stdin = sys.stdin
    if stdin is None:
        raise UsageError("explain needs TEXT, as an argument or on standard input")
    if not options.args and stdin.isatty():
        from autograd_errors.rendering.strings import ui

        print(ui("cli.paste_prompt", options.language), file=sys.stderr, flush=True)
    try:
        return decode(read_tail(stdin.buffer))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read standard input: {error}") from None


def read_tail(stream: IO[bytes]) -> bytes:
    """The stream's bytes, of which only the tail that the matcher reads is kept: a gigabyte
    piped in costs a few megabytes of memory, not two gigabytes. A UTF-16 byte-order mark at
    the start is kept, and the tail stays aligned to it."""
    from autograd_errors.messages.normalize import MAX_CHARS

    keep = 4 * MAX_CHARS  # bytes: a character takes at most four
    head = b""
    tail = bytearray()
    size = 1 << 20
    while chunk := stream.read(size):
        if len(head) < 4:
            head = (head + chunk)[:4]
        tail += chunk
        if len(tail) > 2 * keep:
            del tail[: len(tail) - keep - (len(tail) - keep) % 4]
        if len(chunk) < size:
            break  # a buffered read is short only at the end; a terminal's Ctrl-D is not sticky
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") and not tail.startswith(head[:2]):
        return head[:2] + bytes(tail)
    return bytes(tail)
