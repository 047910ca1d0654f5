"""``run PROGRAM`` behaves as ``python PROGRAM`` (issue 22, the fault report's R2, R5 to R9,
R12, R15 and R19): each test runs a real program both ways, in a real subprocess, and compares
what the user sees: the exit status (a death by SIGINT included), the output, ``sys.path``,
the annotations, the traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import interrupted

PYTHON = (sys.executable,)
RUN = (sys.executable, "-m", "autograd_errors", "run")
LEAF_ERROR = "RuntimeError: a leaf Variable that requires grad is being used in an in-place"


def both(
    directory: Path, *program: str, cli_env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """``python *program`` and ``run *program``, from ``directory``."""
    results = []
    for launcher in (PYTHON, RUN):
        results.append(
            subprocess.run(
                [*launcher, *program],
                cwd=directory,
                env=cli_env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        )
    return results[0], results[1]


def test_annotations_are_not_postponed_and_the_loader_is_python_s(tmp_path, cli_env):
    """R5: the script was compiled with the runner's ``from __future__ import annotations``,
    which broke ``functools.singledispatch`` on a local class."""
    (tmp_path / "annotated.py").write_text(
        "import functools\n"
        "def f(x: int): ...\n"
        "print(f.__annotations__)\n"
        "def main():\n"
        "    class Batch: ...\n"
        "    @functools.singledispatch\n"
        "    def kind(value): return 'other'\n"
        "    @kind.register\n"
        "    def _(value: Batch): return 'batch'\n"
        "    print(kind(Batch()))\n"
        "main()\n"
        "print(type(__loader__).__name__)\n"
    )
    python, run = both(tmp_path, "annotated.py", cli_env=cli_env)
    assert python.stdout == "{'x': <class 'int'>}\nbatch\nSourceFileLoader\n"
    assert (run.returncode, run.stdout) == (0, python.stdout), run.stderr


def test_the_current_directory_is_not_on_sys_path_for_a_script_elsewhere(tmp_path, cli_env):
    """R6: under ``python -m autograd_errors run ../proj/x.py`` a ``csv.py`` in the current
    directory replaced the standard library's for the program."""
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "csv.py").write_text("raise SystemExit(9)\n")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "uses_csv.py").write_text(
        "import csv, sys\nprint(csv.__name__, sys.path[0].endswith('proj'))\n"
    )
    python, run = both(tmp_path / "here", "../proj/uses_csv.py", cli_env=cli_env)
    assert (python.returncode, python.stdout) == (0, "csv True\n")
    assert (run.returncode, run.stdout) == (0, python.stdout), run.stderr


def test_a_symlinked_script_imports_from_its_real_directory(tmp_path, cli_env):
    """R7: Python puts the script's resolved directory on ``sys.path``."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "sibling.py").write_text("WHERE = 'sibling'\n")
    (tmp_path / "real" / "main.py").write_text("import sibling\nprint(sibling.WHERE)\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real" / "main.py")
    python, run = both(tmp_path, "link.py", cli_env=cli_env)
    assert (python.returncode, python.stdout) == (0, "sibling\n")
    assert (run.returncode, run.stdout) == (0, python.stdout), run.stderr


def test_a_directory_and_a_zipapp_run_as_python_runs_them(tmp_path, cli_env):
    """R8, R9: a directory with ``__main__.py`` was "no such file", a zipapp a SyntaxError."""
    main = "import sys, helper\nprint('app ran', sys.argv, helper.NAME)\n"
    (tmp_path / "appdir").mkdir()
    (tmp_path / "appdir" / "__main__.py").write_text(main)
    (tmp_path / "appdir" / "helper.py").write_text("NAME = 'helper'\n")
    with zipfile.ZipFile(tmp_path / "app.zip", "w") as archive:
        archive.writestr("__main__.py", main)
        archive.writestr("helper.py", "NAME = 'zipped'\n")
    for target, shown in (("appdir", "helper"), ("app.zip", "zipped")):
        python, run = both(tmp_path, target, "x", cli_env=cli_env)
        assert (python.returncode, python.stdout) == (0, f"app ran [{target!r}, 'x'] {shown}\n")
        assert (run.returncode, run.stdout) == (0, python.stdout), run.stderr
    (tmp_path / "empty").mkdir()
    refused = both(tmp_path, "empty", cli_env=cli_env)[1]
    assert refused.returncode == 2
    assert (
        refused.stderr.strip() == "autograd-errors: run: cannot find '__main__' module in 'empty'"
    )


@pytest.mark.parametrize("ending", ["sys.stdout.close()", "sys.stdout = None"])
def test_a_program_that_closes_its_stdout_ends_with_0(tmp_path, cli_env, ending):
    """R12: ``run`` flushed the program's closed stdout and reported an internal error (3)."""
    (tmp_path / "closes.py").write_text(f"import sys\nprint('done')\n{ending}\n")
    python, run = both(tmp_path, "closes.py", cli_env=cli_env)
    assert (python.returncode, python.stdout, python.stderr) == (0, "done\n", "")
    assert (run.returncode, run.stdout, run.stderr) == (0, "done\n", "")


