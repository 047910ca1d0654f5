"""Every entry verified on the installed torch, and the verifier's own verdicts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import catalog_without_causes, once_per_run

from autograd_errors.verification import environment, judge, verdicts
from autograd_errors.verification.observer import run_script
from autograd_errors.verification.verdicts import Status

REPO = Path(__file__).parents[3]
#: Repros written for a test do not run the entries' common causes (test_cause_verdicts.py does).
CATALOG = catalog_without_causes()


@pytest.fixture(scope="session")
def check_report(cli, tmp_path_factory) -> dict:
    """``check --json`` of every entry, run once for the whole run (every worker reads it)."""

    def run_check() -> dict:
        result = cli("check", "--json", timeout=900)
        return {
            "stdout": result.stdout.decode(),
            "stderr": result.stderr.decode(),
            "returncode": result.returncode,
        }

    outcome = once_per_run(tmp_path_factory, "check-report", run_check)
    assert outcome["stdout"], outcome["stderr"]
    report = json.loads(outcome["stdout"])
    report["returncode"] = outcome["returncode"]
    return report


def expected_status(entry_id: str) -> Status:
    entry = CATALOG[entry_id]
    if entry.retired:
        return Status.RETIRED
    if entry.needs == "cuda" and not environment.cuda_available():
        return Status.NEEDS_CUDA
    return Status.OK


@pytest.mark.parametrize("entry_id", CATALOG.ids)
def test_entry_verified_on_installed_torch(check_report, entry_id):
    (result,) = [r for r in check_report["results"] if r["id"] == entry_id]
    assert Status(result["status"]) is expected_status(entry_id), result["detail"]


def test_check_reports_torch_and_exits_0_when_all_ok(check_report):
    import torch

    assert check_report["torch"] == torch.__version__
    assert check_report["returncode"] == 0
    for result in check_report["results"]:
        assert set(result) == {"id", "status", "message", "detail"}


def test_check_shows_the_message_torch_printed(check_report):
    (result,) = [r for r in check_report["results"] if r["id"] == "data-not-tensor"]
    assert result["message"] == "Variable data has to be a tensor, but got int"


def run_as(entry_id: str, tmp_path: Path, body: str) -> verdicts.Result:
    script = tmp_path / f"{entry_id}.py"
    script.write_text(textwrap.dedent(body))
    return judge.judge(CATALOG[entry_id], run_script(str(script)), CATALOG)


# leaf-inplace's repro, as a gallery script writes it (lines 2-7 of the scripts below).
LEAF_REPRO = """
import torch
x = torch.randn(3, requires_grad=True)
try:
    x += 1
except RuntimeError as error:
    print(error)
