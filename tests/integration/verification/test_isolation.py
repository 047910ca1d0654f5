"""The verification gate cannot be fooled by the scripts it judges (issue 22, K1 to K10).

Each test changes gallery scripts in a throw-away copy of the package and its gallery (as the
fault report did: ``PYTHONPATH`` points at the copy), then runs ``check`` or ``record`` there
as a user would: a script that hangs, ends its process, crashes, forks, leaves a state behind,
ignores Ctrl-C or writes to the terminal gets a verdict of its own or changes nothing, and no
process it started is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import REPO, GalleryProject

from autograd_errors.verification import gallery, recordings
from autograd_errors.verification.isolation import Isolation, Stopped
from autograd_errors.verification.observer import reset_torch_state, run_script
from autograd_errors.verification.verdicts import Status

REFERENCE = recordings.reference_release(str(REPO / "constraints.txt"))
#: Two scripts whose entries pass; the first is changed by each test, the second must not care.
CHANGED, NEIGHBOUR = "graph/no-grad-fn.py", "inplace/leaf-inplace.py"


@pytest.fixture
def project(tmp_path, cli_env):
    return GalleryProject(tmp_path / "project", cli_env)


def verdicts(output: str) -> dict[str, str]:
    """``{entry id: status}`` from ``check``'s report."""
    found = {}
    for line in output.splitlines()[1:]:
        status, _, rest = line.partition(" ")
        if status in Status._value2member_map_ and rest.strip():
            found[rest.split()[0]] = status
    return found


def entry_of(script: str) -> str:
    return Path(script).stem


def test_a_script_that_ends_its_process_fails_as_exited(project):
    """K2: `os._exit(0)` used to make `check` exit 0 with no output at all."""
    project.append(CHANGED, "import os\nos._exit(0)\n")
    result = project.run("check", entry_of(CHANGED), entry_of(NEIGHBOUR))
    assert result.returncode == 1, result.stderr
    assert verdicts(result.stdout) == {entry_of(CHANGED): "EXITED", entry_of(NEIGHBOUR): "OK"}
    assert "the script's process ended with exit status 0 before the script did" in result.stdout
    assert result.stdout.rstrip().endswith("1 entry failed")


def test_a_script_that_hangs_is_stopped_at_its_timeout_and_says_where(project):
    """K1: no timeout used to hang `check` silently."""
    project.append(CHANGED, "import time\ntime.sleep(10**6)\n")
    started = time.monotonic()
    result = project.run("check", "--timeout", "5", entry_of(CHANGED), entry_of(NEIGHBOUR))
    assert time.monotonic() - started < 120
    assert result.returncode == 1, result.stderr
    assert verdicts(result.stdout) == {entry_of(CHANGED): "TIMEOUT", entry_of(NEIGHBOUR): "OK"}
    assert "the script did not finish within 5 s; it was stopped there:" in result.stdout
    where = f'File "{project.root / "gallery" / CHANGED}", line {project.line_count(CHANGED)}'
    assert where in result.stdout
    assert project.left_running() == []


def test_the_default_names_a_hanging_script_within_the_fault_reports_two_minutes():
    """F05 ran ``check`` with no ``--timeout`` under ``timeout 120``: the default names a
    script still running well before that (the test below shows the naming, at half of a
    short timeout), and stops it later than the slowest script takes."""
    from autograd_errors.verification.isolation import DEFAULT_TIMEOUT, SLOW_AFTER, Isolation

    assert SLOW_AFTER < 120 - 30 < DEFAULT_TIMEOUT
    assert Isolation().slow_after == SLOW_AFTER
    assert Isolation(8).slow_after == 4


def test_a_caller_that_gives_up_gets_the_verdicts_reached_and_the_script_that_hangs(project):
    """K1 as the fault report ran it (F05): a hanging script, ``check`` given up by its caller
    (``timeout`` sends SIGTERM), had said nothing at all. The script still running is named on
    stderr, stdout (a ``--json`` reader's) stays empty until the report, and SIGTERM ends the
    run with the verdicts it reached and what it did not judge, exit 143 as the shell's."""
    hanging, judged = NEIGHBOUR, CHANGED  # the gallery's order: CHANGED's script runs first
    project.append(hanging, "import time\ntime.sleep(10**6)\n")
    process = subprocess.Popen(
        project.command("check", "--json", "--timeout", "20", entry_of(judged), entry_of(hanging)),
        env=project.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # blocks until check says something
        script = project.root / "gallery" / hanging
        assert line == (
            f"autograd-errors check: {entry_of(hanging)} ({script}) is still running after "
            "10 s; it is stopped at 20 s (--timeout)\n"
        )
        assert process.poll() is None
        process.send_signal(signal.SIGTERM)  # the caller gives up, as `timeout 120` does
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, stderr) == (128 + signal.SIGTERM, "")
    report = json.loads(stdout)
    assert [(r["id"], r["status"]) for r in report["results"]] == [(entry_of(judged), "OK")]
    assert report["stopped"] == {"signal": "SIGTERM", "running": entry_of(hanging), "not_run": []}
    assert project.left_running() == []


