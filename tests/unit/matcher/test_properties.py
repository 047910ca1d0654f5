"""Properties over generated input: matching never raises, always ends, and grows linearly."""

from __future__ import annotations

import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pastes import HOSTILE, PASTES

from autograd_errors import catalog
from autograd_errors.matcher import fuzzy
from autograd_errors.matcher.matching import find_entries
from autograd_errors.messages.normalize import decode

CATALOG = catalog.load(use_cache=False)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(PASTES)
def test_matching_never_raises_and_results_are_consistent(paste):
    explanation = find_entries(paste, CATALOG)
    ids = [m.entry.id for m in explanation.matches]
    assert len(ids) == len(set(ids))
    for match in explanation.matches:
        # A pitfall found by its symptom has no wording's share to score (matching.py: 0.0).
        assert 0 < match.score <= 1 if match.kind != "symptom" else match.score == 0
        assert match.message  # renders
        match.details()
    assert not (explanation.matches and explanation.near_misses)
    assert not (explanation.matches and explanation.not_autograd)
    assert [m.kind for m in explanation.matches] == sorted(
        (m.kind for m in explanation.matches), key=lambda kind: kind != "exact"
    )


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_decode_and_match(data):
    find_entries(decode(data), CATALOG)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=500))
def test_any_unicode_matches_without_error(text):
    find_entries(text, CATALOG)


def work_done(text: str) -> int:
    """Function calls made to explain ``text``: a machine-independent measure of time."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        find_entries(text, CATALOG)
    finally:
        sys.setprofile(None)
    return calls


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(HOSTILE, min_size=1, max_size=12).map(" ".join))
def test_work_grows_linearly_with_the_paste(unit):
    # The fuzzy index is the catalog's, built once per process: not the paste's work.
    fuzzy.index_of(CATALOG)
    # One repetition per line: a unit that ends mid-word would glue into the next one's first
    # word ("Number" + "expected"), and the longer paste, cut to its last MAX_WORDS words,
    # would then hold no intact copy of a phrase the shorter one starts with: another answer,
    # another path, not a measure of growth.
    small, large = work_done("\n".join([unit] * 25)), work_done("\n".join([unit] * 100))
    # Four times the text may cost at most four times the work (plus a fixed overhead, which
    # only helps): a quadratic matcher would cost sixteen times.
    assert large <= 4 * small + 2_000, (small, large)