"""


def test_a_reworded_message_is_drift_with_a_diff(tmp_path):
    result = run_as(
        "leaf-inplace",
        tmp_path,
        """
        try:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an inplace operation."
            )
        except RuntimeError as error:
            print(error)
        """,
    )
    assert result.status is Status.DRIFT
    assert result.message == (
        "a leaf Variable that requires grad is being used in an inplace operation."
    )
    assert "[-in-place-] {+inplace+}" in result.detail
    assert "expected (current): a leaf Variable" in result.detail


def test_another_entrys_error_is_wrong_entry(tmp_path):
    result = run_as(
        "leaf-inplace",
        tmp_path,
        """
        import torch
        x = torch.randn(2, requires_grad=True)
        y = torch.dot(x, x)
        y.backward()
        try:
            y.backward()
        except RuntimeError as error:
            print(error)
        """,
    )
    assert result.status is Status.WRONG_ENTRY
    assert "'backward-twice'" in result.detail


def test_a_repro_that_no_longer_raises_is_no_error(tmp_path):
    result = run_as(
        "leaf-inplace",
        tmp_path,
        LEAF_REPRO
        + textwrap.dedent(
            """\
            try:
                with torch.no_grad():
                    x += 1
            except RuntimeError as error:
                print(error)
            """
        ),
    )
    assert result.status is Status.NO_ERROR
    assert "the repro in the try block at line 8 raised nothing" in result.detail


def test_a_failing_gradient_check_is_fix_fails(tmp_path):
    result = run_as(
        "leaf-inplace",
        tmp_path,
        LEAF_REPRO
        + "(x * x).sum().backward()\ntorch.testing.assert_close(x.grad, 3 * x.detach())\n",
    )
    assert result.status is Status.FIX_FAILS
    assert "AssertionError: Tensor-likes are not close!" in result.detail
    assert (
        result.message
        == "a leaf Variable that requires grad is being used in an in-place operation."
    )


def test_another_entrys_warning_in_a_fix_is_allowed(tmp_path):
    result = run_as(
        "inplace-modified",
        tmp_path,
        """
        import warnings
        import torch
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            x = torch.randn(3, requires_grad=True)
            y = torch.sigmoid(x)
            y.mul_(2)
            try:
                y.sum().backward()
            except RuntimeError as error:
                print(error)
        """,
    )
    assert result.status is Status.OK, result.detail


def test_a_warning_entry_is_judged_on_its_warning(tmp_path):
    result = run_as(
        "nonleaf-grad",
        tmp_path,
        """
        import warnings
        warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is accessed.")
        """,
    )
    assert result.status is Status.DRIFT


def test_word_diff():
    assert judge.word_diff("a b c d", "a x c d e") == "a [-b-] {+x+} c d {+e+}"


@pytest.fixture(scope="session")
def installed_package(tmp_path_factory) -> Path:
    """The package as `pip install` puts it: built as a wheel, installed apart from the repo
    (once for the whole run)."""
    return Path(
        str(
            once_per_run(
                tmp_path_factory, "installed-package", lambda: str(_installed(tmp_path_factory))
            )
        )
    )


def _installed(tmp_path_factory) -> Path:
    build = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(build),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = build.glob("*.whl")
    target = tmp_path_factory.mktemp("site-packages")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return target


def run_installed(target: Path, cli_env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograd_errors", *args],
        capture_output=True,
        env={**cli_env, "PYTHONPATH": str(target)},
        cwd=target.parent,
        timeout=600,
        check=False,
    )


@pytest.mark.wheel
def test_check_runs_from_an_installed_package(installed_package, cli_env):
    where = subprocess.run(
        [sys.executable, "-c", "import autograd_errors, sys; print(autograd_errors.__file__)"],
        capture_output=True,
        text=True,
        env={**cli_env, "PYTHONPATH": str(installed_package)},
        check=True,
    ).stdout
    assert where.startswith(str(installed_package))
    # The wheel carries every entry's script, where the checkout has it...
    shipped = installed_package / "autograd_errors" / "gallery"
    assert sorted(p.relative_to(shipped) for p in shipped.glob("*/*.py")) == sorted(
        p.relative_to(REPO / "gallery") for p in (REPO / "gallery").glob("*/*.py")
    )
    # ...and runs them: one entry of each section (every entry runs in check_report above).
    sample = sorted({path.parent.name: path.stem for path in shipped.glob("*/*.py")}.values())
    result = run_installed(installed_package, cli_env, "check", "--json", *sample)
    assert result.returncode == 0, result.stdout.decode()
    statuses = {r["id"]: Status(r["status"]) for r in json.loads(result.stdout)["results"]}
    assert statuses == {entry_id: expected_status(entry_id) for entry_id in sample}


@pytest.mark.wheel
def test_check_fails_when_torch_words_a_message_differently(installed_package, cli_env, tmp_path):
    """The catalog expects a wording torch does not print: as if torch had reworded it."""
    copy = tmp_path / "site-packages"
    shutil.copytree(installed_package, copy)
    record = copy / "autograd_errors" / "entries" / "data-not-tensor.toml"
    record.write_text(record.read_text().replace("has to be a tensor", "must be a tensor"))
    result = run_installed(copy, cli_env, "check", "data-not-tensor", "leaf-inplace")
    assert result.returncode == 1
    report = result.stdout.decode()
    assert f"{Status.DRIFT:11} data-not-tensor" in report
    assert f"{Status.OK:11} leaf-inplace" in report
    assert "diff: Variable data [-must-] {+has to+} be a tensor, but got" in report


def test_a_torch_api_missing_from_an_old_release_is_not_applicable(tmp_path):
    result = run_as(
        "leaf-inplace",
        tmp_path,
        """
        raise AttributeError("module 'torch' has no attribute 'func'")
        """,
    )
    assert result.status is Status.NOT_APPLICABLE
    assert "module 'torch' has no attribute 'func'" in result.detail


def test_a_retired_message_still_raised_by_an_old_release_is_ok(tmp_path):
    script = tmp_path / "no-grad-accumulator.py"
    script.write_text('raise RuntimeError("No grad accumulator for a saved leaf")\n')
    entry = CATALOG["no-grad-accumulator"]
    observation = run_script(str(script))
    assert judge.judge(entry, observation, CATALOG, "1.13.1").status is Status.OK
    assert judge.judge(entry, observation, CATALOG, "2.13.0").status is Status.DRIFT


def test_a_retired_entry_whose_script_runs_is_retired(tmp_path):
    result = run_as("no-grad-accumulator", tmp_path, "print('runs now')\n")
    assert result.status is Status.RETIRED
    assert "last raised by torch 2.0.1" in result.detail


def test_a_message_is_its_first_matching_entrys(tmp_path):
    """A message that holds two entries' messages matches both; the first match (the last
    message, as in a traceback) decides. Here that is leaf-inplace's, so the event is not
    view-leaf-inplace's, though it contains its message."""
    message = (
        "a view of a leaf Variable that requires grad is being used in an in-place operation. "
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    )
    matched = [m.entry.id for m in judge.find_matches(f"RuntimeError: {message}", CATALOG)]
    assert matched == ["leaf-inplace", "view-leaf-inplace"]
    result = run_as(
        "view-leaf-inplace",
        tmp_path,
        f"""
        try:
            raise RuntimeError({message!r})
        except RuntimeError as error:
            print(error)
        """,
    )
    assert result.status is Status.WRONG_ENTRY
    assert "'leaf-inplace''s message, not 'view-leaf-inplace''s" in result.detail