def test_a_script_killed_by_a_signal_fails_as_crashed(project):
    project.append(CHANGED, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    result = project.run("check", entry_of(CHANGED), entry_of(NEIGHBOUR))
    assert result.returncode == 1, result.stderr
    assert verdicts(result.stdout) == {entry_of(CHANGED): "CRASHED", entry_of(NEIGHBOUR): "OK"}
    assert "the script's process was killed by SIGSEGV" in result.stdout
    assert "Fatal Python error: Segmentation fault" in result.stdout  # faulthandler's, kept


@pytest.mark.parametrize("waits", [True, False], ids=["parent waits", "parent does not wait"])
def test_a_script_that_forks_changes_nothing_and_leaves_nothing(project, waits):
    """K3: the fork used to continue check's own loop and deadlock, or be left behind."""
    fork = "import os\npid = os.fork()\n" + ("if pid:\n    os.waitpid(pid, 0)\n" if waits else "")
    project.append(CHANGED, fork)
    result = project.run("check", entry_of(CHANGED), entry_of(NEIGHBOUR))
    assert result.returncode == 0, result.stdout + result.stderr
    assert verdicts(result.stdout) == {entry_of(CHANGED): "OK", entry_of(NEIGHBOUR): "OK"}
    assert result.stdout.count("entries checked") == 1
    assert project.left_running() == []


def test_what_a_script_starts_is_ended_with_it(project):
    """A child in a session of its own, and a fork that sleeps, both outlive the script: they
    are ended with its verdict."""
    project.append(
        CHANGED,
        "import os, subprocess, time\n"
        'subprocess.Popen(["sleep", "300"], start_new_session=True)\n'
        "if os.fork() == 0:\n"
        "    time.sleep(300)\n",
    )
    result = project.run("check", entry_of(CHANGED))
    assert result.returncode == 0, result.stdout + result.stderr
    assert project.left_running() == []


def test_a_state_a_script_leaves_reaches_no_other_script(project):
    """K6: `torch.set_default_device("meta")` left by the first script used to fail 41 others."""
    first = "anomaly/anomaly-nan.py"
    assert gallery.scripts(str(project.root / "gallery"))[0].path.endswith(first)
    project.append(
        first,
        'import signal, torch, warnings\ntorch.set_default_device("meta")\n'
        "torch.set_default_dtype(torch.float64)\ntorch.set_grad_enabled(False)\n"
        'warnings.simplefilter("error")\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n',
    )
    entries = [entry_of(first), entry_of(CHANGED), entry_of(NEIGHBOUR), "inplace-modified"]
    result = project.run("check", *entries)
    assert result.returncode == 0, result.stdout + result.stderr
    assert verdicts(result.stdout) == dict.fromkeys(entries, "OK")


def test_the_site_builds_reset_gives_the_next_script_the_default_device(tmp_path):
    """The site build runs the scripts one after another in its own process (sphinx-gallery):
    there, the reset between scripts gives back the default device and Ctrl-C's handler."""
    import torch

    leaves = tmp_path / "leaves.py"
    leaves.write_text(
        'import signal, torch\ntorch.set_default_device("meta")\n'
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    )
    script = next(s for s in gallery.scripts() if s.entry_id == "no-grad-fn")
    try:
        assert run_script(str(leaves)).crash is None
        observation = run_script(script.path)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert torch.empty(1).device.type == "cpu"
    finally:
        torch.set_default_device(None)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    assert observation.crash is None
    assert [event.exception for event in observation.events if event.kind == "exception"]


def test_the_site_builds_reset_ends_a_process_group_a_script_left(tmp_path):
    """A script that fails before its ``destroy_process_group`` (fsdp-uniform-requires-grad on
    torch 2.1) left the default group in the build's process: the next script's ranks failed
    with "default process group twice", or deadlocked destroying what it left (the CI hang)."""
    import torch.distributed as dist

    leaves = tmp_path / "leaves.py"
    store = tmp_path / "store"
    leaves.write_text(
        "import torch, torch.distributed as dist\n"
        "from torch.nn.parallel import DistributedDataParallel\n"
        f"dist.init_process_group('gloo', store=dist.FileStore({str(store)!r}, 1), rank=0,"
        " world_size=1)\n"
        "model = DistributedDataParallel(torch.nn.Linear(2, 1))\n"
        "raise RuntimeError('fails before destroy_process_group')\n"
    )
    follows = tmp_path / "follows.py"
    follows.write_text(
        "import torch.distributed as dist\n"
        f"dist.init_process_group('gloo', store=dist.FileStore({str(store) + '2'!r}, 1), rank=0,"
        " world_size=1)\n"
        "dist.destroy_process_group()\n"
    )
    try:
        assert run_script(str(leaves)).crash is not None
        assert dist.is_initialized()
        reset_torch_state(collect=True)
        assert not dist.is_initialized()
        assert run_script(str(follows)).crash is None
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def test_ctrl_c_stops_check_even_when_a_script_ignores_it(project):
    """K7: a script that sets SIGINT to SIG_IGN used to make `check` ignore Ctrl-C."""
    project.append(
        CHANGED,
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        'print("ready", flush=True)\ntime.sleep(120)\n',
    )
    process = subprocess.Popen(
        project.command("check", entry_of(NEIGHBOUR), entry_of(CHANGED)),
        env=project.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(12)  # torch imported twice (check's, the server's), the script sleeping
    assert process.poll() is None, process.communicate()
    interrupted = time.monotonic()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert time.monotonic() - interrupted < 10
    assert (process.returncode, stderr) == (130, b"")
    # What it reached, and that it did not finish: never "all pass".
    lines = stdout.decode().splitlines()
    assert lines[0].startswith(f"torch {REFERENCE}")
    assert lines[0].endswith(": 0 entries checked")
    assert lines[1:] == [
        f"stopped by Ctrl-C (SIGINT) while {entry_of(CHANGED)} ran: 0 entries judged, 2 not "
        f"({entry_of(CHANGED)}, {entry_of(NEIGHBOUR)})",
    ]
    assert project.left_running() == []


def test_nothing_a_script_writes_reaches_check_json(project):
    """K8: a script's subprocess printing to descriptor 1 used to corrupt `check --json`."""
    project.append(
        CHANGED,
        "import os, subprocess, sys\n"
        'subprocess.run([sys.executable, "-c", "print(1)"])\n'
        'os.write(1, b"to descriptor 1\\n")\nos.write(2, b"to descriptor 2\\n")\n'
        'print("to sys.stdout")\nprint("to sys.__stdout__", file=sys.__stdout__, flush=True)\n',
    )
    result = project.run("check", "--json", entry_of(CHANGED), entry_of(NEIGHBOUR))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [(r["id"], r["status"]) for r in data["results"]] == [
        (entry_of(CHANGED), "OK"),
        (entry_of(NEIGHBOUR), "OK"),
    ]
    assert result.stderr == ""


def test_record_is_fooled_by_no_script(project, tmp_path):
    """K2, K4, K10 in one recording run: a script that ends its process is recorded as
    EXITED (not a silent exit 0 with no file); one that changes directory does not move a
    relative --output (the file used to land in the script's directory); and the recording
    keeps its mode (mkstemp used to make it 0600)."""
    elsewhere, work = tmp_path / "elsewhere", tmp_path / "work"
    (elsewhere / "out").mkdir(parents=True)
    (work / "out").mkdir(parents=True)
    target = work / "out" / f"torch-{REFERENCE}.json"
    target.write_text('{"the": "previous recording"}\n')
    target.chmod(0o644)
    project.keep_only("anomaly/anomaly-nan.py", CHANGED, NEIGHBOUR)
    project.append("anomaly/anomaly-nan.py", f"import os\nos.chdir({str(elsewhere)!r})\n")
    project.append(CHANGED, "import os\nos._exit(0)\n")
    result = project.run("record", "--output", "out", cwd=work)
    assert result.returncode == 1, result.stderr
    assert result.stdout.rstrip().endswith(f"; written to out/torch-{REFERENCE}.json")
    assert "1 EXITED" in result.stdout
    assert list((elsewhere / "out").iterdir()) == []
    assert sorted(p.name for p in (work / "out").iterdir()) == [target.name]
    assert target.stat().st_mode & 0o777 == 0o644
    recorded = json.loads(target.read_text())["entries"]
    assert recorded[entry_of(CHANGED)]["status"] == "EXITED"
    assert recorded[entry_of(CHANGED)]["events"] == []
    assert recorded["anomaly-nan"]["status"] == recorded[entry_of(NEIGHBOUR)]["status"] == "OK"
    assert set(recorded) == {"anomaly-nan", entry_of(CHANGED), entry_of(NEIGHBOUR)}


def test_a_new_recording_gets_the_mode_of_a_new_file(tmp_path):
    """K10, for a file that was not there: 0666 less the umask, as `open()` would make it."""
    target = tmp_path / "torch-9.9.9.json"
    previous = os.umask(0o002)
    try:
        recordings.write_recording(str(target), {"torch": "9.9.9"})
    finally:
        os.umask(previous)
    assert target.stat().st_mode & 0o777 == 0o664
    target.chmod(0o640)
    recordings.write_recording(str(target), {"torch": "9.9.9"})
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_fresh_interpreter_per_script_sees_what_a_fork_sees(tmp_path):
    """Where there is no fork, each script gets a fresh interpreter: the same observation,
    and the same verdicts for a script that exits."""
    script = next(s for s in gallery.scripts() if s.entry_id == "leaf-inplace")
    exits = tmp_path / "exits.py"
    exits.write_text("import os\nos._exit(3)\n")
    with Isolation(60) as forked, Isolation(60, fresh=True) as fresh:
        by_fork, by_fresh = forked.observe(script.path), fresh.observe(script.path)
        assert not isinstance(by_fork, Stopped)
        assert not isinstance(by_fresh, Stopped)
        assert by_fresh.as_dict() == by_fork.as_dict()
        for isolation in (forked, fresh):
            stopped = isolation.observe(str(exits))
            assert isinstance(stopped, Stopped)
            assert stopped.status is Status.EXITED
            assert "exit status 3" in stopped.detail
