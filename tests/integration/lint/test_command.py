"""``python -m autograd_errors lint`` run as a user runs it, in a subprocess: the output as
flake8 prints it, --json, exit codes, # noqa, --select and --ignore, files that do not parse
or cannot be read, bad command lines (one line, exit 2, never a traceback)."""

import json
import os
import subprocess
import sys

import pytest
from lint_cases import EVAL_FILES, REPO, TRAIN_SNIPPET, lint

from autograd_errors.lint.registry import rules

TRAIN = TRAIN_SNIPPET
MESSAGE_501 = rules()["AE501"].message({"optimizer": "optimizer"})


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(3)\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "step.py").write_text(
        "def step(loss, optimizer):\n"
        "    loss.backward()\n    optimizer.zero_grad()\n    optimizer.step()\n"
    )
    for skipped in (".venv", ".git", "__pycache__"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "hidden.py").write_text(TRAIN)
    return tmp_path


def test_findings_are_printed_as_flake8_prints_them(project):
    result = lint(".", cwd=project)
    assert result.returncode == 1
    assert result.stderr == ""
    assert result.stdout.splitlines() == [
        "./pkg/step.py:3:5: AE502 " + rules()["AE502"].message({"optimizer": "optimizer"}),
        f"./train.py:4:5: AE501 {MESSAGE_501}",
    ]


def test_files_and_folders_together_in_path_order(project):
    result = lint("train.py", "pkg", "clean.py", cwd=project)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == [
        "pkg/step.py",
        "train.py",
    ]


def test_a_file_named_twice_is_checked_once(project):
    result = lint("train.py", ".", "./train.py", cwd=project)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == [
        "./pkg/step.py",
        "train.py",
    ]


