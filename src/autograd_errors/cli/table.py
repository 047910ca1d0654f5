"""The command table: every command and option of ``autograd-errors``, once. The usage text,
``--help``, the parser and the dispatch are all made from it.

A new command is a row of :data:`COMMANDS` (its arguments, its options, what it does, the
function that runs it); a new option, a row of :data:`OPTIONS` and its name in the rows of the
commands that take it. Arguments are parsed by hand: ``argparse`` alone costs more start-up
time than the whole of ``explain``, which must start as fast as a bare interpreter, give or take.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class Option:
    """One option: its names, the name of its value (none for a flag), what it does."""

    __slots__ = ("attribute", "help", "names", "parse", "value")

    def __init__(
        self,
        names: tuple[str, ...],
        help: str,
        value: str = "",
        parse: Callable[[str], str] | None = None,
    ) -> None:
        self.names = names
        self.help = help
        self.value = value  # "URL": the option takes one, as --name URL or --name=URL
        self.parse = parse  # the value checked and made what the command reads
        self.attribute = names[-1].lstrip("-").replace("-", "_")

    @property
    def shown(self) -> str:
        """As the usage text shows it: ``--base-url URL``."""
        return f"{self.names[-1]} {self.value}" if self.value else self.names[-1]


def _language(value: str) -> str:
    from autograd_errors.rendering.strings import parse_lang

    return parse_lang(value)


def _seconds(value: str) -> str:
    """A positive number of seconds, as given (``--timeout 30``, ``--timeout 0.5``)."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError("needs a number of seconds above 0")
    return value


def _rule_codes(value: str) -> str:
    from autograd_errors.lint.registry import parse_codes

    return parse_codes(value)


OPTIONS = {
    option.attribute: option
    for option in (
        Option(
            ("-v", "--verbose"),
            "explain: every common cause, why torch raises it, the wording matched",
        ),
        Option(("--json",), "print JSON instead of text (one object; lint: a list)"),
        Option(("--echo",), 'explain --json: include the pasted text as "query"'),
        Option(("--repro",), "show: print the entry's gallery script (the repro and its fixes)"),
        Option(("--output",), "where record writes its file", value="DIR"),
        Option(
            ("--timeout",),
            "check, record: the seconds each gallery script may run before it is stopped\n"
            "and its entry fails as TIMEOUT (default 300)",
            value="SECONDS",
            parse=_seconds,
        ),
        Option(
            ("--base-url",),
            "site that the printed links point to\n"
            "(default: $AUTOGRAD_ERRORS_BASE_URL, else the published site)",
            value="URL",
        ),
        Option(
            ("--lang",),
            "the language of the explanations (zh: simplified Chinese, and links to the\n"
            "zh_CN site); without it, the first set of $LC_ALL, $LC_MESSAGES, $LANG decides:\n"
            "zh_CN.UTF-8, zh_SG, zh... give Chinese, anything else English",
            value="en|zh",
            parse=_language,
        ),
        Option(
            ("--entries",),
            "translations: the records to read and stamp (default: the package's)",
            value="DIR",
        ),
        Option(
            ("--select",),
            "lint: report only these rule codes or prefixes (AE1,AE203); the opinionated\n"
            "rules (AE9) are reported only when selected",
            value="CODES",
            parse=_rule_codes,
        ),
        Option(
            ("--ignore",),
            "lint: do not report these rule codes or prefixes",
            value="CODES",
            parse=_rule_codes,
        ),
    )
}
#: What a value of each option is, in an error message: "--base-url needs a URL".
_VALUE_WORDS = {
    "URL": "a URL",
    "DIR": "a directory",
    "en|zh": "en or zh",
    "CODES": "rule codes, such as AE101 or AE1",
    "SECONDS": "a number of seconds",
}


class Command:
    """One command: its arguments (as the usage text shows them, and how many it takes), its
    options, what it does, and the function that runs it (``module:function`` of this
    package's ``cli``, imported only when the command runs)."""

    __slots__ = (
        "arguments",
        "exit_codes",
        "least",
        "most",
        "name",
        "options",
        "raw",
        "runner",
        "summary",
    )

    def __init__(
        self,
        name: str,
        arguments: str,
        count: tuple[int, int | None],
        options: tuple[str, ...],
        summary: str,
        runner: str,
        *,
        raw: bool = False,
        exit_codes: str = "",
    ) -> None:
        self.name = name
        self.arguments = arguments
        self.least, self.most = count
        self.options = options
        self.summary = summary
        self.runner = runner
        self.raw = raw  # the command parses its arguments itself (``run``: the program's own)
        self.exit_codes = exit_codes  # ``CMD --help``'s last line, when not the commands' own

    def run(self, options: Options) -> int:
        module_name, _, function = self.runner.partition(":")
        module = __import__(f"autograd_errors.cli.{module_name}", fromlist=[function])
        runner: Callable[[Options], int] = getattr(module, function)
        return runner(options)


