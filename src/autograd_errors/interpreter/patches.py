"""One way to change the running interpreter, and to give back exactly what was changed.

The hooks (``sys.excepthook``, ``threading.excepthook``, ``warnings.showwarning``), the observer
of a gallery script (a trace function, the warnings machinery, the output streams and file
descriptor 2) and the program runner (``sys.argv``, ``sys.path``, ``__main__``) each record
their changes on a :class:`Patches`; :meth:`Patches.restore` undoes them, last first.

A value is put back only while it is still the one set here: when something else replaced it
since (a library that chained its own ``sys.excepthook`` over ours), that is its owner's now,
and restoring ours would remove theirs. An item inserted into a list is removed by identity,
and only if it is still there.

>>> import types
>>> holder = types.SimpleNamespace(hook="original")
>>> patches = Patches()
>>> patches.set(holder, "hook", "ours")
'original'
>>> patches.restore()
>>> holder.hook
'original'
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, MutableMapping, MutableSequence
    from types import TracebackType
    from typing import Any

#: Stands for an attribute or an item that was not there before.
_ABSENT: Any = object()


class Patches:
    """Changes to the running interpreter, each undone by :meth:`restore`, in reverse order.
    Also a context manager: leaving the ``with`` block restores."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []
        self._set: set[tuple[int, str]] = set()

    def __enter__(self) -> Patches:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.restore()

    def set(self, owner: object, name: str, value: Any) -> Any:
        """``owner.name = value``; returns what it was (``None`` if there was nothing)."""
        previous = getattr(owner, name, _ABSENT)
        setattr(owner, name, value)
        self._set.add((id(owner), name))

        def undo() -> None:
            if getattr(owner, name, _ABSENT) is not value:
                return  # replaced since: not ours to restore
            if previous is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, previous)

        self._undo.append(undo)
        return None if previous is _ABSENT else previous

    def has_set(self, owner: object, name: str) -> bool:
        """Whether :meth:`set` changed ``owner.name`` (and it is not restored yet)."""
        return (id(owner), name) in self._set

    def set_item(self, mapping: MutableMapping[str, Any], key: str, value: Any) -> None:
        """``mapping[key] = value`` (``sys.modules["__main__"]``, say)."""
        previous = mapping.get(key, _ABSENT)
        mapping[key] = value

        def undo() -> None:
            if mapping.get(key, _ABSENT) is not value:
                return
            if previous is _ABSENT:
                del mapping[key]
            else:
                mapping[key] = previous

        self._undo.append(undo)

    def insert(self, items: MutableSequence[Any], index: int, item: object) -> None:
        """``items.insert(index, item)`` (``sys.path``, ``sys.meta_path``); undone by removing
        that very object, wherever it is now, if it is still there."""
        items.insert(index, item)

        def undo() -> None:
            for at, present in enumerate(items):
                if present is item:
                    del items[at]
                    return

        self._undo.append(undo)

    def replace(self, items: MutableSequence[Any], index: int, item: object) -> None:
        """``items[index] = item`` (``sys.path[0]``); undone if that very object is still
        there (else the first item is added back in front)."""
        if not items:
            self.insert(items, 0, item)
            return
        previous = items[index]
        items[index] = item

        def undo() -> None:
            for at, present in enumerate(items):
                if present is item:
                    items[at] = previous
                    return

        self._undo.append(undo)

    def trace(self, function: Callable[..., Any]) -> None:
        """``sys.settrace(function)``."""
        previous = sys.gettrace()
        sys.settrace(function)

        def undo() -> None:
            if sys.gettrace() is function:
                sys.settrace(previous)

        self._undo.append(undo)

    def descriptor(self, number: int, path: str) -> None:
        """File descriptor ``number`` pointed at ``path`` (``os.devnull``): what a C++ library
        writes there directly goes with it. Nothing changes where there is no such descriptor
        (an embedded interpreter, a closed stderr)."""
        try:
            saved = os.dup(number)
        except OSError:
            return
        target = os.open(path, os.O_WRONLY)
        os.dup2(target, number)
        os.close(target)

        def undo() -> None:
            os.dup2(saved, number)
            os.close(saved)

        self._undo.append(undo)

    def restore(self) -> None:
        """Undo every change, last first; a change is undone once."""
        self._set.clear()
        while self._undo:
            self._undo.pop()()
