"""The Python API of the package itself: ``explain`` on text or on an exception."""

from __future__ import annotations

import re

import pytest
from helpers import load_data

import autograd_errors


def _caught(code: str) -> BaseException:
    import torch

    namespace = {"torch": torch}
    with pytest.raises(Exception) as caught:  # noqa: PT011 - whichever torch raises
        exec(code, namespace)
    return caught.value


def test_explain_an_exception_object():
    error = _caught("x = torch.ones(2, requires_grad=True)\nx += 1")
    assert [m.entry.id for m in autograd_errors.explain(error).matches] == ["leaf-inplace"]


def test_explain_an_exception_reads_its_traceback_too():
    """anomaly mode's context is in the message; the chained exception in the traceback."""
    error = _caught(
        "try:\n"
        "    x = torch.ones(2, requires_grad=True)\n"
        "    x += 1\n"
        "except RuntimeError as inner:\n"
        "    raise ValueError('the training step failed') from inner\n"
    )
    assert isinstance(error, ValueError)
    assert [m.entry.id for m in autograd_errors.explain(error).matches] == ["leaf-inplace"]


def test_an_unrelated_exception_explains_nothing():
    assert autograd_errors.explain(KeyError("lr")).matches == []


# The result object: repr, str and the notebook's HTML -----------------------------------------


def _pasted(source: str) -> str:
    """A real paste from tests/data/real-pastes.json, by the thread it comes from."""
    return next(p["text"] for p in load_data("real-pastes.json")["pastes"] if p["source"] == source)


TRACEBACK_PASTE = "https://github.com/ypxie/pytorch-NeuCom/issues/1"  # leaf-inplace, train.py:155
PARTIAL_PASTE = "https://github.com/NVlabs/FUNIT/issues/23"  # inplace-modified, cut short
OOM_PASTE = next(
    e["text"] for e in load_data("not-autograd.json")["errors"] if "memory" in e["text"]
)


def test_repr_names_the_entries_and_how_they_matched():
    assert repr(autograd_errors.explain(_pasted(TRACEBACK_PASTE))) == (
        "<Explanation: leaf-inplace (exact)>"
    )
    partial = autograd_errors.explain(_pasted(PARTIAL_PASTE))
    assert [m.kind for m in partial.matches] == ["partial"]
    assert re.fullmatch(r"<Explanation: inplace-modified \(partial, [1-9]\d?%\)>", repr(partial))
    assert repr(autograd_errors.explain(OOM_PASTE)) == (
        "<Explanation: not an autograd error (cuda-out-of-memory)>"
    )
    assert repr(autograd_errors.explain(KeyError("lr"))) == "<Explanation: no match>"


def test_repr_of_a_near_miss_is_no_match():
    near = autograd_errors.explain(
        "gradient require doesn't that tensor a on hook a register cannot"
    )
    assert near.matches == []
    assert [miss.entry.id for miss in near.near_misses][:1] == ["hook-no-grad"]
    assert repr(near).startswith("<Explanation: no match; near: hook-no-grad")


def _cli_default_output(cli, paste: str) -> str:
    """What ``explain`` prints on 80 columns, without its last line pointing at --verbose."""
    result = cli("explain", paste, env={"COLUMNS": "80"})
    lines = result.stdout.decode().rstrip("\n").splitlines()
    if lines[-1].strip().startswith("--verbose gives"):
        lines.pop()
    return "\n".join(lines)


@pytest.mark.parametrize("source", [TRACEBACK_PASTE, PARTIAL_PASTE])
def test_str_is_the_cli_short_text(cli, source):
    paste = _pasted(source)
    shown = str(autograd_errors.explain(paste))
    assert shown == _cli_default_output(cli, paste)
    assert "\x1b[" not in shown
    for line in shown.splitlines():
        assert len(line) <= 78 or line.strip().startswith("More: https://")


def test_str_points_at_the_users_own_line():
    shown = str(autograd_errors.explain(_pasted(TRACEBACK_PASTE)))
    assert shown.splitlines()[0] == (
        "In-place change to a leaf tensor that requires grad  (leaf-inplace)"
    )
    assert "Your line: train.py:155" in shown


def test_str_of_no_match_is_what_the_cli_prints(cli):
    assert str(autograd_errors.explain(OOM_PASTE)) == _cli_default_output(cli, OOM_PASTE)
    assert str(autograd_errors.explain(OOM_PASTE)).startswith(
        "Not an autograd error (cuda-out-of-memory)"
    )


def test_repr_html_is_what_the_ipython_extension_shows():
    from autograd_errors.ipython import CellAnswer

    error = _caught("x = torch.ones(2, requires_grad=True)\nx += 1")
    answer = autograd_errors.explain(error)
    html = answer._repr_html_()
    assert html == CellAnswer(answer, "en")._repr_html_()
    assert "In-place change to a leaf tensor that requires grad" in html
    assert (
        'href="https://autograd-errors.readthedocs.io/en/latest/errors/inplace/leaf-inplace.html"'
        in html
    )
    assert "<details><summary>Every common cause, why torch raises it" in html


def test_repr_html_of_no_match_says_so():
    html = autograd_errors.explain(KeyError("lr"))._repr_html_()
    assert html.startswith('<div class="autograd-errors"><div>No entry matches this text.')
    html = autograd_errors.explain(OOM_PASTE)._repr_html_()
    assert "Not an autograd error (cuda-out-of-memory)" in html
