"""Properties over generated input: matching never raises, always ends, and grows linearly."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_matcher_js import NODE_RUNNER, python_result

from autograd_errors import catalog, export, fuzzy, not_autograd
from autograd_errors.matching import explain
from autograd_errors.normalize import decode

CATALOG = catalog.load(use_cache=False)
# Pieces of real wordings make generated text get far into the templates before failing:
# the costly case for a matcher.
FRAGMENTS = sorted(
    {
        piece
        for entry in CATALOG
        for wording in entry.wordings
        for piece in wording.message.replace("{", " {").replace("}", "} ").split(" ")
        if piece
    }
)
# The partial matcher's paths: words in lower case, typos, backticks, frames, non-autograd errors.
WORDS = sorted({word for fragment in FRAGMENTS for word in fuzzy.words(fragment)})
NOT_AUTOGRAD = [phrase for kind in not_autograd.KINDS for phrase in kind.phrases]
HOSTILE = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.sampled_from(FRAGMENTS).map(str.lower),
    st.sampled_from(WORDS).map(lambda word: word[1:] + word[:1]),
    st.sampled_from(WORDS).map(lambda word: f"`{word}`"),
    st.sampled_from(NOT_AUTOGRAD),
    st.just('\n  File "/x/train.py", line 3, in <module>\n    loss.backward()\n'),
    st.sampled_from(
        [
            "\n",
            " ",
            "> ",
            ">>> ",
            "\x1b[31m",
            "\x1b]",
            "\r",
            "...",
            "[",
            "]",
            "[64, ",
            "torch.cuda.",
            "Backward0",
            "'",
            "{",
            "}",
            "\u2026",
            "E   ",
        ]
    ),
    st.text(max_size=8),
)
PASTES = st.lists(HOSTILE, max_size=60).map(" ".join)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(PASTES)
def test_matching_never_raises_and_results_are_consistent(paste):
    explanation = explain(paste, CATALOG)
    ids = [m.entry.id for m in explanation.matches]
    assert len(ids) == len(set(ids))
    for match in explanation.matches:
        assert 0 < match.score <= 1
        assert match.message  # renders
        match.details()
    assert not (explanation.matches and explanation.near_misses)
    assert not (explanation.matches and explanation.not_autograd)
    assert [m.kind for m in explanation.matches] == sorted(
        (m.kind for m in explanation.matches), key=lambda kind: kind != "exact"
    )


@pytest.fixture(scope="module")
def node_matcher(tmp_path_factory):
    """One Node process running the browser's matcher, answering one paste per line."""
    node = shutil.which("node")
    assert node, "Node.js is needed to test the browser matcher (apt-get install nodejs)"
    catalog_file = tmp_path_factory.mktemp("js") / "catalog.json"
    catalog_file.write_text(json.dumps(export.catalog_json(CATALOG)))
    process = subprocess.Popen(
        [node, str(NODE_RUNNER), str(catalog_file), "--stream"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
    )

    def run(text: str) -> dict:
        assert process.stdin
        assert process.stdout
        process.stdin.write(json.dumps(text) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield run
    assert process.stdin
    process.stdin.close()
    process.wait(timeout=30)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(PASTES)
def test_both_matchers_agree_on_generated_pastes(node_matcher, paste):
    assert node_matcher(paste) == python_result(paste)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_both_matchers_agree_on_generated_unicode(node_matcher, text):
    assert node_matcher(text) == python_result(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_decode_and_match(data):
    explain(decode(data), CATALOG)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=500))
def test_any_unicode_matches_without_error(text):
    explain(text, CATALOG)


def work_done(text: str) -> int:
    """Function calls made to explain ``text``: a machine-independent measure of time."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        explain(text, CATALOG)
    finally:
        sys.setprofile(None)
    return calls


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(HOSTILE, min_size=1, max_size=12).map(" ".join))
def test_work_grows_linearly_with_the_paste(unit):
    small, large = work_done(unit * 25), work_done(unit * 100)
    # Four times the text may cost at most four times the work (plus a fixed overhead, which
    # only helps): a quadratic matcher would cost sixteen times.
    assert large <= 4 * small + 2_000, (small, large)
