"""Where the gallery scripts are: one per entry, in ``gallery/<section>/<id>.py``.

In a checkout the gallery sits beside ``src/``; an installed package carries a copy inside
itself (``autograd_errors/gallery``), so that ``check`` runs from a wheel too.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Entry

#: The package's directory: an installed package carries the gallery there.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: A line's tag is the comment at its end, after two spaces, ``#`` and a space: ``# broken``,
#: ``# fixed``, and for a common cause ``# cause: <id>`` on its trigger, ``# fix: <id>`` on
#: its fix.
TAG_MARK = "  # "
CAUSE_TAG, FIX_TAG = "cause", "fix"
#: The directives that make a script's page from its record: under its title, and at its end.
ENTRY_DIRECTIVE = ".. autograd-entry::"
FOOTER_DIRECTIVE = ".. autograd-entry-footer::"


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


def cause_tags(path: str, entry: Entry) -> tuple[dict[tuple[str, str], list[int]], list[str]]:
    """The script's lines tagged ``# cause: <id>`` and ``# fix: <id>``, by tag and cause id;
    and what is wrong with the tags that name no common cause of ``entry``."""
    tagged: dict[tuple[str, str], list[int]] = {}
    unknown = []
    cause_ids = {cause.id for cause in entry.causes}
    for line, tag, _ in line_tags(path):
        kind, _, cause_id = tag.partition(": ")
        if kind not in (CAUSE_TAG, FIX_TAG):
            continue
        if cause_id not in cause_ids:
            unknown.append(
                f"line {line} is tagged '{tag}', but {entry.id!r} has no cause {cause_id!r}"
            )
            continue
        tagged.setdefault((kind, cause_id), []).append(line)
    return tagged, unknown


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


def section_order(directory: str) -> list[str]:
    """Sections in the order the gallery shows them (``_order.txt``, one name a line)."""
    with open(os.path.join(directory, "_order.txt"), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def section_title(directory: str, section: str) -> str:
    """A section's title: the first line of its ``README.txt``."""
    with open(os.path.join(directory, section, "README.txt"), encoding="utf-8") as handle:
        return handle.readline().strip()