def test_clean_code_exits_0_and_prints_nothing(project):
    result = lint("clean.py", cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_json(project):
    result = lint("--json", "train.py", "clean.py", cwd=project)
    assert result.returncode == 1
    assert json.loads(result.stdout) == [
        {
            "path": "train.py",
            "line": 4,
            "col": 5,
            "code": "AE501",
            "message": MESSAGE_501,
            "entry": "grad-accumulates",
        }
    ]
    clean = lint("--json", "clean.py", cwd=project)
    assert (clean.returncode, json.loads(clean.stdout)) == (0, [])


@pytest.mark.parametrize(
    ("options", "codes"),
    [
        ([], {"AE501", "AE502"}),
        (["--select", "AE5"], {"AE501", "AE502"}),
        (["--select", "AE501"], {"AE501"}),
        (["--select=AE502,AE501"], {"AE501", "AE502"}),
        (["--ignore", "AE502"], {"AE501"}),
        (["--ignore", "AE5", "--select", "AE502"], {"AE502"}),
        (["--select", "AE9"], set()),
        (["--select", "ae501"], {"AE501"}),
    ],
)
def test_select_and_ignore(project, options, codes):
    result = lint(*options, "--json", ".", cwd=project)
    assert {finding["code"] for finding in json.loads(result.stdout)} == codes
    assert result.returncode == (1 if codes else 0)


def test_noqa(project):
    (project / "train.py").write_text(TRAIN.replace("step()\n", "step()  # noqa: AE501\n"))
    (project / "pkg" / "step.py").write_text(
        (project / "pkg" / "step.py").read_text().replace("zero_grad()", "zero_grad()  # noqa")
    )
    result = lint(".", cwd=project)
    assert (result.returncode, result.stdout) == (0, "")


def test_a_file_that_does_not_parse_is_one_line_and_the_others_are_checked(project):
    (project / "broken.py").write_text("x = 1\ndef f(:\n    pass\n")
    (project / "python2.py").write_text('print "hello"\n')
    result = lint(".", cwd=project)
    assert result.returncode == 1
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "./broken.py:2:7: AE000 cannot check this file: SyntaxError: invalid syntax"
    assert lines[2].startswith("./python2.py:1:1: AE000 cannot check this file: SyntaxError: ")
    assert lines[3].startswith("./train.py:4:5: AE501 ")
    assert len(lines) == 4


def test_a_missing_or_unreadable_path_is_one_line_exit_2_and_the_rest_is_checked(project):
    os.symlink(project / "gone.py", project / "dangling.py")
    result = lint("nope.py", ".", cwd=project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "autograd-errors lint: cannot read nope.py: No such file or directory",
        "autograd-errors lint: cannot read ./dangling.py: No such file or directory",
    ]
    assert "./train.py:4:5: AE501" in result.stdout


USAGE_LINE = (
    "usage: autograd-errors lint PATH ... [--json] [--select CODES] [--ignore CODES] [--lang en|zh]"
)


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ([], "lint needs a path (a file or a folder; - for standard input)"),
        (["--select"], "--select needs rule codes, such as AE101 or AE1"),
        (["--select", "--json", "x.py"], "--select needs rule codes, such as AE101 or AE1"),
        (["--select", "E501", "x.py"], "--select: 'E501' is no rule code or prefix"),
        (["--ignore", "AE777", "x.py"], "--ignore: 'AE777' is no rule code or prefix"),
        (["--select", ",", "x.py"], "--select needs codes, such as AE101 or AE1"),
        (["--lang", "fr", "x.py"], "fr"),
        (["--format", "x.py"], "unknown option '--format' for lint"),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(tmp_path, arguments, error):
    result = lint(*arguments, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    first, *rest = result.stderr.splitlines()
    assert first.startswith("autograd-errors: ")
    assert error in first
    # An unknown option is followed by lint's own usage line, as for every command.
    assert rest in ([], ["", USAGE_LINE])
    assert "Traceback" not in result.stderr


def test_standard_input(project):
    result = lint("-", stdin=TRAIN.encode())
    assert result.stdout == f"stdin:4:5: AE501 {MESSAGE_501}\n"
    assert result.returncode == 1


def test_messages_in_chinese(project):
    for env, args in (({}, ["--lang", "zh"]), ({"LANG": "zh_CN.UTF-8"}, [])):
        result = lint(*args, "train.py", cwd=project, env=env)
        assert result.stdout.startswith("train.py:4:5: AE501 这个循环调用了 backward()")


def test_a_file_name_that_could_rewrite_the_terminal_is_escaped(project):
    (project / "a\u202eyp.py").write_text(TRAIN)
    result = lint(".", cwd=project)
    assert "./a\\u202eyp.py:4:5: AE501" in result.stdout
    assert "\u202e" not in result.stdout


def test_a_reader_that_goes_away_keeps_the_exit_code(project):
    for index in range(200):
        (project / f"copy{index}.py").write_text(TRAIN)
    command = (
        f'"{sys.executable}" -m autograd_errors lint . | head -n 1 >/dev/null; '
        'exit "${PIPESTATUS[0]}"'
    )
    result = subprocess.run(
        ["bash", "-c", command],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stderr) == (1, "")


def test_help_and_the_top_level_usage(project):
    result = lint("--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: autograd-errors lint PATH ...")
    assert "exit codes: 0 nothing found, 1 findings" in result.stdout
    top = subprocess.run(
        [sys.executable, "-m", "autograd_errors", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "autograd-errors lint PATH ..." in top.stdout
    assert "  lint         check Python files and folders" in top.stdout


def test_the_eval_files_through_the_command():
    """The whole folder of eval files, as one run: every expectation, and nothing else."""
    result = lint("--json", str(EVAL_FILES), cwd=REPO)
    found = {(os.path.basename(f["path"]), f["line"], f["code"]) for f in json.loads(result.stdout)}
    assert {code for _, _, code in found} == set(rules()) - {"AE000", "AE901"}  # AE9 is off


def test_the_pre_commit_hook_runs_the_command_on_the_files_it_is_given(project):
    """pre-commit runs the hook's ``entry`` with the staged files' names appended."""
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    fields = dict(
        line.strip().lstrip("- ").split(": ", 1)
        for line in hooks.splitlines()
        if ": " in line and not line.lstrip().startswith("#")
    )
    assert fields["id"] == "autograd-errors-lint"
    assert fields["language"] == "python"
    assert fields["types_or"] == "[python, pyi]"
    command, subcommand = fields["entry"].split()
    assert (command, subcommand) == ("autograd-errors", "lint")
    executable = os.path.join(os.path.dirname(sys.executable), command)
    result = subprocess.run(
        [executable, subcommand, "train.py", "clean.py"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "LANG": "C.UTF-8"},
    )
    assert result.returncode == 1
    assert result.stdout == f"train.py:4:5: AE501 {MESSAGE_501}\n"
