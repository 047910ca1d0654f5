"""The catalog's records: their rules, and the cache that keeps ``explain`` fast."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograd_errors import catalog
from autograd_errors.catalog import CatalogError, load

# The nine entries of issue #2; later issues add more, never remove these ids.
FIRST_ENTRIES = {
    "leaf-inplace",
    "backward-twice",
    "parameter-assign",
    "mat2-not-matrix",
    "data-not-tensor",
    "inplace-modified",
    "nonleaf-grad",
    "anomaly-nan",
    "no-grad-fn",
}

RECORD = """
title = "A title"
exception = "RuntimeError"
section = "graph"
cause = "Why."
fix = "How."

[[wording]]
variant = "current"
message = "some message with {index} inside"
source = "https://example.org/thread"
"""


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_packaged_catalog_has_the_notes_entries(packaged_catalog):
    assert set(packaged_catalog.ids) >= FIRST_ENTRIES


def test_entry_pages_live_under_errors_by_section(packaged_catalog):
    entry = packaged_catalog["leaf-inplace"]
    assert entry.path == f"errors/{entry.section}/leaf-inplace.html"


def test_every_wording_cites_a_source(packaged_catalog):
    for entry in packaged_catalog:
        for wording in entry.wordings:
            assert wording.source.startswith("https://github.com/"), (entry.id, wording.variant)


def test_every_entry_has_a_current_wording_of_its_own_type(packaged_catalog):
    for entry in packaged_catalog:
        if entry.retired is None and not entry.is_pitfall:
            assert entry.current.releases.current
            assert entry.current.exception == entry.exception


def test_a_minimal_record_loads(tmp_path):
    write(tmp_path, "some-entry", RECORD)
    (entry,) = load(str(tmp_path), use_cache=False)
    assert entry.id == "some-entry"
    assert entry.current.variant == "current"


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("Bad_Id", RECORD, "lower-case words joined by hyphens"),
        ("x", RECORD.replace('title = "A title"', 'titel = "A title"'), "unknown key 'titel'"),
        ("x", RECORD.replace('fix = "How."', ""), "missing fix"),
        ("x", RECORD.replace('"RuntimeError"', '"runtime error"'), "not an exception class"),
        ("x", RECORD.replace('"RuntimeError"', "3"), "exception must be a str"),
        ("x", RECORD + RECORD[RECORD.index("[[wording]]") :], "variants must be unique"),
        ("x", RECORD.replace("{index}", "{mystery}"), "unknown placeholder kind"),
        (
            "x",
            RECORD.replace('variant = "current"', 'variant = "old"\nuntil = "1.0.0"'),
            "no current RuntimeError wording",
        ),
        (
            "x",
            RECORD.replace('variant = "current"', 'variant = "c"\nsince = "2.0"\nuntil = "1.0"'),
            "ends before it starts",
        ),
        (
            "x",
            RECORD.replace('variant = "current"', 'variant = "c"\nsince = "soon"'),
            "not a torch release",
        ),
        (
            "x",
            RECORD + '[retired]\nlast_release = "1.0.0"\nreplaced_by = "x"\n',
            "retired entry cannot have a current wording",
        ),
        ("x", "title = [", "x.toml"),
    ],
)
def test_broken_records_are_refused_with_file_and_reason(tmp_path, name, text, problem):
    write(tmp_path, name, text)
    with pytest.raises(CatalogError, match=problem):
        load(str(tmp_path), use_cache=False)


def test_related_must_name_real_entries(tmp_path):
    write(tmp_path, "one", RECORD.replace('fix = "How."', 'fix = "How."\nrelated = ["two"]'))
    with pytest.raises(CatalogError, match=r"one\.toml: related: no entry 'two'"):
        load(str(tmp_path), use_cache=False)
    write(tmp_path, "two", RECORD)
    assert load(str(tmp_path), use_cache=False)["one"].related == ("two",)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(directory))
    return directory


def test_the_cache_is_written_then_used(tmp_path, cache_dir, monkeypatch):
    write(tmp_path / "entries", "some-entry", RECORD)
    load(str(tmp_path / "entries"))
    (cached,) = cache_dir.iterdir()

    def refuse(*args, **kwargs):
        raise AssertionError("TOML parsed although the cache is valid")

    monkeypatch.setattr(catalog, "_parse_toml", refuse)
    assert load(str(tmp_path / "entries"))["some-entry"].title == "A title"
    assert list(cache_dir.iterdir()) == [cached]


def test_an_edited_record_is_not_served_from_the_cache(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    load(str(entries))
    write(entries, "some-entry", RECORD.replace("A title", "A new title"))
    assert load(str(entries))["some-entry"].title == "A new title"


def test_a_corrupt_cache_file_is_ignored(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    load(str(entries))
    (cached,) = cache_dir.iterdir()
    cached.write_bytes(b"\x00garbage")
    assert load(str(entries))["some-entry"].title == "A title"


def test_an_unwritable_cache_only_costs_speed(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(blocker / "cache"))
    write(tmp_path / "entries", "some-entry", RECORD)
    assert load(str(tmp_path / "entries"))["some-entry"].title == "A title"


def test_an_empty_cache_setting_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "entries", "some-entry", RECORD)
    load(str(tmp_path / "entries"))
    assert sorted(os.listdir(tmp_path)) == ["entries"]


def test_broken_records_are_never_cached(tmp_path, cache_dir):
    write(tmp_path, "x", RECORD.replace("{index}", "{mystery}"))
    with pytest.raises(CatalogError):
        load(str(tmp_path))
    assert not cache_dir.exists()
