"""Where the gallery scripts are: one per entry, in ``gallery/<section>/<id>.py``.

In a checkout the gallery sits beside ``src/``; an installed package carries a copy inside
itself (``autograd_errors/gallery``), so that ``check`` runs from a wheel too.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog import Catalog

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: A line's tag is the comment at its end, after two spaces, ``#`` and a space: ``# broken``,
#: ``# fixed``, and for a common cause ``# cause: <id>`` on its trigger, ``# fix: <id>`` on
#: its fix.
TAG_MARK = "  # "
CAUSE_TAG, FIX_TAG = "cause", "fix"


class Script:
    """One gallery script: the entry it demonstrates and the section it sits in."""

    __slots__ = ("entry_id", "path", "section")

    def __init__(self, path: str) -> None:
        self.path = path
        self.entry_id = os.path.splitext(os.path.basename(path))[0]
        self.section = os.path.basename(os.path.dirname(path))

    def __repr__(self) -> str:
        return f"Script({self.section}/{self.entry_id})"


def line_tags(path: str) -> list[tuple[int, str, str]]:
    """The script's tagged lines: line number, tag, and the code before the tag. A line may
    carry several tags (``x += 1  # broken  # cause: manual-update``): one row each."""
    tagged = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            code, mark, comment = line.rstrip("\n").partition(TAG_MARK)
            if mark:
                tagged += [
                    (number, tag.strip(), code) for tag in comment.split(TAG_MARK) if tag.strip()
                ]
    return tagged


def gallery_dir() -> str:
    """The gallery that ships with the package, else the checkout's."""
    inside = os.path.join(_PACKAGE_DIR, "gallery")
    if os.path.isdir(inside):
        return inside
    beside = os.path.join(os.path.dirname(os.path.dirname(_PACKAGE_DIR)), "gallery")
    if os.path.isdir(beside):
        return beside
    raise FileNotFoundError(f"no gallery in {inside} or {beside}")


def scripts(directory: str | None = None) -> list[Script]:
    """Every script in the gallery's sections, sorted by section then id."""
    directory = directory or gallery_dir()
    found = []
    for section in sorted(os.listdir(directory)):
        section_dir = os.path.join(directory, section)
        if not os.path.isdir(section_dir) or section.startswith(("_", ".")):
            continue
        found += [
            Script(os.path.join(section_dir, name))
            for name in sorted(os.listdir(section_dir))
            if name.endswith(".py") and not name.startswith("_")
        ]
    return found


def correspondence_problems(catalog: Catalog, found: list[Script]) -> list[tuple[str, str]]:
    """Where catalog entries and gallery scripts fail to pair up one to one: pairs of the
    entry id and what is wrong with it."""
    problems: list[tuple[str, str]] = []
    by_id: dict[str, list[Script]] = {}
    for script in found:
        by_id.setdefault(script.entry_id, []).append(script)
    for entry_id, same in by_id.items():
        if len(same) > 1:
            places = ", ".join(f"{s.section}/{s.entry_id}.py" for s in same)
            problems.append((entry_id, f"{entry_id}: more than one gallery script ({places})"))
        if entry_id not in catalog:
            problems.append(
                (entry_id, f"{entry_id}: gallery script {same[0].path} has no catalog entry")
            )
    for entry in catalog:
        same = by_id.get(entry.id, [])
        if not same:
            problems.append(
                (entry.id, f"{entry.id}: no gallery script gallery/{entry.section}/{entry.id}.py")
            )
        elif same[0].section != entry.section:
            problems.append(
                (
                    entry.id,
                    f"{entry.id}: the catalog puts it in section {entry.section!r}, "
                    f"the gallery in {same[0].section!r}",
                )
            )
    return problems


def section_order(directory: str) -> list[str]:
    """Sections in the order the gallery shows them (``_order.txt``, one name a line)."""
    with open(os.path.join(directory, "_order.txt"), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def section_title(directory: str, section: str) -> str:
    """A section's title: the first line of its ``README.txt``."""
    with open(os.path.join(directory, section, "README.txt"), encoding="utf-8") as handle:
        return handle.readline().strip()
