"""Which files ``lint PATH ...`` checks: a file as given, whatever its name; a folder's ``.py``
and ``.pyi`` files, recursively, in sorted order, skipping the folders ruff skips by default.
(ruff also skips what ``.gitignore`` names; this does not read it.)"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

#: ruff's default ``exclude`` (its documentation, "exclude"), and ``__pycache__``.
SKIPPED = frozenset(
    {
        ".bzr",
        ".direnv",
        ".eggs",
        ".git",
        ".git-rewrite",
        ".hg",
        ".ipynb_checkpoints",
        ".mypy_cache",
        ".nox",
        ".pants.d",
        ".pyenv",
        ".pytest_cache",
        ".pytype",
        ".ruff_cache",
        ".svn",
        ".tox",
        ".venv",
        ".vscode",
        "__pycache__",
        "__pypackages__",
        "_build",
        "buck-out",
        "dist",
        "node_modules",
        "site-packages",
        "venv",
    }
)
SUFFIXES = (".py", ".pyi")


def python_files(path: str, on_error: Callable[[str, OSError], None]) -> Iterator[str]:
    """The files to check under ``path``; a folder that cannot be listed goes to ``on_error``
    (a missing path too), and the walk goes on. Symbolic links to folders are not followed."""
    if not os.path.isdir(path):
        if os.path.lexists(path):
            yield path
        else:
            on_error(path, FileNotFoundError(2, os.strerror(2), path))
        return

    def failed(error: OSError) -> None:
        on_error(error.filename or path, error)

    for folder, folders, files in os.walk(path, onerror=failed):
        folders[:] = sorted(name for name in folders if name not in SKIPPED)
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                yield os.path.join(folder, name)