def test_a_warning_entry_whose_warning_vanished_is_no_error(tmp_path):
    """nonleaf-grad's repro with the intermediate's gradient retained: nothing warns."""
    result = run_as(
        "nonleaf-grad",
        tmp_path,
        """
        import warnings
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print("y.grad =", y.grad)
        """,
    )
    assert result.status is Status.NO_ERROR
    assert result.detail == "no UserWarning of this entry was raised or warned"


@pytest.mark.wheel
def test_record_from_an_installed_package_needs_an_output(installed_package, cli_env, tmp_path):
    """Outside a checkout there is no data/observed to update: pip would never track the file."""
    result = run_installed(installed_package, cli_env, "record")
    assert result.returncode == 2
    assert result.stderr.decode() == (
        "autograd-errors record: this is an installed package, not a checkout: give --output DIR\n"
    )
    assert not (installed_package / "autograd_errors" / "data").exists()


@pytest.mark.wheel
def test_check_on_a_cpu_torch_reports_needs_cuda_and_exits_0(installed_package, cli_env, tmp_path):
    """The pinned torch is a CPU build: it has no CUDA, so the entry is not run."""
    import torch

    assert torch.version.cuda is None  # the reference torch of constraints.txt: +cpu
    copy = tmp_path / "site-packages"
    shutil.copytree(installed_package, copy)
    record = copy / "autograd_errors" / "entries" / "data-not-tensor.toml"
    record.write_text('needs = "cuda"\n' + record.read_text())
    result = run_installed(copy, cli_env, "check", "data-not-tensor", "cudnn-rnn-eval-backward")
    report = result.stdout.decode().splitlines()
    assert result.returncode == 0, result.stdout.decode()
    width = len("cudnn-rnn-eval-backward")
    assert f"{Status.NEEDS_CUDA:11} {'data-not-tensor':{width}}  " in report
    assert f"            {verdicts.NEEDS_CUDA_DETAIL}" in report
    # data-not-tensor here, and the catalog's own cudnn-rnn-eval-backward.
    assert [e.id for e in CATALOG if e.needs == "cuda"] == ["cudnn-rnn-eval-backward"]
    assert report[-2:] == ["2 entries could not be verified here: need CUDA", "all others pass"]


def test_a_warning_torch_writes_to_standard_error_is_its_statements(tmp_path):
    """DDP's reducer warns from C++ through pybind11, where no Python call waits: c10 writes
    it to descriptor 2, and the observer reads it there as the forward pass's warning."""
    script = tmp_path / "unused.py"
    store = tmp_path / "store"
    script.write_text(
        textwrap.dedent(
            f"""\
            import torch
            import torch.distributed as dist
            from torch.nn.parallel import DistributedDataParallel
            torch.set_warn_always(True)
            dist.init_process_group(
                "gloo", store=dist.FileStore({str(store)!r}, 1), rank=0, world_size=1
            )
            model = DistributedDataParallel(torch.nn.Linear(3, 2), find_unused_parameters=True)
            output = model(torch.randn(4, 3))
            output.sum().backward()
            dist.destroy_process_group()
            """
        )
    )
    observation = run_script(str(script))
    assert observation.crash is None, observation.crash
    (event,) = [e for e in observation.events if "find_unused_parameters" in e.message]
    assert (event.kind, event.exception, event.line, event.statement) == (
        "warning",
        "UserWarning",
        None,
        9,
    )
    assert event.message.startswith("find_unused_parameters=True was specified in DDP")
    assert event.message.endswith("later iterations to have unused parameters.")
