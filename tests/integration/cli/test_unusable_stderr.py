"""Usage errors when stderr cannot take them (issue 22, the fault report's I18): a full stderr
(``2>/dev/full``) still exits 2, the contract's code; a closed one (``2>&-``) sends nothing to
stdout, where a ``--json`` reader is."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

COMMAND = (sys.executable, "-m", "autograd_errors")
MESSAGE = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
USAGE_ERRORS = [
    ("nosuchcmd",),
    ("show", "no-such-id"),
    ("run",),
    ("explain", "--json", "--lang", "xx", MESSAGE),
]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", USAGE_ERRORS)
def test_a_usage_error_on_a_full_stderr_exits_2(args, cli_env):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*COMMAND, *args], env=cli_env, stdout=subprocess.PIPE, stderr=full, check=False
        )
    assert (result.returncode, result.stdout) == (2, b"")


@pytest.mark.parametrize("args", USAGE_ERRORS)
def test_a_usage_error_with_stderr_closed_writes_nothing_to_stdout(args, cli_env):
    result = subprocess.run(
        [*COMMAND, *args],
        env=cli_env,
        stdout=subprocess.PIPE,
        preexec_fn=lambda: os.close(2),
        check=False,
    )
    assert (result.returncode, result.stdout) == (2, b"")
