"""`run --diagnose`, as a user runs it: the program's exit code, output and traceback stay its
own, the culprit follows the answer, the report is one JSON object; what a diagnosis cannot
see (a DataLoader worker, a thread, a program that does not fail twice) it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from diagnosis_helpers import SCRIPTS, line_of

from autograd_errors import catalog


def test_a_correct_script_runs_as_under_python(runner, tmp_path):
    plain = runner.python("correct_training.py", str(tmp_path / "plain.txt"))
    diagnosed, report = runner.diagnose(
        tmp_path / "report.json", "correct_training.py", str(tmp_path / "diagnosed.txt")
    )
    assert plain.returncode == diagnosed.returncode == 0
    assert (diagnosed.stdout, diagnosed.stderr) == (plain.stdout, plain.stderr)
    assert "step 20: loss" in plain.stdout
    assert report == {"entry": None, "cause": None, "culprits": []}
    assert (tmp_path / "plain.txt").read_bytes() == (tmp_path / "diagnosed.txt").read_bytes()


def test_an_error_outside_the_catalog_gets_no_culprit(runner, tmp_path):
    plain = runner("run", "not_in_catalog.py")
    diagnosed, report = runner.diagnose(tmp_path / "report.json", "not_in_catalog.py")
    assert plain.returncode == diagnosed.returncode == 1
    assert "mat1 and mat2 shapes cannot be multiplied" in diagnosed.stderr
    assert (diagnosed.stdout, diagnosed.stderr) == (plain.stdout, plain.stderr)
    assert report == {"entry": None, "cause": None, "culprits": []}


def test_the_answer_comes_first_then_the_culprit(runner, tmp_path):
    plain = runner("run", "inplace_residual.py")
    diagnosed, _ = runner.diagnose(tmp_path / "report.json", "inplace_residual.py")
    assert diagnosed.returncode == plain.returncode == 1
    assert diagnosed.stdout == plain.stdout
    # The traceback is that of `run`; then the answer, leading with the cause found, then the
    # culprit lines (the cause is said once, in the answer).
    traceback = plain.stderr[: plain.stderr.index("\nautograd-errors: ")]
    assert diagnosed.stderr.startswith(traceback + "\nautograd-errors: ")
    answer, added = diagnosed.stderr[len(traceback) :].split("\nautograd-errors: Diagnosis", 1)
    script = SCRIPTS / "inplace_residual.py"
    line = line_of(script, "out += identity")
    flat = " ".join(answer.split())
    assert "Most likely: An in-place operation on a tensor an operation saved" in flat
    assert f"Evidence: the diagnosis found it at {script.name}:{line}." in flat
    assert added.startswith(" (the program was run again, ")
    culprit = f"  Culprit: inplace_residual.py:{line} (changed in place)\n    out += identity\n"
    assert culprit in added
    assert "Cause:" not in added


@pytest.mark.parametrize(
    ("script", "culprit"),
    [
        ("nograd_validation.py", "with torch.no_grad():"),
        ("inplace_rnn_buffer.py", "hidden[t + 1] = torch.tanh("),
        ("backward_running_total.py", "total_loss = total_loss + loss"),
    ],
)
def test_the_answer_leads_with_the_cause_the_diagnosis_found(runner, tmp_path, script, culprit):
    """Issue 23: the traceback alone points the answer at another cause (or at the most
    common one); the diagnosis's culprit line is the evidence for the one it leads with."""
    plain = runner("run", script)
    diagnosed, report = runner.diagnose(tmp_path / "report.json", script)
    entry = catalog.load(use_cache=False)[str(report["entry"])]
    (cause,) = [c for c in entry.causes if c.id == report["cause"]]
    lead = f"Most likely: {' '.join(cause.text.split()[:6])}"
    assert lead not in " ".join(plain.stderr.split())
    answer = diagnosed.stderr.split("\nautograd-errors: Diagnosis", 1)[0]
    flat = " ".join(answer[answer.index("\nautograd-errors: ") :].split())
    assert lead in flat
    first = report["culprits"][0]  # type: ignore[index]
    assert culprit in first["code"]
    where = f"{Path(first['path']).relative_to(SCRIPTS)}:{first['line']}"  # as the culprits say
    assert f"Evidence: the diagnosis found it at {where}." in flat


