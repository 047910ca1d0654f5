"""Common causes are executed by their entry's gallery script, as its tags say: each trigger
(``# cause: <id>``) raises this entry's message inside a module-level ``try`` (a warning entry:
inside a block that observed its warning), each fix (``# fix: <id>``) runs at module level, and
a cause or fix that does not run is ``UNTESTED``.

The records and scripts here are temporary copies with causes added."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from helpers import REPO, without_causes

from autograd_errors import catalog
from autograd_errors.verification import gallery, judge, runner, verdicts
from autograd_errors.verification.observer import run_script
from autograd_errors.verification.verdicts import Status

LEAF_CAUSES = """
[[common_cause]]
id = "plus-equals"
text = "`x += 1` on a tensor created with `requires_grad=True`."
fix = "Update it under `torch.no_grad()`."

[[common_cause]]
id = "copy-into-weight"
text = "`conv.weight.copy_(w)` to load weights."
fix = "Copy under `torch.no_grad()`."
"""

#: leaf-inplace's two causes, each triggered and fixed; lines 4 and 9 are the triggers.
LEAF_SCRIPT = """\
import torch
x = torch.randn(3, requires_grad=True)
try:
    x += 1  # cause: plus-equals
except RuntimeError as error:
    print(error)
conv = torch.nn.Conv2d(1, 1, 1)
try:
    conv.weight.copy_(torch.ones(1, 1, 1, 1))  # cause: copy-into-weight
except RuntimeError as error:
    print(error)
with torch.no_grad():
    x += 1  # fix: plus-equals
(x * x).sum().backward()
torch.testing.assert_close(x.grad, 2 * x.detach())
with torch.no_grad():
    conv.weight.copy_(torch.ones(1, 1, 1, 1))  # fix: copy-into-weight
conv(torch.ones(1, 1, 2, 2)).sum().backward()
torch.testing.assert_close(conv.weight.grad, torch.full((1, 1, 1, 1), 4.0))
"""


def with_causes(tmp_path: Path, entry_id: str, causes: str) -> catalog.Catalog:
    """The packaged catalog, with ``entry_id``'s causes replaced by ``causes``."""
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / f"{entry_id}.toml"
    record.write_text(without_causes(record.read_text()) + causes)
    return catalog.load(str(entries), use_cache=False)


def judged(tmp_path: Path, entries: catalog.Catalog, entry_id: str, script: str) -> verdicts.Result:
    path = tmp_path / f"{entry_id}.py"
    path.write_text(textwrap.dedent(script))
    return judge.judge(entries[entry_id], run_script(str(path)), entries)


