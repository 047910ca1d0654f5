"""What adding an entry costs: a record and a script, and the reference release's recording.

A throw-away entry is added to temporary copies of the catalog and the gallery (the loaders take
their directories as arguments); every rule the suite holds the entries to
(:mod:`autograd_errors.verification.consistency`, stage by stage) then asks for nothing but the
reference recording, and once that holds the new entry, for nothing at all. Older recordings
are left as they are: they may lack newer entries.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from helpers import REPO

from autograd_errors import catalog
from autograd_errors.catalog import stamps
from autograd_errors.verification import consistency, gallery, recordings, runner
from autograd_errors.verification.verdicts import Status

REFERENCE = recordings.reference_release(str(REPO / "constraints.txt"))
NEW_ID = "throwaway-view-size"

# A real torch message that no entry of the catalog explains (not an autograd one: the
# throw-away entry exists only in this test's copies).
MESSAGE = "shape '{shape}' is invalid for input of size {size}"
RECORD = f"""\
title = "Viewing a tensor as a shape of another size"
exception = "RuntimeError"
section = "leaves"
docs = ["https://docs.pytorch.org/docs/stable/tensor_view.html"]
cause = "A view keeps the number of elements."
fix = "View it as a shape with as many elements."

[[common_cause]]
id = "wrong-size"
text = "A shape whose sizes multiply to another number of elements."
fix = "Give a shape with as many elements."

[[wording]]
variant = "current"
message = "{MESSAGE}"
since = "2.0.0"
source = "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/InferSize.h"

[zh_CN]
title = "把张量视为另一种大小的形状"
cause = "视图保持元素个数不变。"
fix = "把它视为元素个数相同的形状。"

[zh_CN.common_cause.wrong-size]
text = "形状各维大小的乘积与元素个数不同。"
fix = "给出元素个数相同的形状。"
"""

SCRIPT = '''\
"""
throwaway-view-size
===================

.. autograd-entry:: throwaway-view-size

.. autograd-entry-footer:: throwaway-view-size
"""

import torch

x = torch.ones(2, requires_grad=True)
try:
    x.view(3)  # broken  # cause: wrong-size
except RuntimeError as error:
    print(error)

y = x.view(2, 1)  # fixed  # fix: wrong-size
y.sum().backward()
torch.testing.assert_close(x.grad, torch.ones(2))
'''


def test_a_new_entry_needs_a_record_a_script_and_the_reference_recording(tmp_path):
    entries_dir = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries_dir)
    record = entries_dir / f"{NEW_ID}.toml"
    record.write_text(RECORD, encoding="utf-8")
    # `translations stamp`, once the Chinese is reviewed.
    unstamped = catalog.load(str(entries_dir), use_cache=False)[NEW_ID]
    record.write_text(stamps.stamped(RECORD, unstamped, "zh_CN"), encoding="utf-8")
    gallery_dir = tmp_path / "gallery"
    shutil.copytree(REPO / "gallery", gallery_dir)
    (gallery_dir / "leaves" / f"{NEW_ID}.py").write_text(textwrap.dedent(SCRIPT))
    observed = tmp_path / "observed"
    shutil.copytree(REPO / "data" / "observed", observed)
    project = consistency.Project(str(entries_dir), str(gallery_dir), str(observed), REFERENCE)

    assert consistency.problems(project) == [
        f"recorded: torch {REFERENCE}: {NEW_ID} is not recorded; run `make record`"
    ]

    # `make record` adds the new entry's run to the reference recording.
    entries = project.catalog
    (script,) = [s for s in gallery.scripts(str(gallery_dir)) if s.entry_id == NEW_ID]
    judged = runner.run_all(entries, [script])
    assert [result.status for result, _ in judged] == [Status.OK], judged[0][0].detail
    path = recordings.recording_path(str(observed), REFERENCE)
    data = json.loads(Path(path).read_text())
    data["entries"].update(recordings.recording_data(entries, judged, REFERENCE)["entries"])
    recordings.write_recording(path, data)

    recorded = consistency.Project(str(entries_dir), str(gallery_dir), str(observed), REFERENCE)
    assert consistency.problems(recorded) == []
    older = [r for r in recorded.recordings if r.release != REFERENCE]
    assert older
    assert all(NEW_ID not in recording.entries for recording in older)


def test_an_older_recording_that_lacks_an_entry_is_consistent():
    found = recordings.load_recordings(str(REPO / "data" / "observed"))
    (oldest, *_) = found
    entries = catalog.load(use_cache=False)
    some_id = next(iter(oldest.entries))
    del oldest.entries[some_id]
    assert consistency.consistency_problems(entries, [oldest]) == []
    # The reference release may not lack one.
    (reference,) = [r for r in found if r.release == REFERENCE]
    del reference.entries[some_id]
    assert consistency.completeness_problems(entries, [reference], REFERENCE) == [
        f"torch {REFERENCE}: {some_id} is not recorded; run `make record`"
    ]
