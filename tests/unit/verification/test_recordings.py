"""The committed recordings of real torch releases agree with the catalog (no old torch needed)."""

from __future__ import annotations

import pytest
from helpers import REPO

from autograd_errors import catalog
from autograd_errors.catalog.releases import parse_release
from autograd_errors.verification import recordings

CATALOG = catalog.load(use_cache=False)
OBSERVED = REPO / "data" / "observed"
RECORDINGS = recordings.load_recordings(str(OBSERVED))
RELEASES = [recording.release for recording in RECORDINGS]
#: The release constraints.txt pins: its recording must hold every entry.
REFERENCE = recordings.reference_release(str(REPO / "constraints.txt"))


def test_the_issue_releases_are_recorded():
    assert {"1.13.1", "2.1.2", "2.13.0"} <= set(RELEASES)


def test_messages_are_recorded_without_build_specific_suffixes():
    message = recordings.clean_message(
        "The .grad attribute ... for more information. (Triggered internally at "
        "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
    )
    assert message == "The .grad attribute ... for more information."
    assert recordings.clean_message("Error detected in X. Traceback:\n  File ...") == (
        "Error detected in X. Traceback:"
    )


def test_a_recorded_import_error_loses_the_installation_folders():
    # A real ImportError of a package installed in this venv, as Python words it.
    with pytest.raises(ImportError) as caught:
        from hypothesis import NoSuchThing  # type: ignore[attr-defined]  # noqa: F401
    assert "site-packages" in str(caught.value)
    assert recordings.clean_message(str(caught.value)) == (
        "cannot import name 'NoSuchThing' from 'hypothesis' (hypothesis/__init__.py)"
    )
    windows = "(C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\utils\\checkpoint.py)"
    assert recordings.portable(windows) == "(torch\\utils\\checkpoint.py)"


def test_no_recording_holds_the_folders_of_the_machine_that_made_it():
    for path in sorted(OBSERVED.glob("*.json")):
        text = path.read_text("utf-8")
        assert "-packages/" not in text, path.name
        assert "-packages\\\\" not in text, path.name  # a Windows path, escaped in JSON


def test_releases_sort_numerically():
    assert sorted(RELEASES, key=parse_release) == RELEASES
