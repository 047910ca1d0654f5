"""``python -m autograd_errors lint PATH ...``: the command's implementation, ``main(argv)``.

Exit codes: 0 nothing found, 1 findings (a file that does not parse is a finding, AE000), 2 a
usage error or a path that cannot be read (the other paths are still checked), 3 an internal
error. Every problem is one line on standard error, never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys

from autograd_errors.lint.checker import Finding, check_source
from autograd_errors.lint.files import python_files
from autograd_errors.lint.registry import PREFIX, rules

USAGE = (
    "usage: autograd-errors lint PATH ... [--json] [--select CODES] [--ignore CODES] [--lang en|zh]"
)
HELP = f"""{USAGE}

Check Python files (a folder: its .py files, recursively) for the autograd pitfalls of the
catalog, and for fixes that silence an error and leave training wrong. - reads standard input.

options:
  --json            print a JSON list of {{path, line, col, code, message, entry}}
  --select CODES    report only these codes or prefixes (comma-separated: AE1,AE203);
                    opinionated rules (AE9) are reported only when selected
  --ignore CODES    do not report these codes or prefixes
  --lang en|zh      the messages' language (default: from $LC_ALL, $LC_MESSAGES, $LANG)
  -h, --help        show this help

A line ending in `# noqa` (or `# noqa: AE101,AE2`) is not reported.
exit codes: 0 nothing found, 1 findings, 2 usage error or unreadable path, 3 internal error"""

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

#: Characters shown escaped: C0 and C1 controls, bidirectional overrides, line separators (a
#: file name may hold them, and printed raw they can rewrite what a terminal shows).
_UNSAFE = frozenset(
    [*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u061c", "\u200e", "\u200f"]
    + ["\u2028", "\u2029"]
    + [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
)


_UNSAFE_IN_JSON = _UNSAFE - frozenset(map(chr, range(0x20)))


class Usage(Exception):
    """A bad command line: one line, exit 2."""


class Options:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.json = False
        self.select: list[str] | None = None
        self.ignore: list[str] = []
        self.lang: str | None = None
        self.help = False


def _codes(value: str, option: str) -> list[str]:
    codes = [code.strip().upper() for code in value.split(",") if code.strip()]
    if not codes:
        raise Usage(f"{option} needs codes, such as AE101 or AE1")
    known = rules()
    for code in codes:
        if not PREFIX.fullmatch(code) or not any(c.startswith(code) for c in known):
            raise Usage(f"{option}: {code!r} is no rule code or prefix (codes: AE000 to AE9xx)")
    return codes


def parse(argv: list[str]) -> Options:
    options = Options()
    arguments = iter(argv)
    only_paths = False
    for arg in arguments:
        if only_paths or arg == "-" or not arg.startswith("-"):
            options.paths.append(arg)
            continue
        name, equals, value = arg.partition("=")
        if arg == "--":
            only_paths = True
        elif arg in ("-h", "--help"):
            options.help = True
        elif arg == "--json":
            options.json = True
        elif name in ("--select", "--ignore", "--lang"):
            if not equals:
                value = next(arguments, "")
                if value.startswith("-"):
                    value = ""
            if not value:
                raise Usage(f"{name} needs a value")
            if name == "--lang":
                from autograd_errors.ui import parse_lang

                try:
                    options.lang = parse_lang(value)
                except ValueError as error:
                    raise Usage(str(error)) from None
            elif name == "--select":
                options.select = [*(options.select or []), *_codes(value, name)]
            else:
                options.ignore += _codes(value, name)
        else:
            raise Usage(f"unknown option {arg!r} for lint")
    if not options.paths and not options.help:
        raise Usage("lint needs a path (a file or a folder; - for standard input)")
    return options


def visible(text: str) -> str:
    if not any(char in _UNSAFE for char in text):
        return text
    return "".join(f"\\u{ord(char):04x}" if char in _UNSAFE else char for char in text)


def _json(findings: list[Finding]) -> str:
    import json

    text = json.dumps([finding.as_json() for finding in findings], ensure_ascii=False, indent=2)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        text = json.dumps([finding.as_json() for finding in findings], indent=2)
    # json escapes C0 controls itself (the newlines left are its layout); C1 controls, bidi
    # overrides and line separators can only occur inside strings.
    return "".join(f"\\u{ord(char):04x}" if char in _UNSAFE_IN_JSON else char for char in text)


def _error(message: str) -> None:
    print(f"autograd-errors lint: {visible(message)}", file=sys.stderr)


def main(argv: list[str]) -> int:
    """Run ``lint`` with ``argv`` (the arguments after ``lint``); returns the exit code."""
    try:
        options = parse(argv)
    except Usage as error:
        _error(f"{error} (autograd-errors lint --help tells more)")
        return EXIT_USAGE
    if options.help:
        print(HELP)
        return EXIT_CLEAN
    if options.lang is not None:
        language = options.lang
    else:
        from autograd_errors.ui import language_from_environment

        language = language_from_environment(os.environ)
    unreadable = False
    internal = False
    findings: list[Finding] = []

    def cannot_read(path: str, error: OSError) -> None:
        nonlocal unreadable
        unreadable = True
        _error(f"cannot read {path}: {error.strerror or error}")

    seen: set[str] = set()
    for given in options.paths:
        paths = ["-"] if given == "-" else python_files(given, cannot_read)
        for path in paths:
            real = os.path.realpath(path) if path != "-" else path
            if real in seen:
                continue  # named twice, or inside a folder also named
            seen.add(real)
            try:
                if path == "-":
                    source = sys.stdin.buffer.read() if sys.stdin is not None else b""
                else:
                    with open(path, "rb") as handle:
                        source = handle.read()
            except OSError as error:
                cannot_read(path, error)
                continue
            shown = "stdin" if path == "-" else path
            try:
                findings += check_source(source, shown, options.select, options.ignore, language)
            except Exception as error:  # noqa: BLE001 - one file's defect, reported, not fatal
                internal = True
                _error(
                    f"internal error on {shown}: {type(error).__name__}: {error} "
                    "(please report it; the other files are still checked)"
                )
    findings.sort()
    if internal:
        code = EXIT_INTERNAL
    elif unreadable:
        code = EXIT_USAGE
    else:
        code = EXIT_FINDINGS if findings else EXIT_CLEAN
    try:
        if options.json:
            print(_json(findings))
        else:
            for finding in findings:
                print(visible(finding.text()))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): not an error; the result stands. Point stdout at
        # /dev/null so that the interpreter's last flush cannot fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code
