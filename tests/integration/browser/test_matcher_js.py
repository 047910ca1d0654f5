"""One matcher, two languages: the browser's JavaScript matcher and the Python one give the
same answers on the same pastes, and both give the expected ones."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import textwrap

import pytest
from helpers import MESSAGES_2_13, REPO, answer_json, load_data
from realruns import CASES, answer_vectors, problems, recorded, vector_problems

from autograd_errors import catalog
from autograd_errors.browser import export

CATALOG = catalog.load(use_cache=False)
VECTORS = load_data("matcher-vectors.json")["vectors"]
#: What real runs printed (tests/realruns.py), and the answer's vectors: the contract of the
#: answer, held by both matchers (tests/unit/matcher/ holds the Python one to it too).
RUNS = {run["name"]: run["text"] for run in recorded()["runs"]}
ANSWER_VECTORS = answer_vectors()
NODE_RUNNER = REPO / "tests" / "js" / "run-matcher.cjs"


def all_pastes() -> list[str]:
    pastes = [vector["text"] for vector in VECTORS]
    pastes += [RUNS[case.name] for case in CASES]  # at len(VECTORS) + the case's index
    pastes += [vector["text"] for vector in ANSWER_VECTORS]  # then the answer's vectors
    for message_of in MESSAGES_2_13.values():
        prefixed = f"{message_of['exception']}: {message_of['message']}"
        pastes += [
            message_of["message"],
            prefixed,
            textwrap.fill(prefixed, 80),
            message_of["cuda"]["message"],
        ]
    pastes += [paste["text"] for paste in load_data("real-pastes.json")["pastes"]]
    pastes += [error["text"] for error in load_data("not-autograd.json")["errors"]]
    for sample in sorted((REPO / "benchmarks" / "data").glob("recognition-pastes*.json")):
        pastes += [paste["text"] for paste in json.loads(sample.read_text("utf-8"))["pastes"]]
    for entry in CATALOG:
        pastes += [wording.example for wording in entry.wordings]
        pastes += [entry.title, *entry.symptoms]  # a pitfall found by its symptom words
    return pastes + SYMPTOM_PASTES


#: How users meet a silent pitfall (matcher/symptoms.py), and the same errors elsewhere.
SYMPTOM_PASTES = [
    "Calling p.grad.data.zero_() at the first step raises "
    "\"AttributeError: 'NoneType' object has no attribute 'data'\" for me.",
    "Calling self.gradients.data.cpu() raises "
    "\"AttributeError: 'NoneType' object has no attribute 'data'\" for me.",
    # https://github.com/wiseodd/generative-models/issues/26
    '  File "infogan_pytorch.py", line 86, in reset_grad\n    p.grad.data.zero_()\n'
    "AttributeError: 'NoneType' object has no attribute 'data'",
    # https://github.com/pkmr06/pytorch-smoothgrad/issues/5, IPython's arrow
    "---> 47         x.grad.data.zero_()  # Reset the gradient to zero\n     48 \n\n"
    "AttributeError: 'NoneType' object has no attribute 'data'",
    "    w -= lr * w.grad\nTypeError: unsupported operand type(s) for *: 'float' and 'NoneType'",
    "    g = w.grad[0]\n    ^^^^^^^^^\nTypeError: 'NoneType' object is not subscriptable",
    # https://github.com/utkuozbulak/pytorch-cnn-visualizations/issues/92: not .grad
    "gradients_as_array = self.gradients.data.cpu().numpy()[0]\n"
    "AttributeError: 'NoneType' object has no attribute 'data'",
    "    fn = y.grad_fn.next_functions\n"
    "AttributeError: 'NoneType' object has no attribute 'next_functions'",
    # told without its class (https://github.com/ssnl/dataset-distillation/issues/61), and
    # beside another attribute
    "I got an error in d.grad.add_(g). It says 'NoneType' object has no attribute 'add_'.",
    'the code "value.grad.data.cpu().numpy()", \nerror raises : Nonetype Object has no attribute',
    "I call self.gradients.data.cpu() and it says 'NoneType' object has no attribute 'data'",
    # other programs' words for a NaN loss, and what is not one
    "FloatingPointError: Loss became infinite or NaN at iteration=27!\nloss_dict = {}",
    "Loss is nan, stopping training",
    "[38/300000] lr: 0.1 train_loss: nan\n[39/300000] lr: 0.1 train_loss: NaN",
    "epoch 3 loss: nan\nValueError: Input contains NaN, infinity or a value too large",
    "loss: nanoseconds per step: 12",
    "step:1 - critic/vf_loss:nan - critic/vpred_mean:nan - critic/grad_norm:nan",
    "{'loss': 1.4681, 'grad_norm': nan, 'learning_rate': 6.22e-10, 'epoch': 0.0}",
    "Epoch: [0][1170/1200]\tLoss nan (nan)",
    "grad_norm grows.\n\nAt the same time:\n- loss can still decrease,",
    "specify retain_graph=True",
    "IndexError: index out of range in self\n<ipython-input-31-34e> in <module>()\n"
    "     31       # try:\n---> 32       outputs = model(**inputs)\n",
    "I am training FasterRCNN with my customized dataset, and nan loss occurs when training.",
    "Why is my param.grad None after loss.backward()?",
    "AssertionError: grad should not be None",
    "loss becomes nan after a few epochs",
    "GPU memory keeps increasing every iteration",
    "grad is None\n"
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
]


def python_result(text: str) -> dict:
    """What the Python matcher finds, in the shape tests/js/run-matcher.cjs prints."""
    return answer_json(text, CATALOG)


def python_results(pastes: list[str]) -> list[dict]:
    return [python_result(text) for text in pastes]


@pytest.fixture(scope="module")
def js_and_python(tmp_path_factory):
    node = shutil.which("node")
    assert node, "Node.js is needed to test the browser matcher (apt-get install nodejs)"
    scratch = tmp_path_factory.mktemp("js")
    catalog_file = scratch / "catalog.json"
    catalog_file.write_text(json.dumps(export.catalog_json(CATALOG)))
    pastes = all_pastes()
    (scratch / "pastes.json").write_text(json.dumps(pastes))
    run = subprocess.run(
        [node, str(NODE_RUNNER), str(catalog_file), str(scratch / "pastes.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return pastes, json.loads(run.stdout), python_results(pastes)


def test_both_matchers_agree_on_every_paste(js_and_python):
    pastes, from_js, from_python = js_and_python
    assert len(from_js) == len(pastes)
    disagreements = [
        (paste[:120], js, py)
        for paste, js, py in zip(pastes, from_js, from_python, strict=True)
        if js != py
    ]
    assert disagreements == []


@pytest.mark.parametrize("index", range(len(VECTORS)), ids=[v["name"] for v in VECTORS])
def test_vectors(js_and_python, index):
    vector = VECTORS[index]
    _, from_js, from_python = js_and_python
    for language, results in (("javascript", from_js), ("python", from_python)):
        found = results[index]
        assert [m["id"] for m in found["matches"]] == vector["ids"], language
        if vector["ids"]:
            first = found["matches"][0]
            if vector["variant"] is not None:  # None: a fragment several wordings hold
                assert first["variant"] == vector["variant"], language
            assert first["fields"] == vector["fields"], language
            if "score" in vector or vector.get("kind", "exact") == "exact":
                assert first["score"] == vector.get("score", 1.0), language
            else:
                assert 0 < first["score"] < 1, language
        assert [miss[0] for miss in found["near_misses"]] == vector.get("near_misses", []), language
        assert found["not_autograd"] == vector.get("not_autograd"), language
        raiser = found["raised_by"]
        read = raiser and [raiser["file"].rsplit("/", 1)[-1], raiser["line"], raiser["code"]]
        assert read == vector.get("raised_by"), language
        assert found["context_only"] == vector.get("context_only", False), language
        assert found["described"] == vector.get("described", False), language
        if vector["ids"]:
            assert first["kind"] == vector.get("kind", "exact"), language


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case.name for case in CASES])
def test_a_real_run_gets_the_same_line_and_cause_in_both(js_and_python, index):
    _, from_js, from_python = js_and_python
    at = len(VECTORS) + index
    case = CASES[index]
    assert problems(case, from_js[at]) == [], "javascript"
    assert problems(case, from_python[at]) == [], "python"


@pytest.mark.parametrize(
    "index", range(len(ANSWER_VECTORS)), ids=[vector["name"] for vector in ANSWER_VECTORS]
)
def test_the_answer_vectors_in_both(js_and_python, index):
    _, from_js, from_python = js_and_python
    at = len(VECTORS) + len(CASES) + index
    vector = ANSWER_VECTORS[index]
    assert vector_problems(vector, from_js[at]) == [], "javascript"
    assert vector_problems(vector, from_python[at]) == [], "python"


def test_the_export_is_small_and_complete():
    data = json.dumps(export.catalog_json(CATALOG), separators=(",", ":"))
    exported = {entry["id"] for entry in json.loads(data)["entries"]}
    assert exported == {entry.id for entry in CATALOG if not entry.is_pitfall}
    with_symptoms = {e.id for e in CATALOG if e.symptoms or e.symptom_errors}
    assert {entry["id"] for entry in json.loads(data)["symptoms"]} == with_symptoms
    # What a visitor downloads, once: the site is served compressed by any static host. The
    # page shows each entry's causes, fixes and why, so the export grows with the catalog: the
    # budget is per entry (91 entries, 274 causes: 342 kB, 90 kB gzipped on 2026-12-03).
    entries = len(CATALOG)
    assert len(data.encode()) < 4_000 * entries
    assert len(gzip.compress(data.encode())) < 1_100 * entries