def test_causes_triggered_and_fixed_as_tagged_are_ok(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    result = judged(tmp_path, entries, "leaf-inplace", LEAF_SCRIPT)
    assert result.status is Status.OK, result.detail


def test_a_trigger_raising_a_neighbours_message_fails_check(tmp_path):
    """`x[0] = 0` on a leaf raises view-leaf-inplace's message, not leaf-inplace's."""
    entries_dir = tmp_path / "entries"
    entries_dir.mkdir()
    for entry_id in ("leaf-inplace", "view-leaf-inplace"):
        shutil.copy(Path(catalog.ENTRIES_DIR) / f"{entry_id}.toml", entries_dir)
    for entry_id in ("leaf-inplace", "view-leaf-inplace"):  # only each other as neighbours
        record = entries_dir / f"{entry_id}.toml"
        lines = record.read_text().splitlines(keepends=True)
        record.write_text("".join(line for line in lines if not line.startswith("related =")))
    record = entries_dir / "leaf-inplace.toml"
    record.write_text(
        record.read_text()
        + LEAF_CAUSES
        + '\n[[common_cause]]\nid = "index-assign"\ntext = "`x[0] = 0`."\nfix = "Clone first."\n'
    )
    entries = catalog.load(str(entries_dir), use_cache=False)
    gallery_dir = tmp_path / "gallery"
    (gallery_dir / "inplace").mkdir(parents=True)
    (gallery_dir / "views").mkdir()
    shutil.copy(REPO / "gallery" / "views" / "view-leaf-inplace.py", gallery_dir / "views")
    (gallery_dir / "inplace" / "leaf-inplace.py").write_text(
        LEAF_SCRIPT
        + textwrap.dedent(
            """\
            x = torch.zeros(3, requires_grad=True)
            try:
                x[0] = 0  # cause: index-assign
            except RuntimeError as error:
                print(error)
            y = x.clone()  # fix: index-assign
            y[0] = 1  # fix: index-assign
            """
        )
    )
    results = {result.entry_id: result for result in runner.check(entries, str(gallery_dir))}
    assert results["view-leaf-inplace"].status is Status.OK, results["view-leaf-inplace"].detail
    result = results["leaf-inplace"]
    assert result.status is Status.WRONG_ENTRY
    assert not result.status.passing
    assert (
        "cause 'index-assign' (line 22) raised RuntimeError 'view-leaf-inplace''s message, "
        "not 'leaf-inplace''s:\n  RuntimeError: a view of a leaf Variable that requires grad is "
        "being used in an in-place operation." in result.detail
    )


def test_a_trigger_that_raises_nothing_is_no_error(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace(
        "    x += 1  # cause: plus-equals", "    x.detach().add_(1)  # cause: plus-equals"
    )
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.NO_ERROR
    assert "cause 'plus-equals' (line 4) raised nothing" in result.detail.splitlines()


def test_a_cause_without_a_tagged_line_is_untested(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace("  # cause: copy-into-weight", "")
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.UNTESTED
    assert result.detail == (
        "cause 'copy-into-weight' is not executed by the script "
        "(no line is tagged '# cause: copy-into-weight')"
    )


def test_a_tagged_line_that_never_runs_is_untested(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace(
        "with torch.no_grad():\n    x += 1  # fix: plus-equals",
        "with torch.no_grad():\n    x += 1\ndef never_called():\n    x.zero_()  # fix: plus-equals",
    )
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.UNTESTED
    assert result.detail == (
        "the fix of 'plus-equals' is not executed by the script (line 15 never ran)"
    )


def test_a_fix_inside_a_try_is_untested(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace(
        "with torch.no_grad():\n    x += 1  # fix: plus-equals",
        "try:\n    with torch.no_grad():\n        x += 1  # fix: plus-equals\n"
        "except RuntimeError:\n    pass",
    )
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.NO_ERROR  # the try block caught nothing, too
    assert (
        "the fix of 'plus-equals' (line 14) is inside a try block, which would hide its failure"
        in result.detail.splitlines()
    )


def test_a_trigger_outside_a_try_block_is_untested(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace(
        "conv = torch.nn.Conv2d(1, 1, 1)",
        "conv = torch.nn.Conv2d(1, 1, 1)  # cause: copy-into-weight",
    )
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.UNTESTED
    assert (
        result.detail == "cause 'copy-into-weight' (line 7) is not inside a module-level try block"
    )


def test_a_tag_naming_no_cause_is_untested(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace("# fix: copy-into-weight", "# fix: copy-into-weights")
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.UNTESTED
    assert result.detail.splitlines() == [
        "line 17 is tagged 'fix: copy-into-weights', but 'leaf-inplace' has no cause "
        "'copy-into-weights'",
        "the fix of 'copy-into-weight' is not executed by the script "
        "(no line is tagged '# fix: copy-into-weight')",
    ]


def test_a_crashing_fix_fails(tmp_path):
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace("x += 1  # fix: plus-equals", "x.add_(1)  # fix: plus-equals")
    script = script.replace("with torch.no_grad():\n    x.add_(1)", "if True:\n    x.add_(1)")
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.FIX_FAILS


NONLEAF_CAUSE = """
[[common_cause]]
id = "read-intermediate"
text = "Reading `.grad` of an intermediate result."
fix = "Call `retain_grad()` on it before `backward()`."
"""

NONLEAF_SCRIPT = """\
import warnings
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(y.grad)  # cause: read-intermediate
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()  # fix: read-intermediate
y.sum().backward()
torch.testing.assert_close(y.grad, torch.ones(2))
"""


def test_a_warning_cause_is_triggered_in_the_block_that_warned(tmp_path):
    entries = with_causes(tmp_path, "nonleaf-grad", NONLEAF_CAUSE)
    result = judged(tmp_path, entries, "nonleaf-grad", NONLEAF_SCRIPT)
    assert result.status is Status.OK, result.detail


def test_a_warning_cause_whose_block_did_not_warn_is_no_error(tmp_path):
    entries = with_causes(tmp_path, "nonleaf-grad", NONLEAF_CAUSE)
    script = NONLEAF_SCRIPT.replace(
        "    print(y.grad)  # cause: read-intermediate",
        "    print(x.grad)  # cause: read-intermediate\n"
        'warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being '
        "accessed. Its .grad attribute won't be populated during autograd.backward().\")",
    )
    result = judged(tmp_path, entries, "nonleaf-grad", script)
    assert result.status is Status.NO_ERROR
    assert "cause 'read-intermediate' (line 8) raised nothing" in result.detail.splitlines()


PITFALL_CAUSE = """
[[common_cause]]
id = "two-backwards"
text = "Calling `backward()` twice without zeroing `.grad`."
fix = "Set `.grad` to None between steps."
"""


def test_a_pitfalls_causes_must_run(tmp_path):
    entries = with_causes(tmp_path, "grad-accumulates", PITFALL_CAUSE)
    script = """\
        import torch
        x = torch.ones(2, requires_grad=True)
        (2 * x).sum().backward()
        (2 * x).sum().backward()  # cause: two-backwards
        torch.testing.assert_close(x.grad, torch.full((2,), 4.0))
        x.grad = None  # fix: two-backwards
        (2 * x).sum().backward()
        torch.testing.assert_close(x.grad, torch.full((2,), 2.0))
        """
    assert judged(tmp_path, entries, "grad-accumulates", script).status is Status.OK
    unrun = script.replace("x.grad = None  # fix: two-backwards", "x.grad = None")
    result = judged(tmp_path, entries, "grad-accumulates", unrun)
    assert result.status is Status.UNTESTED
    assert result.detail == (
        "the fix of 'two-backwards' is not executed by the script "
        "(no line is tagged '# fix: two-backwards')"
    )


def test_tags_are_read_from_the_end_of_lines(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("a = 1  # cause: x\nb = 2  # fixed\nc = 3 # cause: y\n")
    assert gallery.line_tags(str(script)) == [(1, "cause: x", "a = 1"), (2, "fixed", "b = 2")]


def test_the_entry_page_shows_each_cause_with_its_fix_and_code(tmp_path):
    """The causes' part of the page, built by Sphinx with warnings as errors and nitpicky."""
    import subprocess
    import sys

    from helpers import page_text

    from autograd_errors.sphinxext.directives import cause_lines

    sources = 'sources = ["https://github.com/pytorch/pytorch/issues/1"]\n'
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES + sources)
    script = tmp_path / "leaf-inplace.py"
    script.write_text(LEAF_SCRIPT)
    site = tmp_path / "site"
    site.mkdir()
    (site / "conf.py").write_text("nitpicky = True\n")
    lines = cause_lines(entries["leaf-inplace"], str(script))
    (site / "index.rst").write_text("Causes\n======\n\n" + "\n".join(lines) + "\n")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "-n",
            "-q",
            "-b",
            "html",
            str(site),
            str(site / "_build"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    text = " ".join(page_text(site / "_build" / "index.html").replace("\u00b6", "").split())
    assert (
        "Common causes The most common first. "
        "x += 1 on a tensor created with requires_grad=True. "
        "Raises it x += 1 "
        "Fix. Update it under torch.no_grad(). "
        "Fixed x += 1 "
        "conv.weight.copy_(w) to load weights. "
        "Raises it conv.weight.copy_(torch.ones(1, 1, 1, 1)) "
        "Fix. Copy under torch.no_grad(). "
        "Fixed conv.weight.copy_(torch.ones(1, 1, 1, 1)) "
        "Sources: 1."
    ) in text


# Truth per release (issue 20): a cause that holds only on some releases, an API a release
# lacks, a warning a release adds. Each judged on a throw-away entry, on this torch, with the
# release the judge is told.

VIEW_CAUSE = """
[[common_cause]]
id = "index-assign"
text = "`x[0] = 0` on a leaf (older releases raised this entry's message for it)."
fix = "Clone first."
until = "1.0.0"
"""

VIEW_SCRIPT = LEAF_SCRIPT + textwrap.dedent(
    """\
    x = torch.zeros(3, requires_grad=True)
    try:
        x[0] = 0  # cause: index-assign
    except RuntimeError as error:
        print(error)
    y = x.clone()  # fix: index-assign
    y[0] = 1  # fix: index-assign
    """
)


def test_a_cause_of_older_releases_is_not_judged_on_this_one(tmp_path):
    """On this release the trigger raises view-leaf-inplace's message: for a cause that holds
    only up to 1.0.0 that is not a wrong entry; the entry passes on what it does raise here."""
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES + VIEW_CAUSE)
    path = tmp_path / "leaf-inplace.py"
    path.write_text(VIEW_SCRIPT)
    result = judge.judge(entries["leaf-inplace"], run_script(str(path)), entries, "2.13.0")
    assert result.status is Status.OK, result.detail
    # On a release the cause claims, the same trigger is judged, and it is the wrong entry.
    older = judge.judge(entries["leaf-inplace"], run_script(str(path)), entries, "0.4.1")
    assert older.status is Status.WRONG_ENTRY


def test_a_cause_that_stopped_raising_is_not_no_error(tmp_path):
    """A cause whose trigger raises nothing on releases after its ``until`` (cdist's double
    backward on 2.14) passes there, and is a failure on the releases it claims."""
    causes = LEAF_CAUSES.replace(
        'fix = "Copy under `torch.no_grad()`."', 'fix = "Copy."\nuntil = "1.0.0"'
    )
    entries = with_causes(tmp_path, "leaf-inplace", causes)
    script = LEAF_SCRIPT.replace(
        "    conv.weight.copy_(torch.ones(1, 1, 1, 1))  # cause: copy-into-weight",
        "    conv.weight.detach().copy_(torch.ones(1, 1, 1, 1))  # cause: copy-into-weight",
    )
    path = tmp_path / "leaf-inplace.py"
    path.write_text(script)
    result = judge.judge(entries["leaf-inplace"], run_script(str(path)), entries, "2.13.0")
    assert result.status is Status.OK, result.detail
    older = judge.judge(entries["leaf-inplace"], run_script(str(path)), entries, "0.4.1")
    assert older.status is Status.NO_ERROR
    assert "cause 'copy-into-weight' (line 9) raised nothing" in older.detail.splitlines()


def test_an_api_this_release_lacks_inside_a_repro_is_not_applicable(tmp_path):
    """A repro that needs a newer API (``torch.amp.GradScaler`` on 1.13) is not drift."""
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    script = LEAF_SCRIPT.replace(
        "    x += 1  # cause: plus-equals",
        "    torch.amp.NoSuchScaler()\n    x += 1  # cause: plus-equals",
    )
    result = judged(tmp_path, entries, "leaf-inplace", script)
    assert result.status is Status.NOT_APPLICABLE, result.detail
    assert (
        "this torch lacks an API the script uses: AttributeError: module 'torch.amp' has no "
        "attribute 'NoSuchScaler'" in result.detail
    )
    assert "drift" not in result.detail.lower()


def test_the_causes_before_an_api_this_release_lacks_are_still_judged(tmp_path):
    """A script stopped by a newer API (``torch.func`` on 1.13) is not applicable from there
    on; the causes it ran before are judged as on any release, the later ones are not called
    untested."""
    entries = with_causes(tmp_path, "leaf-inplace", LEAF_CAUSES)
    stopped_after_both = LEAF_SCRIPT.replace(
        "with torch.no_grad():\n    x += 1  # fix: plus-equals",
        "torch.amp.NoSuchScaler()\nwith torch.no_grad():\n    x += 1  # fix: plus-equals",
    )
    result = judged(tmp_path, entries, "leaf-inplace", stopped_after_both)
    assert result.status is Status.NOT_APPLICABLE, result.detail
    assert "untested" not in result.detail.lower()
    assert "not executed" not in result.detail
    # The same stop after a trigger that raises nothing: that trigger is judged, and fails.
    wrong_first = stopped_after_both.replace(
        "    x += 1  # cause: plus-equals",
        "    x[0:1].detach().requires_grad_()  # cause: plus-equals",
    )
    wrong = judged(tmp_path, entries, "leaf-inplace", wrong_first)
    assert wrong.status is not Status.NOT_APPLICABLE, wrong.detail
    assert "cause 'plus-equals' (line 4)" in wrong.detail


def test_a_warning_a_release_adds_beside_the_expected_one_is_no_drift(tmp_path):
    """torch 2.1's checkpoint warns about use_reentrant before the entry's own warning."""
    entries = with_causes(tmp_path, "nonleaf-grad", NONLEAF_CAUSE)
    script = NONLEAF_SCRIPT.replace(
        "    print(y.grad)  # cause: read-intermediate",
        '    warnings.warn("a warning this release adds, that no entry knows")\n'
        "    print(y.grad)  # cause: read-intermediate",
    )
    result = judged(tmp_path, entries, "nonleaf-grad", script)
    assert result.status is Status.OK, result.detail
    # Alone, in place of the entry's own warning, it is drift.
    alone = NONLEAF_SCRIPT.replace(
        "    print(y.grad)  # cause: read-intermediate",
        '    warnings.warn("a warning this release adds, that no entry knows")  '
        "# cause: read-intermediate",
    )
    assert judged(tmp_path, entries, "nonleaf-grad", alone).status is Status.DRIFT
