"""The catalog's cache: the parsed records, marshalled, in the user's cache directory.

Importing :mod:`tomllib` and parsing the records costs more than the rest of ``explain``
together, so the parsed records are cached (with :mod:`marshal`, which the interpreter has loaded
anyway), keyed by a checksum of the record files and the Python version: the way Python caches
bytecode. An unwritable cache only costs speed.

A cache file is :data:`MAGIC`, the :func:`checksum_of` and the length of its head, the head
(marshalled: the key it was written for, the catalog's data, and the index of the blobs that
follow: each one's name, length and checksum), then the blobs (one record each, marshalled on
its own). A cold ``explain`` reads the file's first :data:`FIRST_READ` bytes, checks the head,
and reads, checks and unmarshals only the records it uses: reading the whole 0.9 MB cost half a
millisecond of a cold start, copying, checksumming and unmarshalling it a tenth.
Anything wrong with it (a bit flipped, a truncated write, a file another user planted) costs one
parse of the TOML, or of the one record whose blob is damaged, never a failure or a wrong
answer: the TOML is the truth.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

MAGIC = b"autograd-errors catalog cache\n"
#: Each interpreter's files have a name of their own (``catalog-cpython-311-...``): two
#: Pythons sharing the directory (a 3.11 and a 3.12 venv on one checkout) keep each its cache,
#: and each removes only its own earlier catalogs.
_PREFIX = f"catalog-{sys.implementation.cache_tag or sys.implementation.name}-"
_SUFFIX = ".marshal"
#: The largest prime below 2**30: a remainder by one of CPython's 30-bit digits is its fast path.
#: 2 has order p - 1 modulo it, so every change of one or two bits in a file under 128 MB changes
#: the remainder; random damage goes unseen once in 2**30.
_PRIME = 1_073_741_789
#: A cache file is about 0.9 MB; anything far larger at its path is not one, and is not read.
_MAX_SIZE = 64 * 1024 * 1024
#: What :func:`read` reads at once: the head (13 KB for 87 entries) and the first records; a
#: record further on is read when it is taken.
FIRST_READ = 64 * 1024
# O_NONBLOCK: a FIFO planted at the path would block open() forever (and with it every command,
# and the excepthook of a crashing script); it has no effect on a file.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def cache_root() -> str | None:
    """Where the cache lives: ``$AUTOGRAD_ERRORS_CACHE_DIR`` (empty: no cache), else
    ``$XDG_CACHE_HOME/autograd-errors`` (only if absolute, as the XDG spec says), else
    ``~/.cache/autograd-errors`` (only with a real home directory)."""
    root = os.environ.get("AUTOGRAD_ERRORS_CACHE_DIR")
    if root is not None:
        return root or None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home) or home == os.sep:
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "autograd-errors")


def cache_file(checksum: str) -> str | None:
    """The cache file of the records whose checksum is ``checksum``, or None: no cache."""
    root = cache_root()
    return os.path.join(root, f"{_PREFIX}{checksum}{_SUFFIX}") if root else None


def _trusted(status: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else: a cache file another user could write
    would let them choose what ``explain`` tells you."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - Windows has no owner to compare
        return True
    return status.st_uid == getuid() and not status.st_mode & 0o022


def checksum_of(data: bytes | memoryview) -> int:
    """The bytes as one integer, modulo :data:`_PRIME`: a checksum of the interpreter's own
    arithmetic (25 us for a record), where ``zlib.crc32`` costs loading zlib's shared library,
    a tenth of a cold ``explain``."""
    return int.from_bytes(data, "little") % _PRIME


class Blobs:
    """The blobs of a cache file, by name, each read and checked against its checksum when it
    is taken: ``blobs[name]`` is its bytes, or raises :class:`ValueError` when they are damaged
    or the file is no longer the one whose head was read."""

    __slots__ = ("_first", "_identity", "_index", "_path")

    def __init__(
        self,
        path: str,
        identity: tuple[int, int, int, int],
        first: bytes,
        index: dict[str, tuple[int, int, int]],
    ) -> None:
        self._path = path
        self._identity = identity  # the file's device, inode, size and modification time
        self._first = memoryview(first)  # slices of a view copy nothing
        self._index = index  # name: (offset, length, checksum)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __getitem__(self, name: str) -> bytes | memoryview:
        offset, length, expected = self._index[name]
        blob: bytes | memoryview
        if offset + length <= len(self._first):
            blob = self._first[offset : offset + length]
        else:
            blob = self._read(offset, length)
        if len(blob) != length or checksum_of(blob) != expected:
            raise ValueError(f"the cached blob {name!r} is damaged")
        return blob

    def _read(self, offset: int, length: int) -> bytes:
        """The file's bytes at ``offset``: b"" when it is gone or is another file now (the
        cache of the same records, written again: its records may lie elsewhere)."""
        try:
            descriptor = os.open(self._path, _OPEN_FLAGS)
            try:
                if _identity(os.fstat(descriptor)) != self._identity:
                    return b""
                return _read_at(descriptor, offset, length)
            finally:
                os.close(descriptor)
        except OSError:
            return b""


def _identity(status: os.stat_result) -> tuple[int, int, int, int]:
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


def _read_at(descriptor: int, offset: int, length: int) -> bytes:
    """Up to ``length`` bytes at ``offset`` (fewer only at the end of the file)."""
    pread = getattr(os, "pread", None)
    if pread is None:  # pragma: no cover - Windows has no pread
        os.lseek(descriptor, offset, os.SEEK_SET)
    chunks: list[bytes] = []
    while length > 0:
        chunk = pread(descriptor, length, offset) if pread else os.read(descriptor, length)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(chunks)


def read(cache: str, checksum: str) -> tuple[dict[str, Any], Blobs] | None:
    """What :func:`write` stored in ``cache`` for ``checksum``: its data and its blobs; None
    when the file is missing, untrusted, damaged or another catalog's."""
    start = len(MAGIC) + 8
    try:
        if not _trusted(os.lstat(os.path.dirname(cache))):
            return None
        descriptor = os.open(cache, _OPEN_FLAGS)
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode) or status.st_size > _MAX_SIZE:
                return None
            if not _trusted(status):
                return None
            first = _read_at(descriptor, 0, min(FIRST_READ, status.st_size))
            if first[: len(MAGIC)] != MAGIC or len(first) < start:
                return None
            length = int.from_bytes(first[start - 4 : start], "big")
            if start + length > len(first):  # a head longer than the first read
                first += _read_at(descriptor, len(first), start + length - len(first))
        finally:
            os.close(descriptor)
    except OSError:
        return None
    expected = int.from_bytes(first[start - 8 : start - 4], "big")
    head = memoryview(first)[start : start + length]
    if len(head) != length or checksum_of(head) != expected:
        return None
    try:
        data = marshal.loads(head)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("checksum") != checksum:
        return None
    index = data.pop("blobs", None)
    if not isinstance(index, list):
        return None
    offsets = {}
    at = start + length
    try:
        for name, size, blob_checksum in index:
            offsets[name] = (at, size, blob_checksum)
            at += size
    except (TypeError, ValueError):
        return None
    if at != status.st_size:
        return None
    return data, Blobs(cache, _identity(status), first, offsets)


def write(cache: str, checksum: str, data: dict[str, Any], blobs: Mapping[str, bytes]) -> None:
    """Write the cache atomically, and remove the files of this interpreter's earlier
    catalogs. ``blobs``: bytes to be taken one by one (:class:`Blobs`), each marshalled
    record."""
    index = [(name, len(blob), checksum_of(blob)) for name, blob in blobs.items()]
    head = marshal.dumps({"checksum": checksum, **data, "blobs": index})
    header = checksum_of(head).to_bytes(4, "big") + len(head).to_bytes(4, "big")
    directory = os.path.dirname(cache)
    temporary = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not _trusted(os.lstat(directory)):
            return
        # 0600 whatever the umask (002 would give 0664, which read() then refuses as
        # writable by others, so that every command parsed the TOML again).
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(MAGIC + header + head)
            for blob in blobs.values():
                handle.write(blob)
        os.replace(temporary, cache)
        for name in os.listdir(directory):
            if name.startswith(_PREFIX) and name != os.path.basename(cache):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, name))
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
