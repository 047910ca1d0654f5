"""``lint PATH ...``: the checker of :mod:`autograd_errors.lint` over files and folders, its
findings printed as flake8 and ruff print theirs (``path:line:col: CODE message``) or as JSON.

Exit codes: 0 nothing found, 1 findings (a file that does not parse is a finding, AE000), 2 a
usage error or a path that cannot be read (the other paths are still checked), 3 an internal
error. Every problem is one line on standard error, never a traceback.
"""

from __future__ import annotations

import os
import sys

from autograd_errors.cli.output import EXIT_INTERNAL, EXIT_USAGE, print_json, print_text, visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.cli.table import Options
    from autograd_errors.lint.checker import Finding

EXIT_CLEAN, EXIT_FINDINGS = 0, 1

#: C0 controls too, beyond what every command escapes: a file name may hold a line break, which
#: printed raw would make one finding look like two.
_CONTROLS = frozenset([*map(chr, range(0x20)), "\x7f"])


def _shown(text: str) -> str:
    if any(char in _CONTROLS for char in text):
        text = "".join(f"\\u{ord(c):04x}" if c in _CONTROLS else c for c in text)
    return visible(text)


def _error(message: str) -> None:
    print(f"autograd-errors lint: {_shown(message)}", file=sys.stderr)


def lint(options: Options) -> int:
    """Check every Python file the paths name; print the findings, sorted as flake8 does."""
    from autograd_errors.cli.table import UsageError
    from autograd_errors.lint.checker import check_source
    from autograd_errors.lint.files import python_files

    if not options.args:
        raise UsageError(
            "lint needs a path (a file or a folder; - for standard input)", show_usage=False
        )
    select = options.select.split(",") if options.select else None
    ignore = options.ignore.split(",") if options.ignore else []
    language = options.language
    unreadable = internal = False
    findings: list[Finding] = []

    def cannot_read(path: str, error: OSError) -> None:
        nonlocal unreadable
        unreadable = True
        _error(f"cannot read {path}: {error.strerror or error}")

    seen: set[str] = set()
    for given in options.args:
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
                findings += check_source(source, shown, select, ignore, language)
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
    if options.json:
        return print_json([finding.as_json() for finding in findings], code)
    if not findings:
        return code
    return print_text("\n".join(_shown(finding.text()) for finding in findings), code)
