"""pytest plugin: an "autograd-errors" section in the report of each test that failed with a
known autograd error, and of each test module whose collection it broke (an error raised at
import).

Installed with the package (the ``pytest11`` entry point ``autograd_errors``), it stays silent
until asked for: ``pytest -p autograd_errors`` or ``pytest --autograd-errors`` (or either in
``addopts``). The sections speak the language of ``--autograd-errors-lang en|zh``, else the
locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), as ``explain`` does.
"""

from __future__ import annotations

import pytest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator

_ACTIVE = pytest.StashKey[bool]()
_LANGUAGE = pytest.StashKey[str]()
#: The width of the answer's text in pytest's report.
_WIDTH = 88
#: The section's name in the report.
SECTION = "autograd-errors"


def _language(value: str) -> str:
    import argparse

    from autograd_errors.rendering.strings import parse_lang

    try:
        return parse_lang(value)
    except ValueError as error:
        message = str(error).replace("--lang", "--autograd-errors-lang")
        raise argparse.ArgumentTypeError(message) from None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autograd-errors")
    group.addoption(
        "--autograd-errors",
        action="store_true",
        default=False,
        help="explain known PyTorch autograd errors in the reports of failed tests",
    )
    group.addoption(
        "--autograd-errors-lang",
        type=_language,
        default=None,
        metavar="en|zh",
        help="the language of those explanations (default: the locale's, as LC_ALL, "
        "LC_MESSAGES, LANG say)",
    )


def pytest_configure(config: pytest.Config) -> None:
    import os

    from autograd_errors.rendering.strings import language_from_environment

    asked_by_name = "autograd_errors" in (config.getoption("plugins", None) or [])
    config.stash[_ACTIVE] = bool(config.getoption("autograd_errors")) or asked_by_name
    given = config.getoption("autograd_errors_lang", None)
    config.stash[_LANGUAGE] = given or language_from_environment(os.environ)


def _add_section(
    config: pytest.Config, report: pytest.TestReport | pytest.CollectReport, error: BaseException
) -> None:
    """The answer for ``error``, as the report's section; nothing for an unknown error."""
    from autograd_errors.hooks import answer_for

    try:
        answer = answer_for(error, width=_WIDTH, language=config.stash[_LANGUAGE])
    except Exception:  # noqa: BLE001 - the failure is reported; the answer is a courtesy
        answer = ""
    if answer:
        report.sections.append((SECTION, answer))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and call.excinfo is not None and item.config.stash.get(_ACTIVE, False):
        _add_section(item.config, report, call.excinfo.value)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    # pytest keeps the collection's call on its report (runner.collect_one_node reads it).
    call = getattr(report, "call", None)
    excinfo = getattr(call, "excinfo", None)
    if report.failed and excinfo is not None and collector.config.stash.get(_ACTIVE, False):
        _add_section(collector.config, report, excinfo.value)
    return report
