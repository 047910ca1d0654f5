"""Generated pastes: the browser's matcher and the Python one agree on each (see
``tests/pastes.py``, and the unit tests' properties of the Python matcher)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pastes import PASTES, TRACEBACKS
from test_matcher_js import NODE_RUNNER, python_result

from autograd_errors import catalog
from autograd_errors.browser import export

CATALOG = catalog.load(use_cache=False)


@pytest.fixture(scope="module")
def node_matcher(tmp_path_factory):
    """One Node process running the browser's matcher, answering one paste per line."""
    node = shutil.which("node")
    assert node, "Node.js is needed to test the browser matcher (apt-get install nodejs)"
    catalog_file = tmp_path_factory.mktemp("js") / "catalog.json"
    catalog_file.write_text(json.dumps(export.catalog_json(CATALOG)))
    process = subprocess.Popen(
        [node, str(NODE_RUNNER), str(catalog_file), "--stream"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
    )

    def run(text: str) -> dict:
        assert process.stdin
        assert process.stdout
        process.stdin.write(json.dumps(text) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield run
    assert process.stdin
    process.stdin.close()
    process.wait(timeout=30)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(PASTES)
def test_both_matchers_agree_on_generated_pastes(node_matcher, paste):
    assert node_matcher(paste) == python_result(paste)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_both_matchers_agree_on_generated_unicode(node_matcher, text):
    assert node_matcher(text) == python_result(text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(TRACEBACKS)
def test_both_read_the_same_frames_and_choose_the_same_cause(node_matcher, paste):
    assert node_matcher(paste) == python_result(paste)
