"""The CLI contract, run as a subprocess exactly as users and scripts run it."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import MESSAGES_2_13

LEAF = MESSAGES_2_13["leaf-inplace"]["message"]
INPLACE_CUDA = MESSAGES_2_13["inplace-modified"]["cuda"]["message"]
MATCH_KEYS = {"id", "title", "exception", "score", "variant", "fields", "path", "url"}
DEFAULT_BASE = "https://autograd-errors.readthedocs.io/en/latest/"


def out(result: subprocess.CompletedProcess[bytes]) -> str:
    return result.stdout.decode("utf-8")


def test_explain_a_message_given_as_argument(cli):
    result = cli("explain", f"RuntimeError: {LEAF}")
    assert result.returncode == 0, result.stderr
    text = out(result)
    assert "(leaf-inplace)" in text
    assert f"RuntimeError: {LEAF}" in text.replace("\n  ", " ")
    assert "Why" in text
    assert "Fix" in text
    assert f"{DEFAULT_BASE}errors/inplace/leaf-inplace.html" in text
    assert "torch 1.5.0 and later" in text
    assert result.stderr == b""


def test_explain_prints_fields_and_what_they_mean(cli):
    text = out(cli("explain", INPLACE_CUDA))
    assert "tensor_type=torch.cuda.HalfTensor" in text
    assert "shape=[64, 128]" in text
    assert "The [64, 128] tensor (torch.cuda.HalfTensor), output 0 of Relu" in text


def test_unquoted_words_are_joined(cli):
    result = cli("explain", *f"RuntimeError: {LEAF}".split())
    assert result.returncode == 0
    assert "(leaf-inplace)" in out(result)


@pytest.mark.parametrize("args", [("explain",), ("explain", "-")])
def test_explain_reads_stdin(cli, args):
    paste = f'Traceback (most recent call last):\n  File "t.py", line 2\nRuntimeError: {LEAF}\n'
    result = cli(*args, "--json", stdin=paste.encode())
    assert result.returncode == 0
    assert json.loads(result.stdout)["matches"][0]["id"] == "leaf-inplace"


def test_json_output_is_exactly_the_contract(cli):
    result = cli("explain", "--json", INPLACE_CUDA)
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert set(data) == {"query", "matches", "near", "not_autograd"}
    assert (data["near"], data["not_autograd"]) == ([], None)
    assert data["query"] == INPLACE_CUDA
    (match,) = data["matches"]
    assert set(match) == MATCH_KEYS | {"match"}
    assert match == {
        "id": "inplace-modified",
        "title": "A tensor saved for backward was modified in place",
        "exception": "RuntimeError",
        "match": "exact",
        "score": 1.0,
        "variant": "current",
        "fields": MESSAGES_2_13["inplace-modified"]["cuda"]["fields"],
        "path": "errors/inplace/inplace-modified.html",
        "url": f"{DEFAULT_BASE}errors/inplace/inplace-modified.html",
    }


def test_json_lists_several_matches_best_first(cli):
    paste = (
        "UserWarning: Error detected in DivBackward0. Traceback of forward call that caused the "
        "error:\n  File \"t.py\", line 4\nRuntimeError: Function 'DivBackward0' returned nan "
        "values in its 1th output.\n\nDuring handling of the above exception, another exception "
        f"occurred:\n\nRuntimeError: {LEAF}\n"
    )
    data = json.loads(cli("explain", "--json", paste).stdout)
    assert [(m["id"], m["variant"]) for m in data["matches"]] == [
        ("leaf-inplace", "current"),
        ("anomaly-nan", "current"),
    ]


def test_no_match_exits_1_with_empty_matches(cli):
    message = "RuntimeError: the moon is made of cheese, said the optimiser"
    result = cli("explain", "--json", message)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "query": message,
        "matches": [],
        "near": [],
        "not_autograd": None,
    }
    text_result = cli("explain", message)
    assert text_result.returncode == 1
    assert out(text_result).startswith("No entry matches this text.")


def test_a_non_autograd_error_says_so_in_one_line_and_exits_1(cli):
    message = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x3 and 4x1)"
    result = cli("explain", "--json", message)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert (data["matches"], data["near"]) == ([], [])
    assert data["not_autograd"]["kind"] == "shape-mismatch"
    assert data["not_autograd"]["url"] == (
        "https://pytorch.org/docs/stable/generated/torch.nn.Linear.html"
    )
    text_result = cli("explain", message)
    assert text_result.returncode == 1
    (line,) = out(text_result).splitlines()
    assert line.startswith("Not an autograd error (shape-mismatch): ")
    assert line.endswith(" See https://pytorch.org/docs/stable/generated/torch.nn.Linear.html")


def test_partial_matches_say_so_and_exit_0(cli):
    message = "RuntimeError: one of the varaibles needed for gradient computation has been modified"
    result = cli("explain", "--json", message)
    assert result.returncode == 0
    (match,) = json.loads(result.stdout)["matches"]
    assert (match["id"], match["match"]) == ("inplace-modified", "partial")
    assert 0 < match["score"] < 1
    assert "Matched part of the wording (" in out(cli("explain", message))


def test_near_misses_are_shown_as_such(cli):
    paste = "gradient require doesn't that tensor a on hook a register cannot"
    result = cli("explain", paste)
    assert result.returncode == 1
    text = out(result)
    assert "No entry matches this text." in text
    assert "Not matches, but the closest entries" in text
    assert "hook-no-grad" in text
    near = json.loads(cli("explain", "--json", paste).stdout)["near"]
    assert near[0] == {
        "id": "hook-no-grad",
        "title": "Gradient hook on a tensor that does not require grad",
        "score": 1.0,
    }


@pytest.mark.parametrize(
    ("base", "how"),
    [("https://docs.example.org/ae", "flag"), ("https://docs.example.org/ae/", "env")],
)
def test_base_url_is_configurable(cli, base, how):
    args = ["explain", "--json", LEAF]
    env = None
    if how == "flag":
        args[1:1] = ["--base-url", base]
    else:
        env = {"AUTOGRAD_ERRORS_BASE_URL": base}
    (match,) = json.loads(cli(*args, env=env).stdout)["matches"]
    assert match["url"] == "https://docs.example.org/ae/errors/inplace/leaf-inplace.html"


def test_list_gives_every_entry_with_the_match_keys_but_score(cli, packaged_catalog):
    result = cli("list", "--json")
    assert result.returncode == 0
    entries = json.loads(result.stdout)["entries"]
    assert [e["id"] for e in entries] == packaged_catalog.ids
    for entry in entries:
        assert set(entry) == MATCH_KEYS - {"score"}
        assert entry["url"] == DEFAULT_BASE + entry["path"]
    text = out(cli("list"))
    assert all(entry_id in text for entry_id in packaged_catalog.ids)


def test_show_gives_one_entry_with_its_wordings(cli):
    result = cli("show", "backward-twice", "--json")
    assert result.returncode == 0
    entry = json.loads(result.stdout)
    assert entry["id"] == "backward-twice"
    assert MATCH_KEYS - {"score"} <= set(entry)
    assert entry["wordings"][0]["variant"] == "current"
    assert {"buffers", "intermediate-results"} <= {w["variant"] for w in entry["wordings"]}
    text = out(cli("show", "backward-twice"))
    assert "buffers: torch 0.2.0 to 1.5.1" in text


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        ((), None, "a command is required"),
        (("frobnicate",), None, "unknown command 'frobnicate'"),
        (("explain", "--colour", LEAF), None, "unknown option '--colour'"),
        (("list", "extra"), None, "list takes no arguments"),
        (("show",), None, "show needs an argument"),
        (("show", "leaf-inplac"), None, "no entry 'leaf-inplac'; did you mean leaf-inplace or"),
        (("explain",), b"", "explain got no text"),
        (("explain",), b" \n\t\n", "explain got no text"),
        (("explain", "-", "more"), None, "not both"),
        (("explain", "--base-url"), None, "--base-url needs a URL"),
    ],
)
def test_usage_errors_exit_2_with_a_message(cli, args, stdin, message):
    result = cli(*args, stdin=stdin)
    assert result.returncode == 2
    assert message in result.stderr.decode()
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize(
    "paste",
    [
        bytes(range(256)) * 10,
        b"\xff\xfe\x00\x00garbage",
        b"RuntimeError: a leaf Variable\x00 that requires grad is being used in an in-place "
        b"operation.",
        b"\xc3\x28 invalid utf-8 \xa0\xa1 " + LEAF.encode(),
        b"\x1b[31m" * 5000,
    ],
)
def test_any_bytes_on_stdin_give_a_defined_exit_never_a_traceback(cli, paste):
    result = cli("explain", stdin=paste)
    assert result.returncode in (0, 1)
    assert result.stderr == b""


def test_invalid_utf8_in_an_argument(cli):
    result = cli("explain", b"\xff\xfe " + LEAF.encode())
    assert result.returncode == 0
    assert result.stderr == b""


def test_a_ten_megabyte_paste(cli):
    filler = b'  File "/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl\n'
    paste = filler * (10_000_000 // len(filler)) + f"RuntimeError: {LEAF}\n".encode()
    result = cli("explain", "--json", stdin=paste)
    assert result.returncode == 0
    assert json.loads(result.stdout)["matches"][0]["id"] == "leaf-inplace"


def run_on_a_terminal(
    cli_env: dict[str, str], *args: str, env: dict[str, str] | None = None
) -> str:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "autograd_errors", *args],
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=terminal,
            env={**cli_env, **(env or {})},
        )
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal closes when the process ends
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    finally:
        os.close(controller)
    return b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_with_no_color(cli, cli_env):
    assert "\x1b[" in run_on_a_terminal(cli_env, "explain", LEAF)
    assert "\x1b[" not in run_on_a_terminal(cli_env, "explain", LEAF, env={"NO_COLOR": "1"})
    assert "\x1b[" not in out(cli("explain", LEAF))


def test_explain_without_text_on_a_terminal_is_a_usage_error(cli_env):
    controller, terminal = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "autograd_errors", "explain"],
            stdin=terminal,
            capture_output=True,
            env=cli_env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert result.returncode == 2
    assert b"explain needs TEXT" in result.stderr


def test_help_and_version(cli):
    help_result = cli("--help")
    assert help_result.returncode == 0
    assert "exit codes" in out(help_result)
    from autograd_errors import __version__

    assert out(cli("--version")).strip() == f"autograd-errors {__version__}"


def test_a_closed_pipe_is_not_an_error(cli_env):
    script = f'"{sys.executable}" -m autograd_errors list | head -n 1; exit "${{PIPESTATUS[0]}}"'
    result = subprocess.run(
        ["bash", "-c", script], capture_output=True, env=cli_env, timeout=60, check=False
    )
    assert result.returncode == 0
    assert result.stderr == b""


def test_the_installed_command(cli_env):
    command = Path(sys.executable).parent / "autograd-errors"
    result = subprocess.run(
        [str(command), "explain", "--json", LEAF],
        capture_output=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert json.loads(result.stdout)["matches"][0]["id"] == "leaf-inplace"


def test_explaining_imports_nothing_heavy(cli_env):
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograd_errors", "explain", LEAF],
        capture_output=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines()}
    heavy = {
        "torch",
        "numpy",
        "sphinx",
        "docutils",
        "json",
        "re",
        "typing",
        "dataclasses",
        "argparse",
        "tomllib",
        "textwrap",
        "pathlib",
    }
    assert imported & heavy == set()
