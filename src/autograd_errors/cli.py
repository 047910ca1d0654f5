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
    from collections.abc import Callable, Iterator
    from types import TracebackType
    from typing import IO

    from autograd_errors.catalog import Catalog

USAGE = """\
usage: autograd-errors explain [TEXT ... | -] [--verbose] [--json [--echo]] [--base-url URL]
                               [--lang en|zh]
       autograd-errors list [--json] [--base-url URL] [--lang en|zh]
       autograd-errors show ID [--json | --repro] [--base-url URL] [--lang en|zh]
       autograd-errors check [ID ...] [--json]
       autograd-errors record [--output DIR]
       autograd-errors translations status|stamp [ID ...] [--entries DIR]
       autograd-errors run [--diagnose [--report FILE] [--lang en|zh]]
                           SCRIPT [ARG ...] | -m MODULE [ARG ...]
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
  check     run every entry's gallery script (or the IDs' only) on the installed torch and
            verify what it raises
  record    run them and write what this torch release raised to DIR/torch-<release>.json
            (DIR: the checkout's data/observed)
  run       run a Python script (or -m a module) as python would, explaining a known autograd
            error after its traceback; argv, __main__ and the exit code are the script's own.
            --diagnose: also name the culprit, the line of your code where the error started
            (the program runs again, instrumented, after such a failure); --report FILE writes
            it as JSON
  translations status   list the entries' missing and stale zh_CN translations (exit 1 if any)
  translations stamp    record that the translations of the IDs (default: all) are up to date

options:
  -v, --verbose   explain: every common cause, why torch raises it, the wording matched
  --json          print one JSON object instead of text
  --echo          explain --json: include the pasted text as "query"
  --repro         show: print the entry's gallery script (the repro and its fixes)
  --output DIR    where record writes its file
  --base-url URL  site that the printed links point to
                  (default: $AUTOGRAD_ERRORS_BASE_URL, else the published site)
  --lang en|zh    the language of the explanations (zh: simplified Chinese, and links to the
                  zh_CN site); without it, the first set of $LC_ALL, $LC_MESSAGES, $LANG decides:
                  zh_CN.UTF-8, zh_SG, zh... give Chinese, anything else English
  --entries DIR   translations: the records to read and stamp (default: the package's)
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
        self.repro = False
        self.verbose = False
        self.echo = False
        self.lang: str | None = None
        self.entries: str | None = None

    @property
    def language(self) -> str:
        """``--lang``, else the locale variables' language."""
        from autograd_errors.ui import language_from_environment

        return self.lang or language_from_environment(os.environ)


_COMMANDS = {
    "explain": (0, None),
    "list": (0, 0),
    "show": (1, 1),
    "check": (0, None),
    "record": (0, 0),
    "translations": (1, None),
}
_LANG_COMMANDS = ("explain", "list", "show")


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
        elif command == "show" and arg == "--repro":
            options.repro = True
        elif command == "explain" and arg in ("-v", "--verbose"):
            options.verbose = True
        elif command == "explain" and arg == "--echo":
            options.echo = True
        elif arg == "--base-url" or arg.startswith("--base-url="):
            options.base_url = _option_value(arg, rest_iter, "a URL")
        elif command == "record" and (arg == "--output" or arg.startswith("--output=")):
            options.output = _option_value(arg, rest_iter, "a directory")
        elif command in _LANG_COMMANDS and (arg == "--lang" or arg.startswith("--lang=")):
            from autograd_errors.ui import parse_lang

            try:
                options.lang = parse_lang(_option_value(arg, rest_iter, "en or zh"))
            except ValueError as error:
                raise UsageError(str(error), show_usage=False) from None
        elif command == "translations" and (arg == "--entries" or arg.startswith("--entries=")):
            options.entries = _option_value(arg, rest_iter, "a directory")
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


def _option_value(arg: str, rest: Iterator[str], what: str) -> str:
    """The value of ``--name=value`` or ``--name value``; a value that looks like an option
    (``--base-url --json``) is a mistake, not a URL."""
    name, equals, value = arg.partition("=")
    if not equals:
        value = next(rest, "")
    if not value or (not equals and value.startswith("-")):
        raise UsageError(f"{name} needs {what}")
    return value


class _HelpRequested(Exception):
    pass


