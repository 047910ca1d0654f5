"""The user's line in pasted tracebacks: which frames are the user's, which traceback a match is
in, and how a notebook's cell is named. Real pastes and recorded real runs, and the paths of
the reader that they exercise."""

from __future__ import annotations

import pytest
from helpers import load_data
from realruns import recorded

from autograd_errors import catalog
from autograd_errors.matcher.frames import Frame, header, is_library
from autograd_errors.matcher.matching import find_entries
from autograd_errors.matcher.tracebacks import prefix_of, user_frame
from autograd_errors.rendering.evidence import location

CATALOG = catalog.load(use_cache=False)
RUNS = {run["name"]: run["text"] for run in recorded()["runs"]}
PASTES = {paste["source"]: paste["text"] for paste in load_data("real-pastes.json")["pastes"]}


def frame_of(text: str) -> Frame | None:
    found = find_entries(text, CATALOG)
    assert found.matches
    return found.frame


@pytest.mark.parametrize(
    ("file", "code"),
    [
        ("/usr/lib/python3.7/runpy.py", "exec(code, run_globals)"),
        ("/usr/local/lib/python3.11/site-packages/torch/_tensor.py", "torch.autograd.backward("),
        ("C:\\Python311\\Lib\\runpy.py", ""),
        ("C:\\Users\\me\\Anaconda3\\envs\\nerf\\lib\\multiprocessing\\spawn.py", ""),
        ("/home/me/.pyenv/versions/3.11.7/lib/python3.11/threading.py", ""),
        ("/opt/conda/lib/python3.10/contextlib.py", ""),
        ("<frozen runpy>", ""),
        ("<string>", ""),
        ("<decorator-gen-12>", ""),
        ("/home/me/venv/bin/torchrun", "sys.exit(main())"),
        ("C:\\venv\\Scripts\\accelerate", "sys.exit(main())"),
    ],
)
def test_these_frames_are_never_the_users_line(file, code):
    assert is_library(file, code)


@pytest.mark.parametrize(
    ("file", "code"),
    [
        ("/home/me/project/train.py", "loss.backward()"),
        ("/home/me/project/lib/model.py", "out += x"),  # a project's own lib/ folder
        ("D:\\work\\lib\\model.py", "out += x"),
        ("/home/me/project/bin/train", "main()"),  # a script of one's own in bin/
        ("<stdin>", ""),
        ("<ipython-input-3-d55b3fc56974>", "x += 1"),
        ("Cell In[3]", "x += 1"),
    ],
)
def test_these_frames_are_the_users(file, code):
    assert not is_library(file, code)


def test_a_stdlib_frame_is_never_your_line_even_when_nothing_else_is_shown():
    # Anomaly mode's forward traceback cut short: runpy and ipykernel's launcher only.
    compnet = PASTES["https://github.com/WOW5678/CompNet/issues/2"]
    assert "/usr/lib/python3.7/runpy.py" in compnet
    assert frame_of(compnet) is None


def test_chained_exceptions_point_at_the_line_that_failed_not_the_re_raise():
    for name in ("wrapped", "rewrapped_message", "handled_then_failed", "group_of_errors"):
        frame = frame_of(RUNS[name])
        assert frame is not None
        assert (frame.line, frame.code) == (5, "w.add_(1)"), name


def test_torchrun_points_at_the_ranks_own_frames_not_the_launcher():
    printed = RUNS["ddp_err"]
    assert "bin/torchrun" in printed
    assert "[rank0]:" in printed
    frame = frame_of(printed)
    assert frame is not None
    assert (frame.file, frame.line) == ("/home/user/run/ddp_err.py", 7)


def test_interleaved_ranks_are_read_rank_by_rank():
    ranks = [line for line in RUNS["ddp_err"].split("\n") if line.startswith("[rank")]
    zero = [line for line in ranks if line.startswith("[rank0]")]
    one = [line for line in ranks if line.startswith("[rank1]")]
    interleaved = "\n".join(line for pair in zip(one, zero, strict=False) for line in pair)
    frame = frame_of(interleaved)
    assert frame is not None
    assert (frame.file, frame.line, frame.code) == (
        "/home/user/run/ddp_err.py",
        7,
        "h.sum().backward()",
    )
    with_tee = "\n".join(f"[default0]:{line}" for line in zero)  # torchrun --tee 3
    assert frame_of(with_tee) == frame


