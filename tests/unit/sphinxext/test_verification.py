"""The Sphinx glue's build-time verification, without a build: the fingerprint that decides
when every script runs again, and the verdict files."""

from __future__ import annotations

from autograd_errors import catalog
from autograd_errors.sphinxext import verification
from autograd_errors.verification import environment
from autograd_errors.verification.verdicts import Result, Status

CATALOG = catalog.load(use_cache=False)


def test_a_new_torch_changes_the_fingerprint(monkeypatch):
    """Each torch release raises its own wordings: the scripts must run again under a new one."""
    monkeypatch.setattr(environment, "torch_version", lambda: "2.13.0+cpu")
    before = verification.fingerprint()
    assert verification.fingerprint() == before
    monkeypatch.setattr(environment, "torch_version", lambda: "2.14.1+cpu")
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


def test_a_kept_observation_serves_only_its_script_and_its_run(tmp_path, monkeypatch):
    """A changed catalog judges again what a script did, without running it (a reworded
    record fails the build in seconds); a changed script, torch or watching code runs it."""
    from autograd_errors.verification.judge import judge
    from autograd_errors.verification.observer import run_script

    monkeypatch.setattr(environment, "torch_version", lambda: "2.13.0+cpu")
    entry = CATALOG["leaf-inplace"]
    script = tmp_path / "leaf-inplace.py"
    script.write_text(
        "import torch\nx = torch.ones(2, requires_grad=True)\ntry:\n    x.add_(1)\n"
        "except RuntimeError as error:\n    print(error)\n"
    )
    observed = run_script(str(script))
    run = verification.run_fingerprint()
    verification._store_observation(tmp_path, entry, observed, str(script), run)
    copied = tmp_path / "copy" / "leaf-inplace.py"  # a copy of the project: same script
    copied.parent.mkdir()
    copied.write_bytes(script.read_bytes())
    kept = verification._stored_observation(tmp_path, entry, str(copied), run)
    assert kept is not None
    assert kept.path == str(copied)
    assert kept.as_dict() == {**observed.as_dict(), "path": str(copied)}
    assert judge(entry, kept, CATALOG).as_dict() == judge(entry, observed, CATALOG).as_dict()
    monkeypatch.setattr(environment, "torch_version", lambda: "2.14.1+cpu")
    assert verification.run_fingerprint() != run
    assert verification._stored_observation(tmp_path, entry, str(script), "other run") is None
    script.write_text(script.read_text() + "\n# changed\n")
    assert verification._stored_observation(tmp_path, entry, str(script), run) is None


def test_releases_recorded_before_an_entry_existed_show_not_recorded():
    from helpers import REPO

    from autograd_errors.sphinxext.directives import matrix_label, release_groups
    from autograd_errors.verification.recordings import load_recordings

    recordings = load_recordings(str(REPO / "data" / "observed"))
    entry = CATALOG["data-not-tensor"]
    for recording in recordings[:2]:  # as if the entry were added after those two releases
        del recording.entries[entry.id]
    assert matrix_label(recordings[0], entry) == ("\u2013", "not recorded")
    assert matrix_label(recordings[0], entry, "zh_CN") == ("\u2013", "未记录")
    assert matrix_label(recordings[-1], entry) == ("C", "wording current")
    groups = release_groups(entry, recordings)
    assert groups[0] == ([r.release for r in recordings[:2]], None, None)
    assert groups[1][0][0] == recordings[2].release
    assert groups[1][1] == "TypeError: Variable data has to be a tensor, but got int"


# What sphinx-gallery 0.22 writes at the top of an example's page (docs/errors/.../<id>.rst).
GALLERY_PAGE_TOP = """
.. DO NOT EDIT.
.. "errors/inplace/inplace-modified.py"

.. only:: html

    .. note::
        :class: sphx-glr-download-link-note

        :ref:`Go to the end <sphx_glr_download_errors_inplace_inplace-modified.py>`
        to download the full example code.

.. rst-class:: sphx-glr-example-title

.. _sphx_glr_errors_inplace_inplace-modified.py:


inplace-modified
================

.. autograd-entry:: inplace-modified

Saved tensors and version counters
----------------------------------
"""


def test_an_entry_page_is_headed_by_its_title_without_the_download_note():
    from autograd_errors.sphinxext.pages import retitle_source

    title = "A tensor saved for backward was modified in place"
    assert CATALOG["inplace-modified"].title == title
    assert retitle_source(GALLERY_PAGE_TOP, CATALOG["inplace-modified"]) == (
        """
.. DO NOT EDIT.
.. "errors/inplace/inplace-modified.py"

.. rst-class:: sphx-glr-example-title

.. _sphx_glr_errors_inplace_inplace-modified.py:


A tensor saved for backward was modified in place
=================================================

.. autograd-entry:: inplace-modified

Saved tensors and version counters
----------------------------------
"""
    )


def test_a_feedback_link_is_githubs_new_issue_form_filled_in():
    import urllib.parse

    from autograd_errors.sphinxext.pages import new_issue_url

    url = urllib.parse.urlparse(
        new_issue_url("https://github.com/o/r", "Wrong match: a & b", "line 1\n```\n#x?")
    )
    assert (url.netloc, url.path) == ("github.com", "/o/r/issues/new")
    assert urllib.parse.parse_qs(url.query) == {
        "title": ["Wrong match: a & b"],
        "body": ["line 1\n```\n#x?"],
    }


def test_the_repository_must_be_set_in_conf_py():
    import types

    import pytest
    from sphinx.errors import ConfigError

    from autograd_errors.sphinxext.pages import require_repository

    with pytest.raises(ConfigError, match=r"set autograd_errors_repository in conf\.py"):
        require_repository(None, types.SimpleNamespace(autograd_errors_repository=""))
    require_repository(None, types.SimpleNamespace(autograd_errors_repository="https://x/y"))
