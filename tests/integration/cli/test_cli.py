"""The CLI contract, run as a subprocess exactly as users and scripts run it."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import ANSWER_KEYS, MESSAGES_2_13

from autograd_errors import catalog

LEAF = MESSAGES_2_13["leaf-inplace"]["message"]
INPLACE_CUDA = MESSAGES_2_13["inplace-modified"]["cuda"]["message"]
MATCH_KEYS = {"id", "title", "exception", "score", "variant", "fields", "path", "url"}
DEFAULT_BASE = "https://autograd-errors.readthedocs.io/en/latest/"
CATALOG = catalog.load()


def out(result: subprocess.CompletedProcess[bytes]) -> str:
    return result.stdout.decode("utf-8")


def test_explain_answers_first_in_a_few_lines(cli):
    result = cli("explain", f"RuntimeError: {LEAF}")
    assert result.returncode == 0, result.stderr
    lines = out(result).splitlines()
    assert lines[0] == "In-place change to a leaf tensor that requires grad  (leaf-inplace)"
    assert any(line.startswith("  Fix: ") for line in lines)
    assert f"  More: {DEFAULT_BASE}errors/inplace/leaf-inplace.html" in lines
    assert LEAF not in " ".join(lines)  # the paste is not echoed back
    assert len(lines) <= 15
    assert result.stderr == b""


def test_verbose_gives_everything(cli):
    result = cli("explain", "--verbose", f"RuntimeError: {LEAF}")
    assert result.returncode == 0, result.stderr
    text = out(result)
    assert f"RuntimeError: {LEAF}" in text.replace("\n  ", " ")
    assert "  Why\n" in text
    assert "  Fix\n" in text
    assert "torch 1.5.0 and later" in text
    assert f"{DEFAULT_BASE}errors/inplace/leaf-inplace.html" in text
    docs = _record("leaf-inplace")["docs"]
    assert text[text.index("  Fix\n") :].count("  PyTorch documentation\n") == 1
    assert "\n".join(f"    {link}" for link in docs) in text


def _record(entry_id: str) -> dict:
    import tomllib

    from autograd_errors.catalog import ENTRIES_DIR

    return tomllib.loads(Path(ENTRIES_DIR, f"{entry_id}.toml").read_text(encoding="utf-8"))


def test_explain_says_what_happened_in_this_paste(cli):
    relu_hints = [h["text"] for h in _record("inplace-modified")["hint"] if h["prefix"] == "Relu"]
    short = out(cli("explain", INPLACE_CUDA))
    flat = " ".join(line.strip() for line in short.splitlines())
    assert "The [64, 128] tensor (torch.cuda.HalfTensor), output 0 of Relu" in flat
    assert relu_hints[0] in flat  # the advice for this very value comes first
    verbose = out(cli("explain", "-v", INPLACE_CUDA))
    assert "tensor_type=torch.cuda.HalfTensor" in verbose
    assert "shape=[64, 128]" in verbose


def test_a_traceback_points_at_the_users_own_line(cli):
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 41, in <module>\n'
        "    loss.backward()\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n'
        "    torch.autograd.backward(\n"
        f"RuntimeError: {LEAF}\n"
    )
    text = out(cli("explain", paste))
    assert "  Your line: /home/me/train.py:41\n    loss.backward()\n" in text
    (match,) = json.loads(cli("explain", "--json", paste).stdout)["matches"]
    assert match["user_frame"] == {
        "file": "/home/me/train.py",
        "line": 41,
        "code": "loss.backward()",
        "cell": None,  # a file, not a notebook's cell
    }


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
    assert set(data) == ANSWER_KEYS
    assert (data["near"], data["not_autograd"], data["raised_by"]) == ([], None, None)
    assert json.loads(cli("explain", "--json", "--echo", INPLACE_CUDA).stdout) == {
        "query": INPLACE_CUDA,
        **data,
    }
    (match,) = data["matches"]
    record = _record("inplace-modified")
    in_your_paste = match.pop("in_your_paste")
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
        "user_frame": None,
        "why": record["cause"].strip(),
        "fix": record["fix"].strip(),
        "causes": [
            {
                "id": c["id"],
                "text": c["text"].strip(),
                "fix": c["fix"].strip(),
                "since": c.get("since"),
                "until": c.get("until"),
            }
            for c in record.get("common_cause", [])
        ],
        # ReluBackward0: the node that signs the first cause, an in-place change of what an
        # op saved (the record's [common_cause.signs] op = ["Relu", ...]).
        "cause": {
            "id": "inplace-after-saving-op",
            "basis": "evidence",
            "evidence": [{"kind": "field", "sign": "op=Relu", "frame": None, "near": False}],
        },
        "docs": record["docs"],
    }
    assert in_your_paste[0].startswith(
        "The [64, 128] tensor (torch.cuda.HalfTensor), output 0 of Relu"
    )
    relu_hints = [h["text"] for h in record["hint"] if h["prefix"] == "Relu"]
    assert in_your_paste[-len(relu_hints) :] == relu_hints


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


def test_anomaly_lines_alone_name_the_users_forward_line(cli):
    # https://github.com/xuelunshen/rfnet/issues/4 (tests/data/real-pastes.json), cut
    paste = (
        "sys:1: RuntimeWarning: Traceback of forward call that caused the error:\n"
        '  File "/home/rfnet_project/rfnet-master/train.py", line 424, in <module>\n'
        "    train()\n"
        '  File "/home/rfnet_project/rfnet-master/utils/math_utils.py", line 18, in '
        "distance_matrix_vector\n"
        "    FeatSimi_Mat = torch.sqrt(FeatSimi_Mat)  # euc [0, 2]"
    )
    result = cli("explain", "--json", paste)
    assert result.returncode == 1
    found = json.loads(result.stdout)
    assert (found["matches"], found["context_only"]) == ([], True)
    assert found["context_frame"] == {
        "file": "/home/rfnet_project/rfnet-master/utils/math_utils.py",
        "line": 18,
        "code": "FeatSimi_Mat = torch.sqrt(FeatSimi_Mat)  # euc [0, 2]",
        "cell": None,
    }
    shown = out(cli("explain", paste))
    assert "The forward call of the backward function that failed, in your code:" in shown
    assert "utils/math_utils.py:18\n    FeatSimi_Mat = torch.sqrt(FeatSimi_Mat)" in shown


def test_no_match_exits_1_with_empty_matches(cli):
    message = "RuntimeError: the moon is made of cheese, said the optimiser"
    result = cli("explain", "--json", message)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "matches": [],
        "near": [],
        "not_autograd": None,
        "raised_by": None,
        "context_only": False,
        "context_frame": None,
        "described": False,
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


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_report_in_prose_gets_the_pages_about_it_and_exits_1(cli, language):
    # a blind sample's report (https://github.com/ZF4444/MMAL-Net/issues/8): no message in it
    paste = "In my case, when I use `backward()` on maximum score its gradients are None."
    result = cli("explain", "--lang", language, paste)
    assert result.returncode == 1
    text = out(result)
    title = CATALOG["grad-is-none"].localized(language, fallback=True).title
    if language == "en":
        assert text.startswith("No entry matches this text.\nThis text quotes no error message")
        assert "Pages about what it describes (not a match):\n  grad-is-none  " + title in text
    else:
        assert text.startswith("没有条目与这段文本匹配。\n这段文本没有引用任何报错信息")
        assert "关于它所描述情况的页面（不是匹配）：\n  grad-is-none  " + title in text
    data = json.loads(cli("explain", "--json", paste).stdout)
    assert (data["matches"], data["described"]) == ([], True)
    assert data["near"] == [
        {"id": "grad-is-none", "title": CATALOG["grad-is-none"].title, "score": 1.0}
    ]


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


def test_show_repro_prints_the_bundled_script_with_its_entry_written_out(cli):
    result = cli("show", "leaf-inplace", "--repro")
    assert result.returncode == 0
    printed = result.stdout.decode()
    script = Path(__file__).parents[3] / "gallery" / "inplace" / "leaf-inplace.py"
    source = script.read_text(encoding="utf-8")
    assert ".. autograd-entry:: leaf-inplace" in source
    assert ".. autograd-" not in printed
    assert printed.startswith(
        '"""\nIn-place change to a leaf tensor that requires grad\n'
        "===================================================\n\n"
        "The message, as torch prints it (torch 1.5.0 and later)::\n\n"
        "    RuntimeError: a leaf Variable that requires grad is being used in an in-place "
        "operation.\n\n**Why.** A leaf is a tensor no recorded operation produced"
    )
    assert "**Most common cause.** A gradient step written by hand outside" in printed
    assert "**Its fix:** Wrap the update in `with torch.no_grad():`" in printed
    assert "**Fix.** If the change is part of the computation, make a new tensor" in printed
    assert (
        "https://autograd-errors.readthedocs.io/en/latest/errors/inplace/leaf-inplace.html"
        in printed
    )
    # Everything after the docstring's directive is the script's own, but for the footer.
    code_start = source.index('"""', 3)
    assert printed[printed.index('"""', 3) :].startswith(source[code_start:][:2000])
    assert "# - ``view-leaf-inplace``: In-place change through a view of a leaf" in printed
    compile(printed, "leaf-inplace.py", "exec")
    assert cli("show", "leaf-inplace", "--repro", "--json").returncode == 2


