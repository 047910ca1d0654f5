"""The run's site builds, in a process of their own, started when the run starts (see
``tests/conftest.py``): the English site, then the Chinese one, each as `make docs` builds it,
each outcome written as ``<name>.built.json`` in the run's shared directory for the tests that
wait for it. Started early, the builds use the cores while the tests that need no site run,
instead of keeping a worker waiting once the site tests begin.

The builds run in PROJECT; the tests read a copy of it, READERS (the English build's state,
then the Chinese site copied in beside it). PROJECT itself is left to the tests that build
again: Sphinx reuses a build's cache only in the directory it was built in (a copy elsewhere
reads every page again, a minute here).

    python tests/site_builds.py PROJECT READERS SHARED
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from helpers import sphinx_build


def record(shared: Path, name: str, returncode: int, output: str) -> None:
    """Write an outcome whole or not at all: a waiting test reads it as soon as it exists."""
    done = shared / f"{name}.built.json"
    partial = done.with_suffix(".partial")
    partial.write_text(json.dumps({"returncode": returncode, "output": output}), encoding="utf-8")
    partial.replace(done)


#: What each build writes, copied into the readers' copy once it is built: the whole project
#: after the English build, the Chinese site (with its own cache) after the Chinese one.
CHINESE = Path("_build", "html", "zh_CN")


def publish(project: Path, readers: Path, name: str) -> None:
    if name == "site":
        shutil.copytree(project, readers, symlinks=True)
    else:
        shutil.copytree(project / CHINESE, readers / CHINESE, symlinks=True)


def build(project: Path, readers: Path, name: str, arguments: tuple[str, ...]) -> tuple[int, str]:
    """Build ``name`` and, built, copy it for the readers; its return code and output."""
    try:
        result = sphinx_build(project, *arguments)
        if result.returncode == 0:
            publish(project, readers, name)
    except Exception as error:  # noqa: BLE001 - every waiting test is told, not left waiting
        return 1, f"the build could not run: {error!r}"
    return result.returncode, result.stdout + result.stderr


def main(project: Path, readers: Path, shared: Path) -> None:
    returncode, output = build(project, readers, "site", ())
    record(shared, "site", returncode, output)
    if returncode != 0:
        record(shared, "zh-site", 1, "not built: the English build failed first")
        return
    chinese = ("-D", "language=zh_CN", "docs", str(CHINESE))
    record(shared, "zh-site", *build(project, readers, "zh-site", chinese))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
