"""The blind samples ``benchmarks/recognition.py`` measures are well formed: each paste's label
names an entry of the catalog (or none), and says whether it quotes a message."""

from __future__ import annotations

import json

import pytest
from helpers import REPO

SAMPLES = sorted((REPO / "benchmarks" / "data").glob("recognition-pastes*.json"))


def test_there_are_samples():
    assert len(SAMPLES) >= 7


@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.name)
def test_every_paste_is_labelled(path, packaged_catalog):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["_about"]
    assert data["date"]
    sources = [paste["source"] for paste in data["pastes"]]
    assert len(set(sources)) == len(sources), "one paste per thread"
    for paste in data["pastes"]:
        assert {"source", "expected", "kind", "text"} <= set(paste), paste["source"]
        assert paste["kind"] in ("message", "prose"), paste["source"]
        assert paste["expected"] is None or paste["expected"] in packaged_catalog, paste
        assert paste["text"].strip(), paste["source"]


def test_no_thread_is_in_two_samples():
    seen: dict[str, str] = {}
    for path in SAMPLES:
        for paste in json.loads(path.read_text(encoding="utf-8"))["pastes"]:
            thread = paste["source"].split("#")[0].rstrip("/").lower()
            assert thread not in seen, (thread, seen.get(thread), path.name)
            seen[thread] = path.name
