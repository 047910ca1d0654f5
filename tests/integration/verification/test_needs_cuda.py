"""Entries whose repro needs CUDA (``needs = "cuda"``): on a machine without it, ``check`` says
NEEDS-CUDA, apart from OK and from failures, and counts them on a line of its own. (The whole
`check` of an installed package with such an entry is in test_verify.py, beside the other runs
of an installed package.)"""

from __future__ import annotations

import shutil
import textwrap

import pytest
from helpers import without_causes
from test_verify import LEAF_REPRO

from autograd_errors import catalog
from autograd_errors.verification import environment, judge, runner, verdicts
from autograd_errors.verification.observer import run_script
from autograd_errors.verification.verdicts import Result, Status


def needing_cuda(tmp_path, entry_id: str) -> catalog.Catalog:
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / f"{entry_id}.toml"
    # The repro below triggers the entry without running its common causes.
    record.write_text('needs = "cuda"\n' + without_causes(record.read_text()))
    return catalog.load(str(entries), use_cache=False)


def test_without_cuda_an_entry_that_needs_it_is_not_verified(tmp_path, monkeypatch):
    entries = needing_cuda(tmp_path, "leaf-inplace")
    script = tmp_path / "leaf-inplace.py"
    script.write_text(textwrap.dedent(LEAF_REPRO))
    observation = run_script(str(script))
    monkeypatch.setattr(environment, "cuda_available", lambda: False)
    result = judge.judge(entries["leaf-inplace"], observation, entries)
    assert result.status is Status.NEEDS_CUDA
    assert result.detail == "the repro needs CUDA, which this machine lacks: it was not run"
    assert not result.status.passing
    assert not result.status.failing
    monkeypatch.setattr(environment, "cuda_available", lambda: True)
    assert judge.judge(entries["leaf-inplace"], observation, entries).status is Status.OK


def test_the_report_counts_unverified_entries_apart():
    results = [
        Result("leaf-inplace", Status.OK, "a message", "1 message(s) matched"),
        Result("data-not-tensor", Status.NEEDS_CUDA, "", verdicts.NEEDS_CUDA_DETAIL),
    ]
    assert runner.report_text(results, "2.13.0").splitlines()[-2:] == [
        "1 entry could not be verified here: need CUDA",
        "all others pass",
    ]
    failing = [*results, Result("nonleaf-grad", Status.DRIFT, "other", "a diff")]
    assert runner.report_text(failing, "2.13.0").splitlines()[-2:] == [
        "1 entry could not be verified here: need CUDA",
        "1 entry failed",
    ]


def test_needs_names_known_hardware(tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "leaf-inplace.toml"
    record.write_text('needs = "gpu"\n' + record.read_text())
    with pytest.raises(catalog.CatalogError) as refused:
        catalog.load(str(entries), use_cache=False)
    assert str(refused.value) == "leaf-inplace.toml: needs 'gpu' is not one of cuda"
