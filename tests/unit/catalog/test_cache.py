"""The catalog cache against what a user's machine holds (issue 22, the fault report's C7 to
C10): a umask of 002, a FIFO or an oversized file at the cache's path, two Pythons sharing
the directory. Each costs at most one parse of the TOML, never a hang or an error."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from autograd_errors.catalog import cache

CHECKSUM = "0123abcd-10-1"
DATA = {"anchors": {"some-entry": ["main"]}}
BLOBS = {"some-entry": b"a marshalled record", "other-entry": b"another"}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(directory))
    return directory


def read_within(path: str, seconds: float) -> object:
    """``cache.read(path)``, which must return within ``seconds`` (a FIFO blocked it)."""
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(cache.read(path, CHECKSUM)), daemon=True)
    reader.start()
    reader.join(seconds)
    assert not reader.is_alive(), "cache.read blocked"
    return found[0]


def test_with_umask_002_the_cache_is_written_0600_and_used(cache_dir):
    path = cache.cache_file(CHECKSUM)
    assert path is not None
    previous = os.umask(0o002)
    try:
        cache.write(path, CHECKSUM, DATA, BLOBS)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    found = cache.read(path, CHECKSUM)
    assert found is not None
    data, blobs = found
    assert data == {"checksum": CHECKSUM, **DATA}
    assert {name: bytes(blobs[name]) for name in blobs} == BLOBS


def test_a_damaged_blob_is_refused_and_the_others_served(cache_dir):
    """A cold start checks only the blobs it takes: a flipped byte in one is found when it is
    taken, and the others are still served."""
    path = cache.cache_file(CHECKSUM)
    assert path is not None
    cache.write(path, CHECKSUM, DATA, BLOBS)
    with open(path, "r+b") as handle:
        contents = handle.read()
        at = contents.rindex(b"another")
        handle.seek(at)
        handle.write(b"A")
    found = cache.read(path, CHECKSUM)
    assert found is not None
    _, blobs = found
    assert bytes(blobs["some-entry"]) == BLOBS["some-entry"]
    with pytest.raises(ValueError, match="other-entry"):
        blobs["other-entry"]


def test_a_truncated_cache_file_is_not_read(cache_dir):
    path = cache.cache_file(CHECKSUM)
    assert path is not None
    cache.write(path, CHECKSUM, DATA, BLOBS)
    with open(path, "r+b") as handle:
        handle.truncate(os.path.getsize(path) - 1)
    assert cache.read(path, CHECKSUM) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_the_cache_path_is_skipped_without_blocking(cache_dir):
    path = cache.cache_file(CHECKSUM)
    assert path is not None
    cache_dir.mkdir(mode=0o700)
    os.mkfifo(path, 0o600)
    assert read_within(path, 10) is None


def test_an_oversized_file_at_the_cache_path_is_not_read(cache_dir):
    path = cache.cache_file(CHECKSUM)
    assert path is not None
    cache.write(path, CHECKSUM, DATA, BLOBS)
    with open(path, "r+b") as handle:  # a valid cache's start, then a sparse 3 GB
        handle.truncate(3 * 1024**3)
    assert read_within(path, 10) is None


def test_two_pythons_sharing_the_directory_keep_each_its_cache(cache_dir, monkeypatch):
    ours = cache.cache_file(CHECKSUM)
    assert ours is not None
    cache_dir.mkdir(mode=0o700)
    theirs = cache_dir / os.path.basename(ours).replace(
        cache._PREFIX, "catalog-cpython-399-"
    )  # another interpreter's file, as it names it
    theirs.write_bytes(b"another Python's cache")
    earlier = cache.cache_file("fedcba98-10-1")
    assert earlier is not None
    cache.write(earlier, "fedcba98-10-1", DATA, BLOBS)
    cache.write(ours, CHECKSUM, DATA, BLOBS)
    assert sorted(os.listdir(cache_dir)) == sorted([os.path.basename(ours), theirs.name])


LARGE = {  # a head, one record within the first read, one beyond it
    "near-entry": b"n" * 100,
    "far-entry": bytes(range(256)) * (2 * cache.FIRST_READ // 256),
}


def _read_large() -> tuple[str, cache.Blobs]:
    """A cache of :data:`LARGE` written and its head read: its path, and its blobs."""
    path = cache.cache_file(CHECKSUM)
    assert path is not None
    cache.write(path, CHECKSUM, DATA, LARGE)
    found = cache.read(path, CHECKSUM)
    assert found is not None
    return path, found[1]


def test_a_record_beyond_the_first_read_is_read_when_taken(cache_dir):
    _, blobs = _read_large()
    assert {name: bytes(blobs[name]) for name in blobs} == LARGE


def test_a_cache_file_written_again_after_its_head_was_read_is_not_read_from(cache_dir):
    """The same key written again (another process's first start) may place its records
    elsewhere: a record taken after that is refused (its TOML is read), not read from the
    other file at the first one's offsets."""
    path, blobs = _read_large()
    cache.write(path, CHECKSUM, DATA, {"far-entry": b"x" * (3 * cache.FIRST_READ)})
    assert bytes(blobs["near-entry"]) == LARGE["near-entry"]  # within what was read
    with pytest.raises(ValueError, match="far-entry"):
        blobs["far-entry"]


def test_a_cache_file_removed_after_its_head_was_read_refuses_its_further_records(cache_dir):
    path, blobs = _read_large()
    os.unlink(path)
    with pytest.raises(ValueError, match="far-entry"):
        blobs["far-entry"]
