"""``%load_ext autograd_errors`` in a real Jupyter kernel and a real terminal IPython: typed
cells and ``%run`` scripts, HTML that reads like the site, the language of the locale or of
``%autograd_errors --lang``, and a custom exception handler set before loading kept (H22)."""

from __future__ import annotations

import html
import re

import pytest
from helpers import english_left, execute, jupyter_kernel, terminal_ipython

FAILING_CELL = "x = torch.randn(3, requires_grad=True)\nx += 1"
UNRELATED_CELL = "{}['missing']"
#: A script with its bug on line 4, run with %run.
SCRIPT = """\
import torch
w = torch.randn(3, requires_grad=True)
def step():
    w.add_(1)
step()
"""
MESSAGE = "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
PAGE = "https://autograd-errors.readthedocs.io/en/latest/errors/inplace/leaf-inplace.html"
ZH_TITLE = "需要梯度的叶子张量被原地修改"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("kernel")
    (directory / "train.py").write_text(SCRIPT, encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def kernel(cli_env, workdir):
    with jupyter_kernel(cli_env, workdir) as client:
        yield client


def answer_html(outputs: list[dict]) -> str:
    (shown,) = [o for o in outputs if o["type"] == "display_data"]
    return shown["data"]["text/html"]


def test_a_notebook_cell_gets_the_answer_in_html_under_its_traceback(kernel):
    assert not [
        o
        for o in execute(kernel, "import torch\n%load_ext autograd_errors")
        if o["type"] == "error"
    ]
    outputs = execute(kernel, FAILING_CELL)
    assert [o["type"] for o in outputs] == ["error", "display_data"]
    assert outputs[0]["ename"] == "RuntimeError"
    assert (
        outputs[0]["evalue"]
        == "a leaf Variable that requires grad is being used in an in-place operation."
    )
    answer = answer_html(outputs)
    assert "In-place change to a leaf tensor that requires grad" in answer
    assert f'href="{PAGE}"' in answer
    assert outputs[1]["data"]["text/plain"].startswith("autograd-errors: In-place change")


def test_the_notebook_answer_reads_like_the_site(kernel):
    """Code as code (no backtick shown), "Your line" with the cell's line, the page a link."""
    execute(kernel, "import torch\n%load_ext autograd_errors")
    answer = answer_html(execute(kernel, FAILING_CELL))
    shown = html.unescape(re.sub(r"<[^>]+>", "", answer))
    assert "`" not in shown
    assert "<code>torch.no_grad()</code>" in answer
    # (The line's name is the frame logic's: the cell, "Cell In[2], line 2" as IPython says.)
    your_line = r"<strong>Your line:</strong> <code>[^<]+</code></div><div[^>]*><code>x \+= 1<"
    assert re.search(your_line, answer)
    assert re.search(
        rf'<strong>More:</strong> <a href="{re.escape(PAGE)}"[^>]*>{re.escape(PAGE)}</a>', answer
    )
    # Everything else, one click away: the message as torch printed it, every common cause.
    assert f"<pre>{html.escape(MESSAGE, quote=True)}</pre>" in answer
    assert "<details><summary>Every common cause, why torch raises it" in answer


def test_a_script_run_with_percent_run_gets_the_answer(kernel):
    execute(kernel, "%load_ext autograd_errors")
    outputs = execute(kernel, "%run train.py")
    assert [o["type"] for o in outputs] == ["error", "display_data"]
    answer = answer_html(outputs)
    assert re.search(r"<strong>Your line:</strong> <code>[^<]*train\.py\D+4</code>", answer)
    assert "<code>w.add_(1)</code>" in answer


def test_the_answer_speaks_the_language_asked_for(kernel):
    execute(kernel, "import torch\n%load_ext autograd_errors")
    try:
        assert execute(kernel, "%autograd_errors --lang zh") == []
        outputs = execute(kernel, FAILING_CELL)
        answer = answer_html(outputs)
        assert ZH_TITLE in answer
        assert "/zh_CN/errors/inplace/leaf-inplace.html" in answer
        text = html.unescape(re.sub(r"<[^>]+>", "\n", re.sub(r"<(code|pre)\b.*?</\1>", "", answer)))
        assert english_left(text, messages=(MESSAGE,)) == []
        plain = outputs[1]["data"]["text/plain"]
        assert plain.startswith(f"autograd-errors: {ZH_TITLE}")
        assert english_left(plain, messages=(MESSAGE,)) == []
        wrong = execute(kernel, "%autograd_errors --lang fr")
        assert [o["text"] for o in wrong if o["type"] == "stream"] == [
            "%autograd_errors: --lang must be en or zh, not 'fr'\n"
        ]
    finally:
        execute(kernel, "%autograd_errors --lang en")


def test_an_unrelated_error_gets_nothing_and_unload_removes_it(kernel):
    execute(kernel, "import torch\n%load_ext autograd_errors")
    assert [o["type"] for o in execute(kernel, UNRELATED_CELL)] == ["error"]
    execute(kernel, "%unload_ext autograd_errors")
    outputs = execute(kernel, FAILING_CELL)
    assert [o["type"] for o in outputs] == ["error"]
    assert outputs[0]["ename"] == "RuntimeError"
    assert [o["type"] for o in execute(kernel, "%run train.py")] == ["error"]


def test_a_chinese_locale_gives_chinese_in_a_kernel(cli_env, workdir):
    with jupyter_kernel({**cli_env, "LANG": "zh_CN.UTF-8", "LC_ALL": ""}, workdir) as client:
        execute(client, "import torch\n%load_ext autograd_errors")
        assert ZH_TITLE in answer_html(execute(client, FAILING_CELL))


def test_a_terminal_ipython_gets_the_answer_in_text(cli_env, tmp_path):
    session = "\n".join(
        [
            "import torch",
            "%load_ext autograd_errors",
            FAILING_CELL.replace("\n", "; "),
            "%unload_ext autograd_errors",
            "y = torch.randn(2, requires_grad=True); y += 1",
            "exit",
        ]
    )
    printed = terminal_ipython(session, tmp_path, cli_env, tmp_path)
    assert printed.count("RuntimeError: a leaf Variable that requires grad is being used") == 2
    assert printed.count("autograd-errors: In-place change to a leaf tensor") == 1
    answer_at = printed.index("autograd-errors: In-place change")
    assert printed.index("RuntimeError: a leaf Variable") < answer_at
    assert "/errors/inplace/leaf-inplace.html" in printed[answer_at:]


def test_percent_run_in_a_terminal_ipython_gets_the_answer(cli_env, tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT, encoding="utf-8")
    session = "%load_ext autograd_errors\n%run train.py\nexit\n"
    printed = terminal_ipython(session, tmp_path, cli_env, tmp_path)
    assert printed.count("autograd-errors: In-place change to a leaf tensor") == 1
    answer = printed[printed.index("autograd-errors: In-place change") :]
    assert printed.index(MESSAGE) < printed.index("autograd-errors:")
    assert re.search(r"Your line: .*train\.py\D+4\n +w\.add_\(1\)", answer)


def test_a_custom_exception_handler_set_before_keeps_running(cli_env, tmp_path):
    """H22: the user's handler runs, and the answer follows; unloading leaves the handler."""
    session = "\n".join(
        [
            "def mine(self, etype, value, tb, tb_offset=None):",
            "    print('MY HANDLER SAW', etype.__name__)",
            "",
            "get_ipython().set_custom_exc((RuntimeError,), mine)",
            "import torch",
            "%load_ext autograd_errors",
            FAILING_CELL.replace("\n", "; "),
            "%unload_ext autograd_errors",
            "y = torch.randn(2, requires_grad=True); y += 1",
            "exit",
        ]
    )
    printed = terminal_ipython(session, tmp_path, cli_env, tmp_path)
    assert printed.count("MY HANDLER SAW RuntimeError") == 2
    assert printed.count("autograd-errors: In-place change to a leaf tensor") == 1
    assert printed.index("MY HANDLER SAW") < printed.index("autograd-errors:")


def test_a_chinese_locale_gives_chinese_in_a_terminal_ipython(cli_env, tmp_path):
    session = (
        f"import torch\n%load_ext autograd_errors\n{FAILING_CELL.replace(chr(10), '; ')}\nexit\n"
    )
    env = {**cli_env, "LC_ALL": "zh_CN.UTF-8"}
    printed = terminal_ipython(session, tmp_path, env, tmp_path)
    answer = printed[printed.index("autograd-errors:") :]
    assert answer.startswith(f"autograd-errors: {ZH_TITLE}")
    assert english_left(answer.split("\nIn [")[0], messages=(MESSAGE,)) == []
