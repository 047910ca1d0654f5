"""What adding an entry costs: a record and a script, and the reference release's recording.

A throw-away entry is added to temporary copies of the catalog and the gallery (the loaders take
their directories as arguments); the checks the suite makes of every entry then ask for nothing
but the reference recording, and once that holds the new entry, for nothing at all. Older
recordings are left as they are: they may lack newer entries.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from helpers import REPO

from autograd_errors import catalog, gallery, observations, verify
from autograd_errors.verify import Status

REFERENCE = observations.reference_release(str(REPO / "constraints.txt"))
NEW_ID = "throwaway-view-size"

# A real torch message that no entry of the catalog explains (not an autograd one: the
# throw-away entry exists only in this test's copies).
MESSAGE = "shape '{shape}' is invalid for input of size {size}"
RECORD = f"""\
title = "Viewing a tensor as a shape of another size"
exception = "RuntimeError"
section = "leaves"
cause = "A view keeps the number of elements."
fix = "View it as a shape with as many elements."

[[wording]]
variant = "current"
message = "{MESSAGE}"
since = "2.0.0"
source = "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/InferSize.h"
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
    x.view(3)  # broken
except RuntimeError as error:
    print(error)

y = x.view(2, 1)  # fixed
y.sum().backward()
torch.testing.assert_close(x.grad, torch.ones(2))
'''


def suite_problems(
    entries: catalog.Catalog, gallery_dir: Path, recordings: list[observations.Recording]
) -> list[str]:
    """Everything the suite's data checks ask of the entries, as one list."""
    found = gallery.scripts(str(gallery_dir))
    return [
        *(problem for _, problem in gallery.correspondence_problems(entries, found)),
        *observations.source_problems(entries),
        *(problem for entry in entries for problem in catalog.form_overlaps(entry)),
        *observations.consistency_problems(entries, recordings),
        *observations.completeness_problems(entries, recordings, REFERENCE),
    ]


def test_a_new_entry_needs_a_record_a_script_and_the_reference_recording(tmp_path):
    entries_dir = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries_dir)
    (entries_dir / f"{NEW_ID}.toml").write_text(RECORD)
    gallery_dir = tmp_path / "gallery"
    shutil.copytree(REPO / "gallery", gallery_dir)
    (gallery_dir / "leaves" / f"{NEW_ID}.py").write_text(textwrap.dedent(SCRIPT))
    observed = tmp_path / "observed"
    shutil.copytree(REPO / "data" / "observed", observed)
    entries = catalog.load(str(entries_dir), use_cache=False)

    recordings = observations.load_recordings(str(observed))
    assert suite_problems(entries, gallery_dir, recordings) == [
        f"torch {REFERENCE}: {NEW_ID} is not recorded; run `make record`"
    ]

    # `make record` adds the new entry's run to the reference recording.
    (script,) = [s for s in gallery.scripts(str(gallery_dir)) if s.entry_id == NEW_ID]
    judged = verify.run_all(entries, [script])
    assert [result.status for result, _ in judged] == [Status.OK], judged[0][0].detail
    path = observations.recording_path(str(observed), REFERENCE)
    data = json.loads(Path(path).read_text())
    data["entries"].update(observations.recording_data(entries, judged, REFERENCE)["entries"])
    observations.write_recording(path, data)

    recordings = observations.load_recordings(str(observed))
    assert suite_problems(entries, gallery_dir, recordings) == []
    older = [r for r in recordings if r.release != REFERENCE]
    assert older
    assert all(NEW_ID not in recording.entries for recording in older)


def test_an_older_recording_that_lacks_an_entry_is_consistent():
    recordings = observations.load_recordings(str(REPO / "data" / "observed"))
    (oldest, *_) = recordings
    entries = catalog.load(use_cache=False)
    some_id = next(iter(oldest.entries))
    del oldest.entries[some_id]
    assert observations.consistency_problems(entries, [oldest]) == []
    # The reference release may not lack one.
    (reference,) = [r for r in recordings if r.release == REFERENCE]
    del reference.entries[some_id]
    assert observations.completeness_problems(entries, [reference], REFERENCE) == [
        f"torch {REFERENCE}: {some_id} is not recorded; run `make record`"
    ]
