"""The run's site builds, in a process of their own, started when the run starts (see
``tests/conftest.py``): the English site, then the Chinese one, each as `make docs` builds it,
each outcome written as ``<name>.built.json`` in the run's shared directory for the tests that
wait for it. Started early, the builds use the cores while the tests that need no site run,
instead of keeping a worker waiting once the site tests begin.

    python tests/site_builds.py PROJECT SHARED
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import sphinx_build


def record(shared: Path, name: str, returncode: int, output: str) -> None:
    """Write an outcome whole or not at all: a waiting test reads it as soon as it exists."""
    done = shared / f"{name}.built.json"
    partial = done.with_suffix(".partial")
    partial.write_text(json.dumps({"returncode": returncode, "output": output}), encoding="utf-8")
    partial.replace(done)


def main(project: Path, shared: Path) -> None:
    builds = (("site", ()), ("zh-site", ("-D", "language=zh_CN", "docs", "_build/html/zh_CN")))
    for name, arguments in builds:
        try:
            result = sphinx_build(project, *arguments)
        except Exception as error:  # noqa: BLE001 - every waiting test is told, not left waiting
            record(shared, name, 1, f"the build could not run: {error!r}")
            return
        record(shared, name, result.returncode, result.stdout + result.stderr)
        if result.returncode != 0:
            if name == "site":
                record(shared, "zh-site", 1, "not built: the English build failed first")
            return


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
