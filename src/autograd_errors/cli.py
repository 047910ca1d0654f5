"""``autograd-errors`` / ``python -m autograd_errors``: explain, list, show, check.

Exit codes: 0 matched (or success), 1 nothing matched (``check``: a failing entry),
2 usage error, 3 internal error. No input ever produces a traceback.

Arguments are parsed by hand: ``argparse`` alone costs more start-up time than the whole of
``explain``, which must start as fast as a bare interpreter, give or take.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO

    from autograd_errors.catalog import Catalog
    from autograd_errors.report import Style

USAGE = """\
usage: autograd-errors explain [TEXT ... | -] [--json] [--base-url URL]
       autograd-errors list [--json] [--base-url URL]
       autograd-errors show ID [--json] [--base-url URL]
       autograd-errors check [--json]
       autograd-errors record [--output DIR]
       autograd-errors --help | --version
"""

HELP = (
    USAGE
    + """
Explain a PyTorch autograd error message.

commands:
  explain   name the entries that explain TEXT: a message, a whole traceback, notebook output.
            TEXT comes from the arguments, or from standard input when it is - or absent.
  list      every entry of the catalog
  show      one entry, with all its wordings across torch releases
  check     run every entry's gallery script on the installed torch and verify what it raises
  record    run them and write what this torch release raised to DIR/torch-<release>.json
            (DIR: the checkout's data/observed)

options:
  --json          print one JSON object instead of text
  --output DIR    where record writes its file
  --base-url URL  site that the printed links point to
                  (default: $AUTOGRAD_ERRORS_BASE_URL, else the published site)
  -h, --help      show this help
  --version       print the version

exit codes: 0 matched/success, 1 no match (check: an entry failed), 2 usage error, 3 internal error
"""
)

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """Bad command line or unknown id: exit code 2, with the usage text for a bad command line."""

    def __init__(self, message: str, *, show_usage: bool = True) -> None:
        super().__init__(message)
        self.show_usage = show_usage


class Options:
    """A parsed command line."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.args: list[str] = []
        self.json = False
        self.base_url: str | None = None
        self.output: str | None = None


_COMMANDS = {
    "explain": (0, None),
    "list": (0, 0),
    "show": (1, 1),
    "check": (0, 0),
    "record": (0, 0),
}


def parse(argv: list[str]) -> Options:
    if not argv:
        raise UsageError("a command is required")
    command, rest = argv[0], argv[1:]
    if command not in _COMMANDS:
        raise UsageError(f"unknown command {command!r} (commands: {', '.join(_COMMANDS)})")
    options = Options(command)
    positional_only = False
    rest_iter = iter(rest)
    for arg in rest_iter:
        if positional_only or arg == "-" or not arg.startswith("-"):
            options.args.append(arg)
        elif arg == "--":
            positional_only = True
        elif arg == "--json":
            options.json = True
        elif arg == "--base-url" or arg.startswith("--base-url="):
            value = arg.partition("=")[2] if "=" in arg else next(rest_iter, None)
            if not value:
                raise UsageError("--base-url needs a URL")
            options.base_url = value
        elif command == "record" and (arg == "--output" or arg.startswith("--output=")):
            value = arg.partition("=")[2] if "=" in arg else next(rest_iter, None)
            if not value:
                raise UsageError("--output needs a directory")
            options.output = value
        elif arg in ("-h", "--help"):
            raise _HelpRequested
        else:
            raise UsageError(f"unknown option {arg!r} for {command}")
    least, most = _COMMANDS[command]
    if len(options.args) < least:
        raise UsageError(f"{command} needs an argument")
    if most is not None and len(options.args) > most:
        raise UsageError(f"{command} takes {most or 'no'} argument{'s' if most != 1 else ''}")
    return options


class _HelpRequested(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdout = sys.stdout
    if hasattr(stdout, "reconfigure"):
        stdout.reconfigure(errors="backslashreplace")
    try:
        if argv and argv[0] in ("-h", "--help", "help"):
            raise _HelpRequested
        if argv and argv[0] == "--version":
            from autograd_errors import __version__

            print(f"autograd-errors {__version__}")
            return EXIT_OK
        options = parse(argv)
        return _COMMAND_RUNNERS[options.command](options)
    except _HelpRequested:
        print(HELP, end="")
        return EXIT_OK
    except UsageError as error:
        usage = f"\n{USAGE}" if error.show_usage else ""
        print(f"autograd-errors: {error}\n{usage}", end="", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`); keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        if os.environ.get("AUTOGRAD_ERRORS_DEBUG"):
            raise
        print(
            f"autograd-errors: internal error: {type(error).__name__}: {error}\n"
            "Set AUTOGRAD_ERRORS_DEBUG=1 to see the traceback, and please report it.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _base_url(options: Options) -> str:
    from autograd_errors.report import DEFAULT_BASE_URL

    return options.base_url or os.environ.get("AUTOGRAD_ERRORS_BASE_URL") or DEFAULT_BASE_URL


def _style(stream: IO[str]) -> Style:
    from autograd_errors.report import Style

    colour = stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return Style(bool(colour))


def _width(stream: IO[str]) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 88
    return max(40, min(columns, 100)) - 2


def _read_text(options: Options) -> str:
    from autograd_errors.normalize import decode

    if options.args and options.args != ["-"]:
        if "-" in options.args:
            raise UsageError("give the text as arguments or as -, not both")
        joined = " ".join(options.args)
        # Undecodable bytes in argv arrive as surrogates; make them visible replacement marks.
        return joined.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    stdin = sys.stdin
    if stdin is None or (not options.args and stdin.isatty()):
        raise UsageError("explain needs TEXT, as an argument or on standard input")
    try:
        data = stdin.buffer.read()
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read standard input: {error}") from None
    return decode(data)


def _print_json(value: object) -> None:
    import json

    print(json.dumps(value, ensure_ascii=False, indent=2))


def _load_catalog() -> Catalog:
    from autograd_errors import catalog

    return catalog.load()


def _explain(options: Options) -> int:
    from autograd_errors import report
    from autograd_errors.matching import explain

    text = _read_text(options)
    if not text.strip():
        raise UsageError("explain got no text (only whitespace)")
    explanation = explain(text, _load_catalog())
    base_url = _base_url(options)
    if options.json:
        _print_json(
            {
                "query": text,
                "matches": [report.match_json(m, base_url) for m in explanation.matches],
                "near": [report.near_json(miss) for miss in explanation.near_misses],
                "not_autograd": report.not_autograd_json(explanation.not_autograd),
            }
        )
    else:
        print(
            report.explanation_text(explanation, base_url, _style(sys.stdout), _width(sys.stdout))
        )
    return EXIT_OK if explanation.matches else EXIT_NO_MATCH


def _list(options: Options) -> int:
    from autograd_errors import report

    entries = list(_load_catalog())
    base_url = _base_url(options)
    if options.json:
        _print_json({"entries": [report.entry_json(entry, base_url) for entry in entries]})
    else:
        print(report.list_text(entries, _style(sys.stdout)))
    return EXIT_OK


def _show(options: Options) -> int:
    from autograd_errors import report

    catalog = _load_catalog()
    wanted = options.args[0]
    if wanted not in catalog:
        import difflib

        close = difflib.get_close_matches(wanted, catalog.ids, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; `list` shows every id"
        raise UsageError(f"no entry {wanted!r}{hint}", show_usage=False)
    entry = catalog[wanted]
    base_url = _base_url(options)
    if options.json:
        _print_json(report.entry_detail_json(entry, base_url))
    else:
        print(report.entry_text(entry, base_url, _style(sys.stdout), _width(sys.stdout)))
    return EXIT_OK


def _check(options: Options) -> int:
    from autograd_errors import verify

    return verify.main(json_output=options.json)


def _record(options: Options) -> int:
    from autograd_errors import verify

    return verify.record_main(options.output)


_COMMAND_RUNNERS: dict[str, Callable[[Options], int]] = {
    "explain": _explain,
    "list": _list,
    "show": _show,
    "check": _check,
    "record": _record,
}
