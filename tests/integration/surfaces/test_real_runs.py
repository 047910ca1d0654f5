"""Each case of ``tests/realruns.py`` run again for real (``python script.py``, a terminal
IPython with colours, a Jupyter kernel's cells, ``torchrun`` with two ranks): its fresh output
gets the answer the recorded one gets in the unit tests: the entry, the user's line (never a
launcher's, the standard library's or a re-raise's), the cause and what supports it.

Also the surfaces that answer in the process itself, on the chained error of the new user's
trial: ``install()`` and the pytest section point at the line that failed, not the re-raise."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import answer_json
from realruns import CASES, problems, run_all

from autograd_errors import catalog

CATALOG = catalog.load(use_cache=False)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> dict[str, str]:
    return run_all(tmp_path_factory.mktemp("real-runs"))


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_fresh_run_gets_its_line_and_its_cause(fresh, case):
    assert problems(case, answer_json(fresh[case.name], CATALOG)) == []


# A training step's error re-raised by the trainer (faults-2026-12-01 F14).
WRAPPED = """\
import torch

class TrainerError(Exception):
    pass

def step():
    x = torch.randn(3, requires_grad=True)
    x += 1

def test_step():
    try:
        step()
    except RuntimeError as error:
        raise TrainerError("training step failed") from error
"""


def test_install_points_at_the_line_that_failed_not_the_re_raise(tmp_path, cli_env):
    script = tmp_path / "wrapped.py"
    script.write_text(
        "import autograd_errors; autograd_errors.install()\n" + WRAPPED + "test_step()\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=cli_env, check=False
    )
    assert done.returncode == 1
    answer = " ".join(done.stderr.split("\nautograd-errors: ", 1)[1].split())  # unfilled
    assert f"Your line: {script}:9 x += 1 " in answer


def test_the_pytest_section_points_at_the_line_that_failed(pytester):
    written = pytester.makepyfile(test_wrapped=WRAPPED)
    result = pytester.runpytest_subprocess("-p", "autograd_errors")
    result.assert_outcomes(failed=1)
    section = " ".join(result.stdout.str().split("- autograd-errors -", 1)[1].split())
    assert f"Your line: {written}:8 x += 1 " in section
