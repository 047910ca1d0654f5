"""``autograd_errors.install()``: the answer after the traceback, in real subprocesses."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

TRIGGERS = {
    "leaf-inplace": """
        x = torch.randn(3, requires_grad=True)
        x += 1
    """,
    "backward-twice": """
        x = torch.randn(3, requires_grad=True)
        y = (x.exp() * 2).sum()
        y.backward()
        y.backward()
    """,
    "inplace-modified": """
        x = torch.randn(3, requires_grad=True)
        y = torch.sigmoid(x)
        y.mul_(2)
        y.sum().backward()
    """,
    None: """
        raise ValueError("the config file has no section 'model'")
    """,
}


def run(code: str, cli_env: dict[str, str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**cli_env, **env},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("entry_id", list(TRIGGERS))
def test_the_traceback_is_unchanged_and_the_answer_follows(cli_env, entry_id):
    body = textwrap.dedent(TRIGGERS[entry_id])
    plain = run("import torch" + body, cli_env)
    # On the same line, so that both programs' tracebacks name the same line numbers.
    hooked = run("import torch; import autograd_errors; autograd_errors.install()" + body, cli_env)
    assert plain.returncode == hooked.returncode == 1
    assert plain.stderr.startswith("Traceback (most recent call last):")
    assert hooked.stderr.startswith(plain.stderr)
    added = hooked.stderr[len(plain.stderr) :]
    if entry_id is None:
        assert added == ""
    else:
        title, *rest = added.splitlines()
        assert title == ""
        assert rest[0].startswith("autograd-errors: ")
        assert f"({entry_id})" in "\n".join(rest[:3])  # after the title, which may wrap
        assert rest[-1].endswith(f"/{entry_id}.html")


def _renumbered(stderr: str, by: int) -> str:
    """Shift the ``File "<string>", line N`` numbers of a traceback."""
    import re

    return re.sub(
        r'File "<string>", line (\d+)', lambda m: f'File "<string>", line {int(m[1]) + by}', stderr
    )


@pytest.mark.parametrize(
    "imports",
    [
        "import threading, torch, autograd_errors; autograd_errors.install()",
        "import autograd_errors; autograd_errors.install(); import threading, torch",
    ],
)
def test_an_error_in_a_thread_is_explained_too(cli_env, imports):
    result = run(
        imports
        + textwrap.dedent(
            """
        def work():
            x = torch.randn(3, requires_grad=True)
            x += 1
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        print("main thread goes on")
        """
        ),
        cli_env,
    )
    assert result.returncode == 0
    assert result.stdout == "main thread goes on\n"
    assert "Exception in thread" in result.stderr
    assert "(leaf-inplace)" in result.stderr


def test_a_broken_matcher_still_leaves_the_original_traceback(cli_env):
    body = "import torch\nx = torch.randn(3, requires_grad=True)\nx += 1\n"
    broken = (
        "import autograd_errors, autograd_errors.matcher.matching as matching\n"
        "def broken(*args, **kwargs):\n"
        "    raise RuntimeError('the matcher broke')\n"
        "matching.find_entries = broken\n"
        "autograd_errors.install()\n"
    )
    plain = run(body, cli_env)
    hooked = run(broken + body, cli_env)
    assert hooked.returncode == 1
    assert hooked.stderr == _renumbered(plain.stderr, 5)


def test_no_color_is_respected_and_pipes_get_no_colour(cli_env):
    code = "import torch, autograd_errors\nautograd_errors.install()\n" + textwrap.dedent(
        TRIGGERS["leaf-inplace"]
    )
    for env in ({}, {"NO_COLOR": "1"}):
        assert "\x1b[" not in run(code, cli_env, **env).stderr


def test_uninstall_restores_the_hooks(cli_env):
    result = run(
        """
        import sys, threading, warnings, autograd_errors
        before = (sys.excepthook, threading.excepthook, warnings.showwarning)
        autograd_errors.install(warnings=True)
        assert sys.excepthook is not before[0]
        autograd_errors.install(warnings=True)
        autograd_errors.uninstall()
        assert (sys.excepthook, threading.excepthook, warnings.showwarning) == before
        print("restored")
        """,
        cli_env,
    )
    assert result.stdout == "restored\n", result.stderr


def test_uninstall_leaves_a_hook_installed_after_ours(cli_env):
    """H5 (F16): ``uninstall()`` put back the hook it had saved whatever had happened since,
    so a hook installed after ours (rich's, here a plain one doing what rich does) was
    dropped. It stays; and one that chains over ours still reaches the hook ours chained
    to (``later``, by then), with no answer from ours any more."""
    result = run(
        """
        import sys, autograd_errors
        def before(kind, error, traceback):
            print("BEFORE", kind.__name__)
        sys.excepthook = before
        autograd_errors.install()
        def later(kind, error, traceback):
            print("LATER", kind.__name__)
        sys.excepthook = later
        autograd_errors.uninstall()
        print("kept:", sys.excepthook is later)
        autograd_errors.install()
        ours = sys.excepthook
        def chained(kind, error, traceback):
            print("CHAINED", kind.__name__)
            ours(kind, error, traceback)
        sys.excepthook = chained
        autograd_errors.uninstall()
        print("chained kept:", sys.excepthook is chained)
        import torch
        x = torch.randn(3, requires_grad=True)
        x += 1
        """,
        cli_env,
    )
    assert result.returncode == 1
    assert result.stdout == (
        "kept: True\nchained kept: True\nCHAINED RuntimeError\nLATER RuntimeError\n"
    )
    assert "autograd-errors" not in result.stderr


def test_known_warnings_get_a_pointer_once_per_call_site(cli_env):
    result = run(
        """
        import torch, autograd_errors
        autograd_errors.install(warnings=True)
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        for _ in range(3):
            y.grad
        y.grad
        import warnings
        warnings.warn("an unrelated warning")
        """,
        cli_env,
    )
    assert result.returncode == 0
    pointers = [line for line in result.stderr.splitlines() if line.startswith("autograd-errors")]
    assert len(pointers) == 2  # the loop's line, then the line after it
    assert all(line.endswith("/errors/leaves/nonleaf-grad.html") for line in pointers)
    assert "an unrelated warning" in result.stderr


def test_importing_and_installing_cost_little(cli_env):
    """What install() imports: the hooks and what restores them, nothing of the matcher, the
    catalog or torch."""
    result = run(
        """
        import sys, autograd_errors
        autograd_errors.install(warnings=True)
        loaded = sorted(m for m in sys.modules if m.startswith("autograd_errors"))
        print(loaded, "torch" in sys.modules)
        """,
        cli_env,
    )
    assert result.stdout == (
        "['autograd_errors', 'autograd_errors.hooks', 'autograd_errors.interpreter', "
        "'autograd_errors.interpreter.patches'] False\n"
    )


ZH_TITLE = "需要梯度的叶子张量被原地修改"
LEAF = "import torch\nx = torch.randn(3, requires_grad=True)\nx += 1\n"


def chinese_answer(stderr: str) -> str:
    return stderr[stderr.index("autograd-errors:") :]


@pytest.mark.parametrize(
    ("install", "env"),
    [
        ("autograd_errors.install(lang='zh')", {"LC_ALL": "en_US.UTF-8"}),
        ("autograd_errors.install()", {"LC_ALL": "zh_CN.UTF-8"}),
        ("autograd_errors.install()", {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}),
    ],
)
def test_the_answer_speaks_the_language_of_install_or_of_the_locale(cli_env, install, env):
    from helpers import english_left

    result = run(f"import autograd_errors; {install}\n" + LEAF, cli_env, **env)
    answer = chinese_answer(result.stderr)
    assert answer.startswith(f"autograd-errors: {ZH_TITLE}")
    assert answer.rstrip().endswith("/zh_CN/errors/inplace/leaf-inplace.html")
    assert english_left(answer) == []


def test_install_in_english_overrides_a_chinese_locale(cli_env):
    install = "import autograd_errors; autograd_errors.install(lang='en')\n"
    result = run(install + LEAF, cli_env, LC_ALL="zh_CN.UTF-8")
    assert "autograd-errors: In-place change to a leaf tensor" in result.stderr


def test_install_refuses_a_language_the_reference_lacks(cli_env):
    result = run("import autograd_errors; autograd_errors.install(lang='fr')", cli_env)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == "ValueError: lang must be 'en' or 'zh', not 'fr'"


def test_a_warnings_pointer_speaks_chinese_too(cli_env):
    result = run(
        """
        import torch, autograd_errors
        autograd_errors.install(warnings=True, lang="zh")
        y = torch.ones(2, requires_grad=True) * 2
        y.grad
        """,
        cli_env,
    )
    (pointer,) = [line for line in result.stderr.splitlines() if line.startswith("autograd-errors")]
    assert pointer.endswith("/zh_CN/errors/leaves/nonleaf-grad.html")
    assert not pointer.split(": ")[1].isascii()  # the entry's Chinese title
