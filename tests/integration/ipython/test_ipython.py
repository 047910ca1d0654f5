"""``%load_ext autograd_errors`` in a real Jupyter kernel and a real terminal IPython."""

from __future__ import annotations

import pytest
from helpers import execute, jupyter_kernel, terminal_ipython

FAILING_CELL = "x = torch.randn(3, requires_grad=True)\nx += 1"
UNRELATED_CELL = "{}['missing']"


@pytest.fixture(scope="module")
def kernel(cli_env, tmp_path_factory):
    with jupyter_kernel(cli_env, tmp_path_factory.mktemp("kernel")) as client:
        yield client


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
    html = outputs[1]["data"]["text/html"]
    assert "In-place change to a leaf tensor that requires grad" in html
    assert (
        'href="https://autograd-errors.readthedocs.io/en/latest/errors/inplace/leaf-inplace.html"'
        in html
    )
    assert "<details><summary>More</summary>" in html
    assert outputs[1]["data"]["text/plain"].startswith("autograd-errors: In-place change")


def test_an_unrelated_error_gets_nothing_and_unload_removes_it(kernel):
    execute(kernel, "import torch\n%load_ext autograd_errors")
    assert [o["type"] for o in execute(kernel, UNRELATED_CELL)] == ["error"]
    execute(kernel, "%unload_ext autograd_errors")
    outputs = execute(kernel, FAILING_CELL)
    assert [o["type"] for o in outputs] == ["error"]
    assert outputs[0]["ename"] == "RuntimeError"


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