def test_the_diagnosis_in_chinese(runner):
    script = SCRIPTS / "leaf_inplace.py"
    result = runner("run", "--diagnose", "--lang", "zh", "leaf_inplace.py")
    assert result.returncode == 1
    answer, added = result.stderr.split("\nautograd-errors: 诊断：\n", 1)
    line = line_of(script, "w -= learning_rate * w.grad")
    assert added.startswith(
        f"  问题代码：leaf_inplace.py:{line} (抛出报错)\n"
        "    w -= learning_rate * w.grad\n"
        "    torch 在这里抛出报错，涉及 `w`（[3, 1]）。\n"
    )
    flat = "".join(answer.split())
    assert "最可能的原因：在`torch.no_grad()`之外手写梯度更新" in flat
    assert f"依据：诊断在{script.name}:{line}找到了它。" in flat


def test_a_dataloader_worker_s_error_names_the_worker_s_line(runner, tmp_path):
    script = SCRIPTS / "dataloader_worker.py"
    result, report = runner.diagnose(tmp_path / "report.json", "dataloader_worker.py")
    assert result.returncode == 1
    assert report["entry"] == "leaf-inplace"
    assert report["culprits"] == [
        {
            "path": str(script),
            "line": line_of(script, "point += 0.01 * torch.randn(3)"),
            "role": "raised",
            "code": "point += 0.01 * torch.randn(3)",
        }
    ]
    assert (
        "Raised in DataLoader worker process 0: the line is read from the worker's" in result.stderr
    )


def test_a_thread_s_error_says_what_diagnosis_cannot_see(runner, tmp_path):
    plain = runner.python("thread_error.py")
    result, report = runner.diagnose(tmp_path / "report.json", "thread_error.py")
    assert plain.returncode == result.returncode == 0  # as python: a thread's error is printed
    assert result.stdout == plain.stdout == "main thread done\n"
    assert report == {"entry": "inplace-modified", "cause": None, "culprits": []}
    assert "No culprit found." in result.stderr
    assert "Raised in thread 'trainer': diagnosis records the main thread only" in result.stderr


def test_a_program_that_does_not_fail_again_gets_no_culprit(runner, tmp_path):
    """The re-run repeats the program's side effects (here, the marker file it writes); when it
    does not fail again, the diagnosis says so and names no line."""
    marker = tmp_path / "marker.txt"
    result, report = runner.diagnose(tmp_path / "report.json", "flaky_first_run.py", str(marker))
    assert result.returncode == 1
    assert result.stdout == ""  # the second run's "done" is not the program's output
    assert marker.read_text(encoding="utf-8") == "ran\nran\n"
    assert report == {"entry": "inplace-modified", "cause": None, "culprits": []}
    assert "Run again, the program did not fail" in result.stderr


def test_a_module_run_with_m(runner, tmp_path):
    project = SCRIPTS / "project"
    result, report = runner.diagnose(tmp_path / "report.json", "-m", "train", cwd=project)
    assert result.returncode == 1
    assert report["culprits"][0]["path"] == str(project / "blocks.py")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--report", "r.json", "leaf_inplace.py"], "run: --report goes with --diagnose\n"),
        (["--diagnose", "--lang", "fr", "leaf_inplace.py"], "--lang must be en or zh, not 'fr'"),
        (["--lang", "xx", "leaf_inplace.py"], "--lang must be en or zh, not 'xx'"),
        (["--diagnose", "--report"], "run: --report needs a file\n"),
        (["--diagnose", "--report", "/nonexistent/r.json", "x.py"], "run: --report: cannot write"),
    ],
)
def test_bad_options_get_one_line_and_exit_code_2(runner, args, message):
    result = runner("run", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_the_report_is_written_whole(runner, tmp_path):
    report = tmp_path / "report.json"
    report.write_text("previous", encoding="utf-8")
    result = runner("run", "--diagnose", f"--report={report}", "leaf_inplace.py")
    assert result.returncode == 1
    assert json.loads(report.read_text(encoding="utf-8"))["entry"] == "leaf-inplace"
    assert [path.name for path in tmp_path.iterdir()] == ["report.json"]  # no temporary left
