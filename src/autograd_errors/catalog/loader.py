"""Loading the catalog: every record read, parsed (or taken from :mod:`.cache`) and checked
(:mod:`.schema`).

The entries are ``autograd_errors/entries/<id>.toml``, one record each; the catalog's other
records (:data:`.schema.OTHER_RECORDS`: the kinds of error that are not autograd's, the titles
of PyTorch's documentation pages) are ``autograd_errors/catalog/<name>.toml``. One checksum
covers them all, and one cache file holds them all.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

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
_SCHEMA = 5


def load(directory: str | None = None, *, use_cache: bool = True) -> Catalog:
    """Load and check every record in ``directory`` (the packaged entries by default), and the
    catalog's other records."""
    blobs = _read_records(directory or ENTRIES_DIR)
    others = [(name, _read(os.path.join(RECORDS_DIR, f"{name}.toml"))) for name in OTHER_RECORDS]
    checksum = _checksum(blobs + [(f"/{name}", blob) for name, blob in others])
    path = cache.cache_file(checksum) if use_cache else None
    if path:
        catalog = _from_cache(path, checksum, dict(blobs))
        if catalog is not None:
            return catalog
    records = {stem: _parse_toml(stem, blob) for stem, blob in blobs}
    parsed_others = {name: _parse_toml(name, blob) for name, blob in others}
    catalog = build(records, others=parsed_others)  # only records that pass every check are cached
    if path:
        anchors = {entry.id: [w.anchor for w in entry.wordings] for entry in catalog}
        # Each record marshalled on its own: a cold start unmarshals only the entries it uses.
        packed = {stem: marshal.dumps(record) for stem, record in records.items()}
        data = {"records": packed, "anchors": anchors, "others": parsed_others}
        cache.write(path, checksum, data)
    return catalog


def _from_cache(path: str, checksum: str, blobs: dict[str, bytes]) -> Catalog | None:
    """The cached catalog, its entries built when first used; None: the cache does not serve."""
    data = cache.read(path, checksum)
    if data is None:
        return None
    try:
        packed, anchors, others = data["records"], data["anchors"], data["others"]
        if list(packed) != list(blobs) or sorted(anchors) != sorted(blobs):
            return None
        if not all(isinstance(record, bytes) for record in packed.values()):
            return None
        return build_lazily(
            lambda stem: marshal.loads(packed[stem]),
            anchors,
            others,
            lambda stem: _parse_toml(stem, blobs[stem]),
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
        if name.startswith(".") or not name.endswith(".toml") or not os.path.isfile(path):
            continue
        blobs.append((name[: -len(".toml")], _read(path)))
    return blobs


def _checksum(blobs: list[tuple[str, bytes]]) -> str:
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
