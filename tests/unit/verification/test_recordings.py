"""The committed recordings of real torch releases agree with the catalog (no old torch needed)."""

from __future__ import annotations

import json
import sys

import pytest
from helpers import REPO

from autograd_errors import catalog
from autograd_errors.catalog.releases import parse_release
from autograd_errors.verification import consistency, recordings
from autograd_errors.verification.verdicts import Status

CATALOG = catalog.load(use_cache=False)
OBSERVED = REPO / "data" / "observed"
RECORDINGS = recordings.load_recordings(str(OBSERVED))
RELEASES = [recording.release for recording in RECORDINGS]
#: The release constraints.txt pins: its recording must hold every entry.
REFERENCE = recordings.reference_release(str(REPO / "constraints.txt"))


def test_the_issue_releases_are_recorded():
    assert {"1.13.1", "2.1.2", "2.13.0"} <= set(RELEASES)


def test_the_reference_recording_holds_every_entry_and_each_passes():
    assert consistency.completeness_problems(CATALOG, RECORDINGS, REFERENCE) == []
    (reference,) = [r for r in RECORDINGS if r.release == REFERENCE]
    assert set(reference.entries) == set(CATALOG.ids)


@pytest.mark.parametrize("recording", RECORDINGS, ids=RELEASES)
def test_every_recorded_entry_passes(recording):
    failing = {
        entry_id: observed["status"]
        for entry_id, observed in recording.entries.items()
        if Status(observed["status"]).failing
    }
    assert failing == {}


@pytest.mark.parametrize("recording", RECORDINGS, ids=RELEASES)
def test_recorded_messages_match_their_entry_and_a_wording_of_that_release(recording):
    assert consistency.consistency_problems(CATALOG, [recording]) == []


def test_the_reference_release_raises_every_active_entry():
    (reference,) = [r for r in RECORDINGS if r.release == REFERENCE]
    for entry in CATALOG:
        if entry.is_pitfall or entry.retired:
            continue
        if entry.needs == "cuda":  # not run where the reference recording is made: said so
            assert Status(reference.entries[entry.id]["status"]) is Status.NEEDS_CUDA
            continue
        assert reference.message(entry), entry.id
        assert Status(reference.entries[entry.id]["status"]) is Status.OK


def test_every_wording_cites_a_source():
    assert consistency.source_problems(CATALOG) == []


def test_wordings_of_one_form_never_claim_the_same_release():
    assert [p for entry in CATALOG for p in catalog.form_overlaps(entry)] == []


def test_a_wording_claiming_a_release_that_printed_another_is_reported(tmp_path):
    """Rules 2 and 3 at work: backward-twice's 1.13.1 recording against a catalog that says
    1.13.1 still printed the 'saved-variables' wording (1.9 only) and 'current' began later."""
    entries = tmp_path / "entries"
    entries.mkdir()
    for path in (REPO / "src" / "autograd_errors" / "entries").glob("*.toml"):
        (entries / path.name).write_text(path.read_text())
    record = entries / "backward-twice.toml"
    text = record.read_text()
    text = text.replace('since = "1.9.0"\nuntil = "1.9.1"', 'since = "1.9.0"\nuntil = "1.13.1"')
    text = text.replace('since = "1.10.0"', 'since = "2.0.0"', 1)
    record.write_text(text)
    edited = catalog.load(str(entries), use_cache=False)
    (old,) = [r for r in RECORDINGS if r.release == "1.13.1"]
    message = f"RuntimeError: {old.message(edited['backward-twice'])}"
    # Both repros of the entry (calling backward twice, the recurrent cell) print the message.
    assert sorted(set(consistency.consistency_problems(edited, [old]))) == [
        "torch 1.13.1: backward-twice wording 'current' claims torch 2.0.0 and later, but "
        f"1.13.1 printed it: {message}",
        "torch 1.13.1: backward-twice wording 'saved-variables' claims 1.13.1, which printed "
        f"'current' instead: {message}",
    ]


def test_a_recorded_release_outside_its_wordings_range_is_reported():
    data = json.loads((OBSERVED / "torch-2.1.2.json").read_text())
    data["torch"] = "2.13.0"  # pretend 2.13.0 printed 2.1.2's in-place hint
    problems = consistency.consistency_problems(CATALOG, [recordings.Recording(data)])
    assert any(
        "inplace-modified wording 'anomaly-hint' claims torch 1.1.0 to 2.10.0, but 2.13.0 "
        "printed it" in problem
        for problem in problems
    )


def test_messages_are_recorded_without_build_specific_suffixes():
    message = recordings.clean_message(
        "The .grad attribute ... for more information. (Triggered internally at "
        "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
    )
    assert message == "The .grad attribute ... for more information."
    assert recordings.clean_message("Error detected in X. Traceback:\n  File ...") == (
        "Error detected in X. Traceback:"
    )


def test_record_writes_this_release(cli, tmp_path):
    import torch

    result = cli("record", "--output", str(tmp_path), timeout=600)
    assert result.returncode == 0, result.stderr.decode()
    (written,) = tmp_path.iterdir()
    assert written.name == f"torch-{recordings.public_release(torch.__version__)}.json"
    data = json.loads(written.read_text())
    assert data["torch"] == torch.__version__
    assert data["python"] == ".".join(map(str, sys.version_info[:3]))
    assert set(data["entries"]) == set(CATALOG.ids)
    committed = json.loads((OBSERVED / written.name).read_text())
    assert {k: v["status"] for k, v in data["entries"].items()} == {
        k: v["status"] for k, v in committed["entries"].items()
    }


def test_releases_sort_numerically():
    assert sorted(RELEASES, key=parse_release) == RELEASES