COMMANDS = {
    command.name: command
    for command in (
        Command(
            "explain",
            "[TEXT ... | -]",
            (0, None),
            ("verbose", "json", "echo", "base_url", "lang"),
            "name the entries that explain TEXT: a message, a whole traceback, notebook output.\n"
            "TEXT comes from the arguments, or from standard input when it is - or absent.",
            "explain:explain",
        ),
        Command(
            "list",
            "",
            (0, 0),
            ("json", "base_url", "lang"),
            "every entry of the catalog",
            "entries:list_entries",
        ),
        Command(
            "show",
            "ID",
            (1, 1),
            ("json", "repro", "base_url", "lang"),
            "one entry, with all its wordings across torch releases",
            "entries:show",
        ),
        Command(
            "check",
            "[ID ...]",
            (0, None),
            ("json", "timeout"),
            "run every entry's gallery script (or the IDs' only) on the installed torch, each\n"
            "in a process of its own, and verify what it raises",
            "checking:check",
        ),
        Command(
            "record",
            "",
            (0, 0),
            ("output", "timeout"),
            "run them and write what this torch release raised to DIR/torch-<release>.json\n"
            "(DIR: the checkout's data/observed)",
            "checking:record",
        ),
        Command(
            "translations",
            "status|stamp [ID ...]",
            (1, None),
            ("entries",),
            "status: list the entries' missing and stale zh_CN translations (exit 1 if any)\n"
            "stamp: record that the translations of the IDs (default: all) are up to date",
            "translations:translations",
        ),
        Command(
            "run",
            "[--lang en|zh] SCRIPT [ARG ...] | run [--lang en|zh] -m MODULE [ARG ...]",
            (0, None),
            (),
            "run a Python script (or -m a module) as python would, explaining a known autograd\n"
            "error after its traceback; argv, __main__ and the exit code are the script's own.\n"
            "Options go before the program (after it they are the program's); a script named\n"
            "like an option runs after --",
            "run:run",
            raw=True,
        ),
        Command(
            "lint",
            "PATH ...",
            (0, None),
            ("json", "select", "ignore", "lang"),
            "check Python files and folders (- reads standard input) for the autograd\n"
            "pitfalls of the catalog, and for fixes that silence an error and leave training\n"
            "wrong: `path:line:col: CODE message`; a line ending in `# noqa` (or\n"
            "`# noqa: AE101,AE2`) is not reported",
            "lint:lint",
            exit_codes="exit codes: 0 nothing found, 1 findings, 2 usage error or unreadable "
            "path, 3 internal error",
        ),
    )
}


def _usage_lines(only: Command | None = None) -> Iterator[str]:
    width = 100
    for number, command in enumerate([only] if only else COMMANDS.values()):
        lead = ("usage: " if number == 0 else "       ") + f"autograd-errors {command.name}"
        line = lead + (f" {command.arguments}" if command.arguments else "")
        for name in command.options:
            shown = f"[{OPTIONS[name].shown}]"
            if len(line) + 1 + len(shown) > width:
                yield line
                line = " " * len(lead)
            line += " " + shown
        yield line
    if only is None:
        yield "       autograd-errors --help | --version"


def usage(command: Command | None = None) -> str:
    """The usage text: a line (or two) per command (or for ``command`` alone), from the table."""
    return "\n".join(_usage_lines(command)) + "\n"


def _help_lines() -> Iterator[str]:
    yield "Explain a PyTorch autograd error message."
    yield ""
    yield "commands:"
    for command in COMMANDS.values():
        first, *more = command.summary.split("\n")
        yield f"  {command.name:<12} {first}"
        yield from (f"{'':15}{line}" for line in more)
    yield ""
    yield "options:"
    for option in (*OPTIONS.values(), Option(("-h", "--help"), "show this help")):
        names = ", ".join((*option.names[:-1], option.shown))
        first, *more = option.help.split("\n")
        yield f"  {names:<15} {first}"
        yield from (f"{'':18}{line}" for line in more)
    yield "  --version       print the version"
    yield ""
    yield (
        "exit codes: 0 matched/success, 1 no match (check: an entry failed), 2 usage error, "
        "3 internal error"
    )


