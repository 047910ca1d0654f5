"""The Sphinx glue's build-time verification, without a build: the fingerprint that decides
when every script runs again, and the verdict files."""

from __future__ import annotations

from autograd_errors import catalog, verify
from autograd_errors.sphinxext import verification
from autograd_errors.verify import Result, Status

CATALOG = catalog.load(use_cache=False)


def test_a_new_torch_changes_the_fingerprint(monkeypatch):
    """Each torch release raises its own wordings: the scripts must run again under a new one."""
    monkeypatch.setattr(verify, "torch_version", lambda: "2.13.0+cpu")
    before = verification.fingerprint()
    assert verification.fingerprint() == before
    monkeypatch.setattr(verify, "torch_version", lambda: "2.14.1+cpu")
    assert verification.fingerprint() != before


def test_a_verdict_is_read_back_as_written(tmp_path):
    entry = CATALOG["leaf-inplace"]
    assert verification.read_verdict(tmp_path, entry) is None
    written = Result(entry.id, Status.DRIFT, "the message", "line 1\nline 2")
    verification.write_verdict(tmp_path, entry, written)
    assert verification.verdict_file(tmp_path, entry) == (
        tmp_path / "errors" / "inplace" / "leaf-inplace.check.json"
    )
    read = verification.read_verdict(tmp_path, entry)
    assert read is not None
    assert read.as_dict() == written.as_dict()
    assert read.status is Status.DRIFT


def test_releases_recorded_before_an_entry_existed_show_not_recorded():
    from helpers import REPO

    from autograd_errors import observations
    from autograd_errors.sphinxext.directives import NOT_RECORDED, matrix_label, release_groups

    recordings = observations.load_recordings(str(REPO / "data" / "observed"))
    entry = CATALOG["data-not-tensor"]
    for recording in recordings[:2]:  # as if the entry were added after those two releases
        del recording.entries[entry.id]
    assert matrix_label(recordings[0], entry) == ("\u2013", NOT_RECORDED)
    assert NOT_RECORDED == "not recorded"
    assert matrix_label(recordings[-1], entry) == ("C", "wording current")
    groups = release_groups(entry, recordings)
    assert groups[0] == ([r.release for r in recordings[:2]], None, None)
    assert groups[1][0][0] == recordings[2].release
    assert groups[1][1] == "TypeError: Variable data has to be a tensor, but got int"
