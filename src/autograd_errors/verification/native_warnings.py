"""The warnings torch's C++ side writes to standard error itself, read while a script runs.

A C++ warning raised where no Python call waits for it (DDP's reducer, called through
pybind11; AccumulateGrad on an autograd worker thread) never becomes a Python warning: c10's
default handler writes it to file descriptor 2, as

    [W reducer.cpp:1158] Warning: find_unused_parameters=True was ... (function operator())
    [rank0]:[W1203 17:44:47.427840532 reducer.cpp:1529] Warning: ... (function operator())

:class:`NativeStderr` points descriptor 2 at a file of its own while it is started, hands
back each such message as it is complete (:meth:`NativeStderr.messages`), and passes every
byte on to where descriptor 2 went before, so that nothing written there is lost.
"""

from __future__ import annotations

import os
import re
import tempfile

#: One C++ warning as c10's default handler prints it: the log prefix, "Warning: ", the
#: message (which may hold line breaks), and the function that raised it.
NATIVE_WARNING = re.compile(
    r"\[W[^\]\n]*\] Warning: (?P<message>(?:(?!\n(?:\[rank\d+\]:)?\[W).)*?)"
    r" \(function [^\n()]*(?:\(\))?\)(?=\n|$)",
    re.DOTALL,
)
#: Where an incomplete warning waits for its end: a warning longer than this is given up.
MAX_PENDING = 1 << 16


class NativeStderr:
    """File descriptor 2 captured, its C++ warnings read, its bytes passed on."""

    def __init__(self) -> None:
        self._saved: int | None = None
        self._capture: int | None = None
        self._read = 0
        self._pending = ""

    def start(self) -> None:
        """Point descriptor 2 at a file of this object's; nothing changes where there is no
        descriptor 2 (an embedded interpreter, a closed stderr) or no file can be made."""
        try:
            saved = os.dup(2)
        except OSError:
            return
        try:
            capture, path = tempfile.mkstemp(prefix="autograd-errors-stderr-")
            os.unlink(path)
        except OSError:
            os.close(saved)
            return
        os.dup2(capture, 2)
        self._saved, self._capture = saved, capture

    def messages(self) -> list[str]:
        """The C++ warnings completed on descriptor 2 since the last call, oldest first."""
        if self._capture is None:
            return []
        try:
            size = os.fstat(self._capture).st_size
            if size <= self._read:
                return []
            data = os.pread(self._capture, size - self._read, self._read)
        except OSError:
            return []
        self._read += len(data)
        self._pass_on(data)
        text = self._pending + data.decode("utf-8", "replace").replace("\r\n", "\n")
        found: list[str] = []
        end = 0
        for match in NATIVE_WARNING.finditer(text):
            found.append(match.group("message"))
            end = match.end()
        rest = text[end:]
        start = rest.rfind("[W")
        self._pending = rest[start:] if start != -1 and len(rest) - start < MAX_PENDING else ""
        return found

    def stop(self) -> list[str]:
        """The warnings not read yet, and descriptor 2 given back."""
        found = self.messages()
        if self._saved is not None and self._capture is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
            os.close(self._capture)
        self._saved = self._capture = None
        self._pending = ""
        return found

    def _pass_on(self, data: bytes) -> None:
        if self._saved is None:
            return
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._saved, view)
            except OSError:
                return  # where descriptor 2 went is gone: the capture still reads
            view = view[written:]