def test_colour_codes_keep_the_line():
    for name in ("under_no_grad", "cell_detach"):
        assert "\x1b[" in RUNS[name]
        assert frame_of(RUNS[name]) is not None, name


def test_a_notebook_cell_is_named_as_the_notebook_shows_it():
    cell = frame_of(RUNS["cell_detach"])
    assert cell is not None
    assert (cell.cell, location(cell)) == (4, "Cell In[4], line 5")
    assert location(cell, "zh_CN") == "Cell In[4], line 5"  # IPython's own words
    fastbook = frame_of(PASTES["https://github.com/fastai/fastbook/pull/471"])  # IPython 7
    assert fastbook is not None
    assert (fastbook.cell, location(fastbook)) == (129, "Cell In[129], line 1")


def test_colabs_cell_is_a_cell_without_a_number():
    colab = frame_of(PASTES["https://github.com/unslothai/unsloth/issues/3543"])
    assert colab is not None
    assert (colab.code, colab.cell) == ("trainer_stats = trainer.train()", 0)
    assert location(colab) == "a cell, line 1"
    assert location(colab, "zh_CN") == "单元格第 1 行"


def test_a_jupyter_kernels_file_is_named_by_the_kernels_own_cell_numbers():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/ipykernel_4242/1786528961.py", line 4, in <module>\n'
        "    x += 1\n"
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
        "operation.\n"
    )
    pasted = user_frame(text)
    assert pasted is not None
    assert (pasted.cell, location(pasted)) == (0, "a cell, line 4")  # the paste does not say
    running = user_frame(text, {"/tmp/ipykernel_4242/1786528961.py": 7})
    assert running is not None
    assert location(running) == "Cell In[7], line 4"


def test_a_warnings_own_location_is_its_line():
    frame = frame_of(RUNS["volatile_flag"])
    assert frame is not None
    assert (frame.line, frame.code) == (3, "if x.volatile:")


def test_a_warning_before_an_error_does_not_take_the_errors_line():
    text = RUNS["volatile_flag"] + RUNS["manual_sgd"]
    found = find_entries(text, CATALOG)
    by_entry = {m.entry.id: m.located.frame for m in found.matches}
    assert by_entry["leaf-inplace"] is not None
    assert by_entry["leaf-inplace"].code == "w -= lr * w.grad"
    assert by_entry["volatile-removed"] is not None
    assert by_entry["volatile-removed"].code == "if x.volatile:"


@pytest.mark.parametrize(
    ("line", "prefix", "content"),
    [
        ("[rank0]:   File x", "[rank0]:", "   File x"),
        ("[default0]:[rank0]: RuntimeError: x", "[default0]:[rank0]:", " RuntimeError: x"),
        ("    | Traceback (most recent call last):", "", " Traceback (most recent call last):"),
        ("[[64, 128]]: a shape, not a prefix", "", "[[64, 128]]: a shape, not a prefix"),
        ("[]: nothing", "", "[]: nothing"),
    ],
)
def test_rank_prefixes(line, prefix, content):
    assert prefix_of(line) == (prefix, content)


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ('File "x.py", line 3, in f', ("x.py", 3, "python")),
        ("File ~/x.py:9", ("~/x.py", 9, "ipython")),
        ("Cell In[3], line 4, in f(x)", ("Cell In[3]", 4, "ipython")),
        ("<ipython-input-3-ab> in <module>", ("<ipython-input-3-ab>", 0, "arrow")),
        (
            "[/tmp/ipython-input-1.py](https://localhost:8080/#) in <cell line: 0>()",
            ("/tmp/ipython-input-1.py", 0, "arrow"),
        ),
        ("/x/t.py:3: UserWarning: message", ("/x/t.py", 3, "warning")),
        ('File "x.py", line ²', None),  # a digit of another script is no line number
        ('File "x.py", line ' + "9" * 5000, None),  # nor is a number int() refuses
        ("an error in backward()", None),
        ("RuntimeError: x Warning: y", None),
    ],
)
def test_frame_headers(line, read):
    assert header(line) == read