def test_show_repro_of_a_pitfall_says_it_raises_nothing(cli):
    printed = cli("show", "grad-is-none", "--repro").stdout.decode()
    assert ".. autograd-" not in printed
    assert "A silent pitfall: nothing is raised" in printed


@pytest.mark.parametrize(("columns", "longest"), [("50", 48), ("120", 118), ("", 78)])
def test_text_fills_columns_or_80(cli, columns, longest):
    env = {"COLUMNS": columns} if columns else {}
    result = cli("show", "inplace-modified", env=env)
    lines = result.stdout.decode().splitlines()
    prose = [line for line in lines if "://" not in line]
    assert max(map(len, prose)) <= longest
    assert max(map(len, prose)) > longest - 12


@pytest.mark.parametrize("entry_id", ["backward-twice", "leaf-inplace", "grad-is-none"])
def test_show_json_carries_every_fact_of_the_record(cli, entry_id):
    import tomllib

    from autograd_errors.catalog import ENTRIES_DIR

    record = tomllib.loads(Path(ENTRIES_DIR, f"{entry_id}.toml").read_text(encoding="utf-8"))
    shown = json.loads(cli("show", entry_id, "--json").stdout)
    assert [
        (w["variant"], w["message"], w["source"], w["note"], w["since"], w["until"])
        for w in shown["wordings"]
    ] == [
        (w["variant"], w["message"], w["source"], w.get("note", ""), w.get("since"), w.get("until"))
        for w in record.get("wording", [])
    ]
    assert shown["causes"] == [
        {
            "id": c["id"],
            "text": c["text"].strip(),
            "fix": c["fix"].strip(),
            "since": c.get("since"),
            "until": c.get("until"),
            "sources": c.get("sources", []),
        }
        for c in record.get("common_cause", [])
    ]
    assert shown["docs"] == record["docs"]
    assert shown["docs"]
    text = out(cli("show", entry_id))
    listed = text[text.index("  PyTorch documentation\n") :].splitlines()[1:]
    assert [line.strip() for line in listed[: len(record["docs"])]] == record["docs"]
    assert (shown["cause"], shown["fix"]) == (record["cause"].strip(), record["fix"].strip())


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


