"""The answer's contract on the Python side (``tests/data/answer-vectors.json``, and what real
runs printed with their expectations in ``tests/realruns.py``); the browser's matcher is held
to the same in ``tests/integration/browser/test_matcher_js.py``."""

from __future__ import annotations

import pytest
from helpers import answer_json
from realruns import CASES, answer_vectors, problems, recorded, vector_problems

from autograd_errors import catalog

CATALOG = catalog.load(use_cache=False)
RUNS = {run["name"]: run["text"] for run in recorded()["runs"]}
VECTORS = answer_vectors()


@pytest.mark.parametrize("vector", VECTORS, ids=[vector["name"] for vector in VECTORS])
def test_the_answer_uses_what_the_paste_says(vector):
    assert vector_problems(vector, answer_json(vector["text"], CATALOG)) == []


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_real_run_meets_the_contract(case):
    assert problems(case, answer_json(RUNS[case.name], CATALOG)) == []


def test_the_contract_fails_a_wrong_answer():
    # The checks are not vacuous: the right answer of one paste is wrong for another.
    lstsq, ddp = VECTORS[0], VECTORS[1]
    assert vector_problems(lstsq, answer_json(ddp["text"], CATALOG)) != []
    wrapped = next(case for case in CASES if case.name == "wrapped")
    assert problems(wrapped, answer_json(RUNS["manual_sgd"], CATALOG)) != []
