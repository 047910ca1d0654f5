"""Where the gallery scripts are, and how their lines are tagged."""

from __future__ import annotations

from pathlib import Path

from autograd_errors import catalog
from autograd_errors.verification import gallery

GALLERY = Path(__file__).parents[3] / "gallery"
CATALOG = catalog.load(use_cache=False)


def test_a_line_may_carry_several_tags(tmp_path):
    script = tmp_path / "x.py"
    script.write_text("x = 1\nx += 1  # broken  # cause: manual-update\ny = 2  # fixed\n")
    assert gallery.line_tags(str(script)) == [
        (2, "broken", "x += 1"),
        (2, "cause: manual-update", "x += 1"),
        (3, "fixed", "y = 2"),
    ]


def test_cause_tags_are_gathered_by_cause_and_unknown_ones_named(tmp_path):
    script = tmp_path / "leaf-inplace.py"
    script.write_text(
        "w -= 1  # broken  # cause: manual-update\n"
        "with torch.no_grad():  # fixed  # fix: manual-update\n"
        "x = 2  # cause: manual-update\n"
        "y = 3  # cause: typo-in-the-id\n"
    )
    tagged, unknown = gallery.cause_tags(str(script), CATALOG["leaf-inplace"])
    assert tagged == {("cause", "manual-update"): [1, 3], ("fix", "manual-update"): [2]}
    assert unknown == [
        "line 4 is tagged 'cause: typo-in-the-id', but 'leaf-inplace' has no cause 'typo-in-the-id'"
    ]


def test_scripts_are_listed_by_section_then_id_without_private_files(tmp_path):
    for name in ("b/z-entry.py", "b/a-entry.py", "a/m-entry.py", "a/_helper.py", "_hidden/x.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "a" / "README.txt").write_text("A\n-\n")
    found = gallery.scripts(str(tmp_path))
    assert [(s.section, s.entry_id) for s in found] == [
        ("a", "m-entry"),
        ("b", "a-entry"),
        ("b", "z-entry"),
    ]


def test_the_checkouts_gallery_is_found_and_ordered():
    assert gallery.gallery_dir() == str(GALLERY)
    order = gallery.section_order(str(GALLERY))
    assert order[0] == "inplace"
    assert gallery.section_title(str(GALLERY), order[0])
