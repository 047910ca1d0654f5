"""Ctrl-C under ``install()`` (issue 22, the fault report's H8): the script dies of SIGINT, as
without it, so that a shell loop around it stops; the hook used to make it exit 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import interrupted

SLEEPER = (
    "import sys, time\n"
    "if sys.argv[1] == 'install':\n"
    "    import autograd_errors; autograd_errors.install(warnings=True)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.skipif(os.name != "posix", reason="a death by a signal is POSIX's")
def test_ctrl_c_with_install_dies_of_sigint_as_without_it(tmp_path, cli_env):
    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER)
    assert interrupted([sys.executable, str(script), "plain"], cli_env) == -signal.SIGINT
    assert interrupted([sys.executable, str(script), "install"], cli_env) == -signal.SIGINT


@pytest.mark.skipif(os.name != "posix", reason="a death by a signal is POSIX's")
@pytest.mark.parametrize(
    "launch",
    [
        "{python} {script} plain",
        "{python} {script} install",
        "{python} -m autograd_errors run {script} plain",
    ],
)
def test_ctrl_c_stops_a_shell_loop_around_the_script(tmp_path, cli_env, launch):
    """H8 and R2 (F09) as a user meets them: Ctrl-C in a terminal signals the whole
    foreground process group, and bash stops its loop only when the child died of SIGINT
    (WIFSIGNALED). Exiting 1 (install) or 130 (run) made it go on to the next iteration."""
    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER)
    command = launch.format(python=sys.executable, script=script)
    loop = f'for i in 1 2 3; do {command}; echo "after $i rc=$?"; done; echo finished'
    shell = subprocess.Popen(
        ["bash", "-c", loop],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )
    try:
        assert shell.stdout is not None
        assert shell.stdout.readline() == b"ready\n"
        time.sleep(0.3)
        os.killpg(shell.pid, signal.SIGINT)
        shell.wait(timeout=60)
        # bash itself dies of the SIGINT its child died of; nothing after the first iteration.
        assert shell.stdout.read() == b""
        assert shell.returncode == -signal.SIGINT
    finally:
        if shell.poll() is None:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()
