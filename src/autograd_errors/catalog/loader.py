"""Loading the catalog: every record read, parsed (or taken from :mod:`.cache`) and checked
(:mod:`.schema`).

The entries are ``autograd_errors/entries/<id>.toml``, one record each; the catalog's other
records (:data:`.schema.OTHER_RECORDS`: the kinds of error that are not autograd's, the titles
of PyTorch's documentation pages) are ``autograd_errors/catalog/<name>.toml``. One key covers
them all, and one cache file holds them all: the record files' sizes and modification times
when none was modified in the last seconds (no record is read), else a checksum of their
contents.
"""

from __future__ import annotations

import marshal
import os
import sys

import autograd_errors.catalog.cache as cache
from autograd_errors.catalog.schema import OTHER_RECORDS, CatalogError, build, build_lazily

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from autograd_errors.catalog.model import Catalog

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The packaged entries: one TOML record per entry.
ENTRIES_DIR = os.path.join(_PACKAGE_DIR, "entries")
#: The catalog's other records, beside this module.
RECORDS_DIR = os.path.dirname(os.path.abspath(__file__))
#: The version of what the cache holds: a change of the records' shape in the cache bumps it.
_SCHEMA = 9


def load(directory: str | None = None, *, use_cache: bool = True) -> Catalog:
    """Load and check every record in ``directory`` (the packaged entries by default), and the
    catalog's other records."""
    directory = directory or ENTRIES_DIR
    settled = _settled_signature(directory) if use_cache else None
    if settled is not None:  # the cache's key without reading a record: the common cold start
        stems, checksum = settled
        path = cache.cache_file(checksum)
        catalog = _from_cache(path, checksum, stems, directory) if path else None
        if catalog is not None:
            return catalog
    blobs = _read_records(directory)
    others = [(name, _read(os.path.join(RECORDS_DIR, f"{name}.toml"))) for name in OTHER_RECORDS]
    if settled is None:
        checksum = _checksum(blobs + [(f"/{name}", blob) for name, blob in others])
        path = cache.cache_file(checksum) if use_cache else None
        stems = [stem for stem, _ in blobs]
        catalog = _from_cache(path, checksum, stems, directory) if path else None
        if catalog is not None:
            return catalog
    records = {stem: _parse_toml(stem, blob) for stem, blob in blobs}
    parsed_others = {name: _parse_toml(name, blob) for name, blob in others}
    catalog = build(records, others=parsed_others)  # only records that pass every check are cached
    if path:
        from autograd_errors.messages.templates import anchors as variants  # as the entries do

        anchors = {entry.id: [w.anchor for w in entry.wordings] for entry in catalog}
        # What the exact matcher looks for: each anchor, and it with its capital lowered.
        searched = {
            stem: [found for anchor in of_entry for found in variants(anchor)]
            for stem, of_entry in anchors.items()
        }
        # Each record marshalled on its own: a cold start unmarshals only the entries it uses.
        packed = {stem: marshal.dumps(record) for stem, record in records.items()}
        data = {"anchors": anchors, "searched": searched, "others": parsed_others}
        cache.write(path, checksum, data, packed)
    return catalog


#: A record file modified less than this many seconds ago may be modified again within the
#: file system's timestamp granularity (a few milliseconds on Linux, seconds on some others),
#: keeping its size and its time: the cache is then keyed by the records' contents instead.
_SETTLED_SECONDS = 2.0


def _settled_signature(directory: str) -> tuple[list[str], str] | None:
    """The records' ids and a key of their files' sizes and modification times, as Python
    validates bytecode: reading ~90 files and checksumming them cost half of a cold `explain`.
    None when a record was modified too recently for its time to tell (or cannot be seen):
    then the contents are the key."""
    import time

    stems, parts = [], [f"schema {_SCHEMA} python {sys.version_info[:2]} stat"]
    newest = 0
    try:
        with os.scandir(directory) as found:
            files = sorted(
                (e for e in found if _is_record_name(e.name) and e.is_file()),
                key=lambda e: e.name,
            )
        statuses = [(e.name, e.stat()) for e in files]
        statuses += [
            (f"/{name}", os.stat(os.path.join(RECORDS_DIR, f"{name}.toml")))
            for name in OTHER_RECORDS
        ]
    except OSError:
        return None
    for name, status in statuses:
        if not name.startswith("/"):
            stems.append(name[: -len(".toml")])
        parts.append(f"{name} {status.st_size} {status.st_mtime_ns}")
        newest = max(newest, status.st_mtime_ns)
    if newest > (time.time() - _SETTLED_SECONDS) * 1e9:
        return None
    text = "\n".join(parts).encode()
    return stems, f"s{cache.checksum_of(text):08x}-{len(text):x}-{len(stems)}"


def _from_cache(path: str, checksum: str, stems: list[str], directory: str) -> Catalog | None:
    """The cached catalog, its entries built when first used; None: the cache does not serve."""
    found = cache.read(path, checksum)
    if found is None:
        return None
    data, packed = found
    try:
        anchors, searched, others = data["anchors"], data["searched"], data["others"]
        if list(packed) != stems or sorted(anchors) != sorted(stems) != sorted(searched):
            return None
        return build_lazily(
            lambda stem: marshal.loads(packed[stem]),
            anchors,
            searched,
            others,
            lambda stem: _parse_toml(stem, _read(os.path.join(directory, f"{stem}.toml"))),
        )
    except Exception:  # noqa: BLE001 - whatever is wrong with a cache, the TOML is the truth
        return None


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _read_records(directory: str) -> list[tuple[str, bytes]]:
    """``(id, bytes)`` of every record; hidden files (an editor's ``.#x.toml`` lock, say) and
    anything but a regular file are not records, and must not stop every command."""
    blobs = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not _is_record_name(name) or not os.path.isfile(path):
            continue
        blobs.append((name[: -len(".toml")], _read(path)))
    return blobs


def _is_record_name(name: str) -> bool:
    return not name.startswith(".") and name.endswith(".toml")


def _checksum(blobs: list[tuple[str, bytes]]) -> str:
    import zlib  # the records were read: a start that parses them can afford it

    crc = zlib.crc32(f"schema {_SCHEMA} python {sys.version_info[:2]}".encode())
    size = 0
    for stem, blob in blobs:
        crc = zlib.crc32(blob, zlib.crc32(stem.encode() + b"\0", crc))
        size += len(blob)
    return f"{crc:08x}-{size:x}-{len(blobs)}"


def _parse_toml(stem: str, blob: bytes) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CatalogError(f"{stem}.toml: {error}") from None