def _command_help_lines(command: Command) -> Iterator[str]:
    yield from command.summary.split("\n")
    if command.options:
        yield ""
        yield "options:"
    for name in (*command.options, None):
        option = OPTIONS[name] if name else Option(("-h", "--help"), "show this help")
        names = ", ".join((*option.names[:-1], option.shown))
        first, *more = option.help.split("\n")
        yield f"  {names:<15} {first}"
        yield from (f"{'':18}{line}" for line in more)
    yield ""
    yield command.exit_codes or (
        "exit codes: 0 matched/success, 1 no match (check: an entry failed), 2 usage error, "
        "3 internal error"
    )


def help_text(command: Command | None = None) -> str:
    """``--help``: the usage, then each command and option; ``CMD --help``: that command's
    usage, what it does and its options. Both from the table."""
    if command is not None:
        return usage(command) + "\n" + "\n".join(_command_help_lines(command)) + "\n"
    return usage() + "\n" + "\n".join(_help_lines()) + "\n"


class UsageError(Exception):
    """Bad command line or unknown id: exit code 2, with the usage text for a bad command line
    (the command's own, when the command is known)."""

    def __init__(
        self, message: str, *, show_usage: bool = True, command: Command | None = None
    ) -> None:
        super().__init__(message)
        self.show_usage = show_usage
        self.command = command


class HelpRequested(Exception):
    """``-h``/``--help`` anywhere: the help (of the command, when one was named), and exit 0."""

    def __init__(self, command: Command | None = None) -> None:
        super().__init__()
        self.command = command


class Options:
    """A parsed command line: the command, its arguments, and each option's value (a flag is
    False until given)."""

    def __init__(self, command: Command) -> None:
        self.command = command
        self.args: list[str] = []
        self.verbose = self.json = self.echo = self.repro = False
        self.output: str | None = None
        self.timeout: str | None = None  # check, record: seconds, checked
        self.base_url: str | None = None
        self.lang: str | None = None
        self.entries: str | None = None
        self.select: str | None = None  # lint: comma-separated codes, checked
        self.ignore: str | None = None

    @property
    def language(self) -> str:
        """``--lang``, else the locale variables' language."""
        import os

        from autograd_errors.rendering.strings import language_from_environment

        return self.lang or language_from_environment(os.environ)


_BY_NAME = {name: option for option in OPTIONS.values() for name in option.names}


def parse(argv: list[str]) -> Options:
    """The command line ``argv`` (without the program's name), as the table allows it."""
    if not argv:
        raise UsageError("a command is required")
    name, rest = argv[0], argv[1:]
    command = COMMANDS.get(name)
    if command is None:
        raise UsageError(f"unknown command {name!r} (commands: {', '.join(COMMANDS)})")
    options = Options(command)
    if command.raw:
        options.args = rest
        return options
    positional_only = False
    rest_iter = iter(rest)
    for arg in rest_iter:
        if positional_only or arg == "-" or not arg.startswith("-"):
            options.args.append(arg)
            continue
        if arg == "--":
            positional_only = True
            continue
        if arg in ("-h", "--help"):
            raise HelpRequested(command)
        option = _BY_NAME.get(arg.partition("=")[0] if arg.startswith("--") else arg)
        if option is None or option.attribute not in command.options:
            raise UsageError(f"unknown option {arg!r} for {command.name}", command=command)
        if not option.value:
            if arg not in option.names:  # --json=1
                raise UsageError(f"unknown option {arg!r} for {command.name}", command=command)
            setattr(options, option.attribute, True)
            continue
        value = _option_value(arg, rest_iter, _VALUE_WORDS[option.value], command)
        if option.parse is not None:
            try:
                value = option.parse(value)
            except ValueError as error:
                message = str(error)
                if message.startswith("needs "):  # the value's own rule: "--select needs ..."
                    message = f"{option.names[-1]} {message}"
                elif option.attribute in ("select", "ignore"):
                    message = f"{option.names[-1]}: {message}"
                raise UsageError(message, show_usage=False) from None
        previous = getattr(options, option.attribute)
        if option.attribute in ("select", "ignore") and previous:
            value = f"{previous},{value}"  # given twice: both
        setattr(options, option.attribute, value)
    if len(options.args) < command.least:
        raise UsageError(f"{command.name} needs an argument")
    most = command.most
    if most is not None and len(options.args) > most:
        plural = "s" if most != 1 else ""
        raise UsageError(f"{command.name} takes {most or 'no'} argument{plural}")
    return options


def _option_value(arg: str, rest: Iterator[str], what: str, command: Command) -> str:
    """The value of ``--name=value`` or ``--name value``; a value that looks like an option
    (``--base-url --json``) is a mistake, not a URL."""
    name, equals, value = arg.partition("=")
    if not equals:
        value = next(rest, "")
    if not value or (not equals and value.startswith("-")):
        raise UsageError(f"{name} needs {what}", command=command)
    return value
