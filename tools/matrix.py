"""Record and check the catalog on several torch releases, each in a venv of its own.

    python tools/matrix.py [RELEASE ...]   (default: the releases of issue #20)

For each release: create ``.matrix/torch-<release>`` (or reuse it) with that torch and a NumPy
it works with, then run this checkout's ``record`` (writing ``data/observed/``) and ``check``
with it. Old releases come from PyPI as CUDA builds of several GB; they run on the CPU.
Set MATRIX_DIR to keep the venvs elsewhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RELEASES = ("1.13.1", "2.1.2", "2.13.0", "2.14.1", "2.15.0")


def numpy_requirement(release: str) -> str:
    major, minor = (int(part) for part in release.split(".")[:2])
    return "numpy<2" if (major, minor) < (2, 3) else "numpy"


def venv_for(release: str, root: Path) -> Path:
    venv = root / f"torch-{release}"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not installed.startswith(release):
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                f"torch=={release}",
                numpy_requirement(release),
            ],
            check=True,
        )
    return python


def main() -> int:
    releases = sys.argv[1:] or list(RELEASES)
    root = Path(os.environ.get("MATRIX_DIR", REPO / ".matrix"))
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    failed = []
    for release in releases:
        print(f"== torch {release}", flush=True)
        python = str(venv_for(release, root))
        for command in ("record", "check"):
            run = subprocess.run(
                [python, "-m", "autograd_errors", command], env=env, cwd=REPO, check=False
            )
            if run.returncode != 0:
                failed.append(f"{release}: {command} exited {run.returncode}")
    print("\n".join(failed) if failed else f"all releases pass: {', '.join(releases)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