@pytest.mark.parametrize(("typed", "code"), [(LEAF + "\n", 0), ("", 2)])
def test_explain_without_text_on_a_terminal_invites_a_paste(cli_env, typed, code):
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "autograd_errors", "explain"],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=cli_env,
        )
        assert process.stderr is not None
        prompt = process.stderr.readline()
        assert prompt == (
            b"Paste the error or the whole traceback, then press Ctrl-D on a line of its own:\n"
        )
        os.write(controller, typed.encode() + b"\x04")
        stdout, stderr = process.communicate(timeout=60)
    finally:
        os.close(terminal)
        os.close(controller)
    assert process.returncode == code
    if code == 0:
        assert stdout.decode().startswith("In-place change to a leaf tensor")
    else:
        assert b"explain got no text" in stderr


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


# Streams: closed, full and broken outputs, encodings (issue 13) ----------------------------

NO_MATCH = "this is not an error message of any kind"


def _shell(cli_env, script: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        env={**cli_env, **env},
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("unbuffered", ["", "1"])
@pytest.mark.parametrize("args", ["list --json", "list", "show leaf-inplace --json"])
def test_a_reader_that_goes_away_is_not_an_error(cli_env, args, unbuffered):
    env = {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    command = f'"{sys.executable}" -m autograd_errors {args}'
    result = _shell(cli_env, command + ' | head -n 1 >/dev/null; exit "${PIPESTATUS[0]}"', **env)
    assert (result.returncode, result.stderr) == (0, b"")


@pytest.mark.parametrize("unbuffered", ["", "1"])
@pytest.mark.parametrize(("text", "code"), [(NO_MATCH, 1), (LEAF, 0)])
def test_a_closed_pipe_keeps_the_match_result(cli_env, text, code, unbuffered):
    env = {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    script = (
        f'"{sys.executable}" -m autograd_errors explain "$TEXT" | true; exit "${{PIPESTATUS[0]}}"'
    )
    result = _shell(cli_env, script, TEXT=text, **env)
    assert (result.returncode, result.stderr) == (code, b"")


def test_a_closed_stdout_is_one_line_and_exit_2(cli_env):
    result = _shell(
        cli_env, f'"{sys.executable}" -m autograd_errors explain "$TEXT" >&-', TEXT=LEAF
    )
    assert result.returncode == 2
    assert result.stderr == b"autograd-errors: standard output is closed\n"


@pytest.mark.parametrize("unbuffered", ["", "1"])
@pytest.mark.parametrize("args", ["explain --json", "explain", "list"])
def test_a_full_disk_is_one_line_and_exit_2(cli_env, args, unbuffered):
    env = {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    command = f'"{sys.executable}" -m autograd_errors {args}'
    if args.startswith("explain"):
        command += ' "$TEXT"'
    result = _shell(cli_env, command + " >/dev/full", TEXT=LEAF, **env)
    assert result.returncode == 2
    assert result.stderr == b"autograd-errors: cannot write the output: No space left on device\n"


TRICKY = "caf\u00e9 \U0001f525 \u009b31m \u202eevil\u202c " + LEAF


@pytest.mark.parametrize("encoding", ["ascii", "cp1252", "latin-1", "utf-8"])
def test_json_is_valid_json_in_any_output_encoding(cli, encoding):
    result = cli("explain", "--json", "--echo", TRICKY, env={"PYTHONIOENCODING": encoding})
    assert result.returncode == 0
    assert result.stdout.decode(encoding if encoding != "ascii" else "ascii")  # it is encodable
    data = json.loads(result.stdout.decode("utf-8" if encoding == "utf-8" else "latin-1"))
    assert data["query"] == TRICKY
    assert data["matches"][0]["id"] == "leaf-inplace"


@pytest.mark.parametrize("json_flag", [(), ("--json", "--echo")])
def test_terminal_controls_in_a_paste_are_never_printed_raw(cli, json_flag):
    result = cli("explain", *json_flag, TRICKY)
    printed = result.stdout.decode("utf-8")
    assert not {"\u009b", "\u202e", "\u202c"} & set(printed)
    if json_flag:
        assert json.loads(printed)["query"] == TRICKY
    else:
        assert result.returncode == 0


def test_stdin_is_not_read_whole(cli_env):
    """600 MB piped in, under a 400 MB address-space limit: only the tail is kept."""
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))\n"
        "from autograd_errors.cli import main\n"
        "sys.exit(main(['explain', '--json']))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env,
    )
    assert process.stdin is not None
    assert process.stdout is not None

    def paste() -> None:
        chunk = (b"x" * 99 + b"\n") * (1 << 14)  # 1.6 MB
        with contextlib.suppress(BrokenPipeError), process.stdin:
            for _ in range(375):
                process.stdin.write(chunk)
            process.stdin.write(
                b"Traceback (most recent call last):\nRuntimeError: " + LEAF.encode()
            )

    writer = threading.Thread(target=paste)
    writer.start()
    printed = process.stdout.read()
    writer.join()
    assert process.wait(timeout=120) == 0
    assert json.loads(printed)["matches"][0]["id"] == "leaf-inplace"


@pytest.mark.parametrize("option", ["--base-url", "--output"])
def test_an_option_value_that_looks_like_an_option_is_a_usage_error(cli, option):
    command = "record" if option == "--output" else "explain"
    result = cli(command, option, "--json", "x")
    assert result.returncode == 2
    assert f"{option} needs" in result.stderr.decode()


# Exit codes for what no input should cause ------------------------------------------------

BROKEN_MATCHER = (
    "import sys, autograd_errors.matcher.matching as matching\n"
    "def broken(*args, **kwargs):\n"
    "    raise RuntimeError('the matcher broke')\n"
    "matching.find_entries = broken\n"
    "from autograd_errors.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_an_internal_error_is_exit_3_with_one_message(cli_env):
    result = subprocess.run(
        [sys.executable, "-c", BROKEN_MATCHER, "explain", LEAF],
        capture_output=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 3
    assert result.stderr.decode() == (
        "autograd-errors: internal error: RuntimeError: the matcher broke\n"
        "Set AUTOGRAD_ERRORS_DEBUG=1 to see the traceback, and please report it.\n"
    )


def test_the_debug_variable_shows_the_traceback(cli_env):
    result = subprocess.run(
        [sys.executable, "-c", BROKEN_MATCHER, "explain", LEAF],
        capture_output=True,
        env={**cli_env, "AUTOGRAD_ERRORS_DEBUG": "1"},
        timeout=60,
        check=False,
    )
    assert result.returncode == 1  # Python's own exit for an uncaught exception
    stderr = result.stderr.decode()
    assert stderr.startswith("Traceback (most recent call last):")
    assert stderr.endswith("RuntimeError: the matcher broke\n")


def test_ctrl_c_while_waiting_for_a_paste_exits_130_quietly(cli_env):
    import signal
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "autograd_errors", "explain", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env,
    )
    time.sleep(2)  # started, and blocked reading the paste
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert (process.returncode, stdout, stderr) == (130, b"", b"")


# run: a program with the answer after its traceback (issue 15) ----------------------------

PROGRAM = """\
import sys
import torch

print("argv:", sys.argv, "name:", __name__)
if sys.argv[1:] == ["--exit"]:
    sys.exit(7)
x = torch.randn(3, requires_grad=True)
x += 1
"""


@pytest.fixture
def program(tmp_path):
    (tmp_path / "train.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "trainer" / "__main__.py").write_text(PROGRAM, encoding="utf-8")
    return tmp_path


RUN = (sys.executable, "-m", "autograd_errors", "run")


def _in(directory, *command: str, cli_env) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command), capture_output=True, text=True, cwd=directory, env=cli_env, timeout=120
    )


def test_run_a_script_as_python_would_with_the_answer_after(program, cli_env):
    python = _in(program, sys.executable, "train.py", "--lr", "3", cli_env=cli_env)
    ours = _in(program, *RUN, "train.py", "--lr", "3", cli_env=cli_env)
    assert python.returncode == ours.returncode == 1
    assert ours.stdout == python.stdout == "argv: ['train.py', '--lr', '3'] name: __main__\n"
    assert ours.stderr.startswith(python.stderr)
    added = ours.stderr[len(python.stderr) :]
    assert added.startswith("\nautograd-errors: In-place change to a leaf tensor")
    assert added.rstrip().endswith("/errors/inplace/leaf-inplace.html")


def test_run_a_module_with_dash_m(program, cli_env):
    python = _in(program, sys.executable, "-m", "trainer", "x", cli_env=cli_env)
    ours = _in(program, *RUN, "-m", "trainer", "x", cli_env=cli_env)
    assert python.returncode == ours.returncode == 1
    assert ours.stdout == python.stdout
    assert ours.stdout.startswith(f"argv: ['{program / 'trainer' / '__main__.py'}', 'x']")
    assert "(leaf-inplace)" in ours.stderr


def test_run_keeps_the_programs_exit_code(program, cli_env):
    ours = _in(program, *RUN, "train.py", "--exit", cli_env=cli_env)
    assert (ours.returncode, ours.stderr) == (7, "")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run",), "run needs a script, or -m and a module"),
        (("run", "-m"), "run needs a script, or -m and a module"),
        (("run", "no-such-script.py"), "run: cannot open 'no-such-script.py': no such file"),
        (("run", "-m", "no_such_module_here"), "run: no module named 'no_such_module_here'"),
    ],
)
def test_run_without_a_program_is_a_usage_error(cli, args, message):
    result = cli(*args)
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"autograd-errors: {message}\n")
