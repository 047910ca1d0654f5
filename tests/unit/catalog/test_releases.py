from __future__ import annotations

import pytest

from autograd_errors.catalog import releases
from autograd_errors.catalog.releases import ReleaseRange, parse_release


@pytest.fixture(autouse=True)
def _no_cached_releases(monkeypatch):
    """Parse afresh: the cache would hide the parser from each test (and from mutation tests)."""
    monkeypatch.setattr(releases, "_PARSED", {})


@pytest.mark.parametrize(
    ("text", "release"),
    [
        ("2.1.2", (2, 1, 2)),
        ("1.13", (1, 13, 0)),
        ("2.13.0+cpu", (2, 13, 0)),
        ("2.5.0a0+git1234", (2, 5, 0)),
        (" 0.4.1 ", (0, 4, 1)),
        ("2.14.0.dev20251201+cpu", (2, 14, 0)),
        ("10.0", (10, 0, 0)),
    ],
)
def test_parse_release(text, release):
    assert parse_release(text) == release


@pytest.mark.parametrize("text", ["", "two", "2", "v2.1"])
def test_parse_release_refuses_non_releases(text):
    with pytest.raises(ValueError, match="not a torch release"):
        parse_release(text)


def test_range_membership_and_wording():
    span = ReleaseRange("1.10.0", "2.1.2")
    assert "1.13.1" in span
    assert "2.1.2" in span
    assert "1.10.0" in span
    assert "1.9.1" not in span
    assert "2.2.0" not in span
    assert span.describe() == "torch 1.10.0 to 2.1.2"
    assert ReleaseRange("1.5.0", None).describe() == "torch 1.5.0 and later"
    assert ReleaseRange(None, "0.3.1").describe() == "torch releases up to 0.3.1"
    assert ReleaseRange(None, None).describe() == "every torch release"
    assert "0.1.0" in ReleaseRange(None, "0.3.1")


def test_a_range_cannot_end_before_it_starts():
    with pytest.raises(ValueError, match="ends before it starts"):
        ReleaseRange("2.0.0", "1.13.1")


@pytest.mark.parametrize(
    ("first", "second", "overlap"),
    [
        (("1.1.0", "2.10.0"), ("2.10.0", None), True),  # they share exactly one release
        (("1.1.0", "2.10.0"), ("2.11.0", None), False),
        ((None, "1.4.0"), ("1.4.0", "1.4.0"), True),
        ((None, None), ("2.0.0", "2.0.0"), True),
        (("2.0.0", "2.1.0"), (None, "1.13.1"), False),
    ],
)
def test_ranges_overlap_when_they_share_a_release(first, second, overlap):
    assert ReleaseRange(*first).overlaps(ReleaseRange(*second)) is overlap
    assert ReleaseRange(*second).overlaps(ReleaseRange(*first)) is overlap


def test_parsing_is_cached():
    assert parse_release("2.1.2") is parse_release("2.1.2")
