"""pytest plugin: an "autograd-errors" section in the report of each test that failed with a
known autograd error, and of each test module whose collection it broke (an error raised at
import).

Installed with the package (the ``pytest11`` entry point ``autograd_errors``), it stays silent
until asked for: ``pytest -p autograd_errors`` or ``pytest --autograd-errors`` (or either in
``addopts``). The sections speak the language of ``--autograd-errors-lang en|zh``, else the
locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), as ``explain`` does.

``--autograd-errors-diagnose`` (which turns the plugin on) adds the culprit: the line of the
test's own code (or of the code it tests) where the error started (:mod:`autograd_errors.
diagnosis`). When the traceback is not enough, the failed test's function is called once more,
recorded, with the fixtures of its first call (they are not set up again: a fixture the test
changed before failing stays changed); its output is captured with the test's.
"""

from __future__ import annotations

import pytest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator

    from autograd_errors.diagnosis.findings import Diagnosis

_ACTIVE = pytest.StashKey[bool]()
_LANGUAGE = pytest.StashKey[str]()
_DIAGNOSE = pytest.StashKey[bool]()
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
        "--autograd-errors-diagnose",
        action="store_true",
        default=False,
        help="and name the line where the error started (calls a failed test once more, "
        "recorded, when its traceback is not enough)",
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
    diagnose = bool(config.getoption("autograd_errors_diagnose", False))
    config.stash[_DIAGNOSE] = diagnose
    config.stash[_ACTIVE] = bool(config.getoption("autograd_errors")) or asked_by_name or diagnose
    given = config.getoption("autograd_errors_lang", None)
    config.stash[_LANGUAGE] = given or language_from_environment(os.environ)


def _add_section(
    config: pytest.Config,
    report: pytest.TestReport | pytest.CollectReport,
    error: BaseException,
    item: pytest.Item | None = None,
) -> None:
    """The answer for ``error``, as the report's section, with the culprit when ``item`` (the
    test that raised it) is to be diagnosed; nothing for an unknown error."""
    from autograd_errors.rendering.answer import rendered_answer

    language = config.stash[_LANGUAGE]
    diagnosis, failed = _diagnosis(error, item) if item is not None else (None, "")
    try:
        answer, led = rendered_answer(error, width=_WIDTH, language=language, diagnosis=diagnosis)
    except Exception:  # noqa: BLE001 - the failure is reported; the answer is a courtesy
        answer, led = "", False
    culprit = failed or _culprit_text(diagnosis, language, with_cause=not led)
    shown = "\n\n".join(part for part in (answer, culprit) if part)
    if shown:
        report.sections.append((SECTION, shown))


def _diagnosis(error: BaseException, item: pytest.Item) -> tuple[Diagnosis | None, str]:
    """The diagnosis of the test's ``error`` (None for an unknown error), or why it failed."""
    try:
        from autograd_errors.diagnosis.engine import diagnose_again

        return diagnose_again(error, item.runtest), ""
    except Exception as failure:  # noqa: BLE001 - the failure is reported; this is a courtesy
        return None, f"the diagnosis failed ({type(failure).__name__}: {failure})"


def _culprit_text(diagnosis: Diagnosis | None, language: str, *, with_cause: bool) -> str:
    """The diagnosis as text ("" for none)."""
    if diagnosis is None:
        return ""
    from autograd_errors.rendering.diagnosis import diagnosis_text
    from autograd_errors.rendering.terminal import Style

    return diagnosis_text(diagnosis, language, Style(False), _WIDTH, with_cause=with_cause)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and call.excinfo is not None and item.config.stash.get(_ACTIVE, False):
        diagnosed = item if call.when == "call" and item.config.stash[_DIAGNOSE] else None
        _add_section(item.config, report, call.excinfo.value, diagnosed)
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