class _Run:
    """The exit code a command chose, kept for when writing its output fails: ``explain … |
    true`` still exits 1 on a no-match, though nobody reads what it printed."""

    code = EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _Run.code = EXIT_OK
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        print("autograd-errors: standard output is closed", file=sys.stderr)
        return EXIT_USAGE
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        code = _run(argv)
        sys.stdout.flush()  # here, not at exit, where a failure could only be reported as noise
        return code
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours; keep the command's result.
        _silence_stdout()
        return _Run.code
    except OSError as error:  # a full disk (`>/dev/full`), a closed descriptor
        _silence_stdout()
        print(
            f"autograd-errors: cannot write the output: {error.strerror or error}", file=sys.stderr
        )
        return EXIT_USAGE
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


def _run(argv: list[str]) -> int:
    try:
        if argv and argv[0] == "run":
            return _run_program(argv[1:])
        if argv and argv[0] in ("-h", "--help", "help"):
            raise _HelpRequested
        if argv and argv[0] == "--version":
            from autograd_errors import __version__

            return _output(f"autograd-errors {__version__}", EXIT_OK)
        options = parse(argv)
        return _COMMAND_RUNNERS[options.command](options)
    except _HelpRequested:
        return _output(HELP.rstrip("\n"), EXIT_OK)
    except UsageError as error:
        usage = f"\n{USAGE}" if error.show_usage else ""
        print(f"autograd-errors: {error}\n{usage}", end="", file=sys.stderr)
        return EXIT_USAGE


