"""Time a clean build of the site (every example executed) and a rebuild with nothing changed.

Runs `sphinx-build` as `make docs` does, on a copy of the project, so the checkout's own
build is left alone. The issue's targets: a clean build well under 2 minutes, a no-change
rebuild under 15 seconds, on a 2-core machine.

    python benchmarks/docs_build.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IGNORED = shutil.ignore_patterns(".git", ".venv", "_build", "errors", "__pycache__", ".*cache")


def build(project: Path) -> float:
    sphinx = Path(sys.executable).parent / "sphinx-build"
    start = time.perf_counter()
    subprocess.run(
        [str(sphinx), "-W", "--keep-going", "-n", "-q", "-c", ".", "docs", "_build/html"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "project"
        shutil.copytree(REPO, project, ignore=IGNORED)
        clean = build(project)
        rebuild = build(project)
    print(f"clean build (examples executed): {clean:6.1f} s")
    print(f"rebuild, nothing changed:        {rebuild:6.1f} s")


if __name__ == "__main__":
    main()
