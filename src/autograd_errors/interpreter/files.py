"""Writing a JSON file whole or not at all: a temporary file beside it, then a rename over it,
so that a full disk or an interrupt leaves what was there before. The recordings of
``data/observed/`` (:mod:`autograd_errors.verification.recordings`) and a diagnosis's files
(the report of ``run --diagnose --report``, the instrumented run's findings) are written so.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile


def write_json(
    path: str,
    data: object,
    *,
    prefix: str = ".autograd-errors-",
    indent: int = 2,
    sort_keys: bool = False,
) -> None:
    """Write ``data`` to ``path`` as JSON (UTF-8, not escaped, one newline at the end); the
    temporary file is named ``prefix...`` in the same directory."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=".json.tmp", dir=directory)
    try:
        # mkstemp's file is 0600: the file keeps the mode it had, or gets the one a new file
        # would (0666 less the umask), as a plain open() would give it.
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            umask = os.umask(0o022)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=indent, ensure_ascii=False, sort_keys=sort_keys)
            stream.write("\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
