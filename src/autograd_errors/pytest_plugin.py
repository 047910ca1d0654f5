"""pytest plugin: an "autograd-errors" section in the report of each test that failed with a
known autograd error.

Installed with the package (the ``pytest11`` entry point ``autograd_errors``), it stays silent
until asked for: ``pytest -p autograd_errors`` or ``pytest --autograd-errors`` (or either in
``addopts``).
"""

from __future__ import annotations

import pytest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator

_ACTIVE = pytest.StashKey[bool]()
#: The width of the answer's text in pytest's report.
_WIDTH = 88


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("autograd-errors").addoption(
        "--autograd-errors",
        action="store_true",
        default=False,
        help="explain known PyTorch autograd errors in the reports of failed tests",
    )


def pytest_configure(config: pytest.Config) -> None:
    asked_by_name = "autograd_errors" in (config.getoption("plugins", None) or [])
    config.stash[_ACTIVE] = bool(config.getoption("autograd_errors")) or asked_by_name


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and call.excinfo is not None and item.config.stash.get(_ACTIVE, False):
        from autograd_errors.hooks import answer_for

        try:
            answer = answer_for(call.excinfo.value, width=_WIDTH)
        except Exception:  # noqa: BLE001 - the failure is reported; the answer is a courtesy
            answer = ""
        if answer:
            report.sections.append(("autograd-errors", answer))
    return report