def _run_program(argv: list[str]) -> int:
    """``run SCRIPT [ARG ...]`` / ``run -m MODULE [ARG ...]``: the program runs as under
    ``python``, with :func:`autograd_errors.install` in place. Its SystemExit passes through
    untouched; an uncaught exception prints its traceback (without this command's frames) and
    the answer, and exits 1, as Python does."""
    import runpy

    from autograd_errors import hooks
    from autograd_errors.diagnosis.session import run_options

    try:
        diagnosis, argv = run_options(argv)
    except ValueError as error:
        raise UsageError(f"run: {error}", show_usage=False) from None
    if not argv or argv[0] in ("-h", "--help") or argv == ["-m"]:
        raise UsageError("run needs a script, or -m and a module")
    module = argv[0] == "-m"
    target, args = (argv[1], argv[2:]) if module else (argv[0], argv[1:])
    if module:
        import importlib.util

        try:
            spec = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            raise UsageError(f"run: no module named {target!r}", show_usage=False)
        sys.argv = [spec.origin or target, *args]
        sys.path.insert(0, os.getcwd())
    else:
        if not os.path.isfile(target):
            raise UsageError(f"run: cannot open {target!r}: no such file", show_usage=False)
        sys.argv = [target, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
    hooks.install(warnings=True)
    if diagnosis:
        diagnosis.start(target, args, module)
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            _run_path(target)
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 - the program's error, reported as Python would
        error.__traceback__ = _program_frames(error.__traceback__, runpy.__file__)
        sys.excepthook(type(error), error, error.__traceback__)
        if diagnosis:
            diagnosis.failed(error)
        return 130 if isinstance(error, KeyboardInterrupt) else EXIT_NO_MATCH
    finally:
        if diagnosis:
            diagnosis.finish()
    return EXIT_OK


def _run_path(script: str) -> None:
    """Run a script as ``python SCRIPT`` does: a fresh ``__main__`` whose ``__file__`` and code
    are the absolute path (so tracebacks read the same), ``sys.argv[0]`` left as given."""
    import types

    path = os.path.abspath(script)
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec")
    main_module = types.ModuleType("__main__")
    main_module.__file__ = path
    main_module.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main_module
    exec(code, main_module.__dict__)


def _program_frames(traceback: TracebackType | None, runpy_file: str) -> TracebackType | None:
    """The traceback from the program's first frame: without this module's and runpy's."""
    ours = {os.path.abspath(__file__), os.path.abspath(runpy_file), "<frozen runpy>"}
    while traceback is not None and (
        traceback.tb_frame.f_code.co_filename in ours
        or os.path.abspath(traceback.tb_frame.f_code.co_filename) in ours
    ):
        traceback = traceback.tb_next
    return traceback


def _output(text: str, code: int) -> int:
    """Print a command's output, remembering its exit code first (see :class:`_Run`)."""
    _Run.code = code
    print(_visible(text))
    return code


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


#: C1 controls (U+009B is a terminal's CSI), bidirectional overrides and isolates, and the two
#: Unicode line breaks: a paste may hold them, and printed raw they can rewrite what a terminal
#: or an editor shows. Text shows them escaped; JSON escapes them as \\uXXXX.
_UNSAFE = frozenset(
    [*map(chr, range(0x80, 0xA0)), "\u061c", "\u200e", "\u200f", "\u2028", "\u2029"]
    + [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
)


def _visible(text: str) -> str:
    if not any(char in _UNSAFE for char in text):
        return text
    return "".join(f"\\u{ord(char):04x}" if char in _UNSAFE else char for char in text)


def _base_url(options: Options) -> str:
    from autograd_errors.report import base_url

    return base_url(options.base_url)


def _read_text(options: Options) -> str:
    from autograd_errors.normalize import decode

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
        from autograd_errors.ui import text as ui

        print(
            ui("cli.paste_prompt", options.language),
            file=sys.stderr,
            flush=True,
        )
    try:
        return decode(_read_tail(stdin.buffer))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read standard input: {error}") from None


def _read_tail(stream: IO[bytes]) -> bytes:
    """The stream's bytes, of which only the tail that the matcher reads is kept: a gigabyte
    piped in costs a few megabytes of memory, not two gigabytes. A UTF-16 byte-order mark at
    the start is kept, and the tail stays aligned to it."""
    from autograd_errors.normalize import MAX_CHARS

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


def _json_text(value: object) -> str:
    """JSON that stays valid JSON whatever stdout's encoding: characters the stream cannot
    encode, and the unsafe ones of :data:`_UNSAFE`, become ``\\uXXXX`` escapes (they can only
    occur inside strings)."""
    import json

    text = json.dumps(value, ensure_ascii=False, indent=2)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        "".encode(encoding)
    except LookupError:
        encoding = "utf-8"

    def escaped(char: str) -> str:
        if char not in _UNSAFE:
            try:
                char.encode(encoding)
                return char
            except UnicodeEncodeError:
                pass
        return json.dumps(char)[1:-1] if ord(char) > 0xFFFF else f"\\u{ord(char):04x}"

    if text.isascii():
        return text
    return "".join(char if char.isascii() else escaped(char) for char in text)


def _print_json(value: object, code: int) -> int:
    _Run.code = code
    print(_json_text(value))
    return code


def _load_catalog() -> Catalog:
    from autograd_errors import catalog

    return catalog.load()


def _explain(options: Options) -> int:
    from autograd_errors import report
    from autograd_errors.frames import user_frame
    from autograd_errors.matching import explain

    text = _read_text(options)
    if not text.strip():
        raise UsageError("explain got no text (only whitespace)")
    from autograd_errors.ui import text as ui

    explanation = explain(text, _load_catalog())
    base_url, language = _base_url(options), options.language
    code = EXIT_OK if explanation.matches else EXIT_NO_MATCH
    frame = user_frame(text) if explanation.matches else None
    if options.json:
        found = {
            "matches": [
                report.match_json(m, base_url, frame, language) for m in explanation.matches
            ],
            "near": [report.near_json(miss, language) for miss in explanation.near_misses],
            "not_autograd": report.not_autograd_json(explanation.not_autograd),
        }
        return _print_json({"query": text, **found} if options.echo else found, code)
    style, width = report.Style.for_stream(sys.stdout), report.text_width(sys.stdout)
    if options.verbose or not explanation.matches:
        return _output(
            report.explanation_text(explanation, base_url, style, width, frame, language), code
        )
    more = ui("cli.more_options", language)
    return _output(
        report.short_text(explanation, base_url, style, width, frame, more, language), code
    )


def _list(options: Options) -> int:
    from autograd_errors import report

    entries = list(_load_catalog())
    base_url, language = _base_url(options), options.language
    if options.json:
        entries_json = [report.entry_json(entry, base_url, language) for entry in entries]
        return _print_json({"entries": entries_json}, EXIT_OK)
    style = report.Style.for_stream(sys.stdout)
    return _output(report.list_text(entries, style, language), EXIT_OK)


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
    if options.repro:
        if options.json:
            raise UsageError("--repro prints a script; it does not go with --json")
        return _output(_repro(entry.id, catalog, _base_url(options)), EXIT_OK)
    base_url, language = _base_url(options), options.language
    if options.json:
        return _print_json(report.entry_detail_json(entry, base_url, language), EXIT_OK)
    style, width = report.Style.for_stream(sys.stdout), report.text_width(sys.stdout)
    return _output(report.entry_text(entry, base_url, style, width, language), EXIT_OK)


def _repro(entry_id: str, catalog: Catalog, base_url: str) -> str:
    """The entry's gallery script, as bundled with the package (or beside it in a checkout),
    as the site's download gives it: with the entry's text where its page has directives."""
    from autograd_errors import gallery

    for script in gallery.scripts():
        if script.entry_id == entry_id:
            with open(script.path, encoding="utf-8") as handle:
                return gallery.standalone(handle.read(), catalog, base_url).rstrip("\n")
    raise UsageError(f"no gallery script for {entry_id!r} in this installation", show_usage=False)


def _check(options: Options) -> int:
    """``check``: 0 when every entry passes, else 1."""
    from autograd_errors import verify

    try:
        version = verify.import_torch()
    except verify.TorchUnavailable as error:
        print(f"autograd-errors check: {error}", file=sys.stderr)
        return EXIT_USAGE
    catalog = _load_catalog()
    unknown = [entry_id for entry_id in options.args if entry_id not in catalog]
    if unknown:
        raise UsageError(f"check: no entry {unknown[0]!r}", show_usage=False)
    results = verify.check(catalog, only=options.args or None)
    if options.json:
        import json

        print(json.dumps({"torch": version, "results": [r.as_dict() for r in results]}, indent=2))
    else:
        print(verify.report_text(results, version))
    return EXIT_NO_MATCH if any(result.status.failing for result in results) else EXIT_OK


def _record(options: Options) -> int:
    """``record``: write what the installed torch raises, per entry; 1 when an entry fails."""
    from autograd_errors import catalog, gallery, observations, verify

    def refuse(reason: str) -> int:
        print(f"autograd-errors record: {reason}", file=sys.stderr)
        return EXIT_USAGE

    try:
        version = verify.import_torch()
    except verify.TorchUnavailable as error:
        return refuse(str(error))
    if observations.is_pre_release(version):
        return refuse(
            f"torch {version} is a development build or a pre-release; recordings are of "
            "releases (install one, e.g. with `pip install torch==X.Y.Z`)"
        )
    directory = options.output or observations.default_directory()
    if directory is None:
        return refuse("this is an installed package, not a checkout: give --output DIR")
    path = observations.recording_path(directory, version)
    problem = observations.output_problem(path)
    if problem:
        return refuse(problem)
    entries = catalog.load()
    judged = verify.run_all(entries, gallery.scripts())
    try:
        observations.write_recording(path, observations.recording_data(entries, judged, version))
    except OSError as error:
        return refuse(f"cannot write {path}: {error.strerror or error}")
    counts: dict[str, int] = {}
    for result, _ in judged:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    summary = ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    print(f"torch {version}: {summary}; written to {path}")
    return EXIT_NO_MATCH if any(result.status.failing for result, _ in judged) else EXIT_OK


def _translations(options: Options) -> int:
    """``translations status``: 0 when every translation is there and up to date, else 1 (one
    line per missing or stale text). ``translations stamp [ID ...]``: record the hashes of the
    English texts the translations of these entries (default: all) were made from."""
    from autograd_errors import catalog, stamps, translations

    action, wanted = options.args[0], options.args[1:]
    if action not in ("status", "stamp"):
        raise UsageError(f"translations: unknown action {action!r} (actions: status, stamp)")
    directory = options.entries or catalog.ENTRIES_DIR
    if not os.path.isdir(directory):
        raise UsageError(f"translations: no directory {directory!r}", show_usage=False)
    try:
        loaded = catalog.load(directory, use_cache=False)
    except catalog.CatalogError as error:
        print(f"autograd-errors translations: {error}", file=sys.stderr)
        return EXIT_USAGE
    unknown = [entry_id for entry_id in wanted if entry_id not in loaded]
    if unknown:
        raise UsageError(f"translations: no entry {unknown[0]!r}", show_usage=False)
    entries = [loaded[entry_id] for entry_id in wanted] if wanted else list(loaded)
    if action == "status":
        lines: list[str] = []
        for language in translations.TRANSLATED:
            lines += [f"{language} {line}" for line in stamps.status_lines(entries, language)]
        if not lines:
            return _output(f"{len(entries)} entries: every translation is up to date", EXIT_OK)
        lines.append(f"{len(lines)} texts to translate or to review, then stamp")
        return _output("\n".join(lines), EXIT_NO_MATCH)
    stamped = 0
    for entry in entries:
        path = os.path.join(directory, f"{entry.id}.toml")
        with open(path, encoding="utf-8", newline="") as handle:
            record = handle.read()
        updated = record
        for language in translations.TRANSLATED:
            if language in entry.translations:
                try:
                    updated = stamps.stamped(updated, entry, language)
                except translations.TranslationError as error:
                    print(
                        f"autograd-errors translations: {entry.id}.toml: {error}", file=sys.stderr
                    )
                    return EXIT_USAGE
        if updated != record:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(updated)
            stamped += 1
    return _output(f"stamped {stamped} of {len(entries)} entries", EXIT_OK)


_COMMAND_RUNNERS: dict[str, Callable[[Options], int]] = {
    "explain": _explain,
    "list": _list,
    "show": _show,
    "check": _check,
    "record": _record,
    "translations": _translations,
}