@pytest.fixture
def packages(tmp_path):
    """``badpkg`` raises the leaf in-place error on import; ``deppkg`` imports a dependency
    that is not installed; ``okpkg`` has no ``missing`` submodule."""
    for name, init in (
        ("badpkg", "import torch\nx = torch.ones(2, requires_grad=True)\nx += 1\n"),
        ("deppkg", "import wandb_not_installed_here\n"),
        ("okpkg", ""),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(init)
        (tmp_path / name / "sub.py").write_text("print('sub ran')\n")
    return tmp_path


def test_an_error_importing_the_package_of_dash_m_is_the_program_s(packages, cli_env):
    """R15: it was an internal error (3) with no traceback, or "no module named" (2) hiding
    the missing dependency."""
    python, run = both(packages, "-m", "badpkg.sub", cli_env=cli_env)
    assert python.returncode == 1
    assert LEAF_ERROR in python.stderr
    assert run.returncode == 1
    assert 'badpkg/__init__.py", line 3, in <module>\n    x += 1\n' in run.stderr
    assert LEAF_ERROR in run.stderr
    assert "(leaf-inplace)" in run.stderr  # and the answer
    assert "importlib" not in run.stderr  # the frames are the program's, not the runner's
    python, run = both(packages, "-m", "deppkg.sub", cli_env=cli_env)
    missing = "ModuleNotFoundError: No module named 'wandb_not_installed_here'"
    assert python.returncode == 1
    assert missing in python.stderr
    assert run.returncode == 1, run.stderr
    assert missing in run.stderr
    run = both(packages, "-m", "okpkg.missing", cli_env=cli_env)[1]
    assert run.returncode == 2
    assert run.stderr.strip() == "autograd-errors: run: no module named 'okpkg.missing'"
    assert both(packages, "-m", "okpkg.sub", cli_env=cli_env)[1].stdout == "sub ran\n"


@pytest.mark.parametrize(
    "hook",
    [
        "def hook(*args):\n"
        "    raise RuntimeError('my logging hook is broken')\n"
        "sys.excepthook = hook\n",
        "sys.excepthook = None\n",
        "del sys.excepthook\n",
    ],
    ids=["raises", "none", "deleted"],
)
def test_a_program_whose_own_excepthook_fails_still_shows_its_error(tmp_path, cli_env, hook):
    """R19 (F04): the hook's exception became an internal error (3) and the program's error
    was never shown. Python says "Error in sys.excepthook" (or that it is missing) and shows
    both; ``run`` prints the very same bytes, without a frame of its own in the hook's
    traceback."""
    (tmp_path / "bad_hook.py").write_text(
        f"import sys\n{hook}raise ValueError('the program failed')\n"
    )
    python, run = both(tmp_path, "bad_hook.py", cli_env=cli_env)
    assert python.returncode == 1, python.stderr
    assert python.stderr.rstrip().endswith("ValueError: the program failed")
    assert (run.returncode, run.stdout, run.stderr) == (1, python.stdout, python.stderr)


@pytest.mark.skipif(os.name != "posix", reason="a death by a signal is POSIX's")
def test_ctrl_c_under_run_dies_of_sigint_as_python_does(tmp_path, cli_env):
    """R2: ``run`` exited 130, so a shell loop around it went on to its next iteration."""
    (tmp_path / "sleeper.py").write_text(
        "import atexit, time\natexit.register(print, 'atexit ran')\n"
        "print('ready', flush=True)\ntime.sleep(60)\n"
    )
    assert interrupted([*PYTHON, "sleeper.py"], cli_env, str(tmp_path)) == -signal.SIGINT
    assert interrupted([*RUN, "sleeper.py"], cli_env, str(tmp_path)) == -signal.SIGINT
