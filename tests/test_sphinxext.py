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
