"""What real runs printed (``tests/data/real-runs.json``, recorded by ``tests/realruns.py``) and
real pastes from threads: the user's line is the line that failed, the cause is the one the
paste supports, and every sign of every cause of the catalog is seen in one of them."""

from __future__ import annotations

import json

import pytest
from helpers import REPO, load_data
from realruns import CASES, recorded

from autograd_errors import catalog
from autograd_errors.matcher.matching import find_entries, with_derived_fields

CATALOG = catalog.load(use_cache=False)
RUNS = {run["name"]: run for run in recorded()["runs"]}
PASTES = load_data("real-pastes.json")["pastes"]
REFERENCE = json.loads((REPO / "data" / "observed" / "torch-2.13.0.json").read_text("utf-8"))


def test_every_case_was_recorded_as_it_is_run_now():
    assert [(case.name, case.how) for case in CASES] == [
        (name, run["how"]) for name, run in RUNS.items()
    ]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_real_run_gets_its_line_and_its_cause(case):
    found = find_entries(RUNS[case.name]["text"], CATALOG)
    assert found.matches, case.name
    first = found.matches[0]
    assert first.entry.id == case.entry
    frame = first.located.frame
    if case.frame is None:
        assert frame is None
    else:
        assert frame is not None
        name, line, code = case.frame
        assert (frame.file.replace("\\", "/").rsplit("/", 1)[-1], frame.line, frame.code) == (
            name,
            line,
            code,
        )
        assert frame.cell == case.cell
    assert first.cause is not None
    assert first.cause.cause_id == case.cause, case.note
    kinds = sorted(f"{e.kind} near" if e.near else e.kind for e in first.cause.evidence)
    assert kinds == sorted(case.evidence)


def real_texts() -> list[str]:
    """Every real text the suite holds: the recorded runs, the threads' pastes, and what the
    reference release raised for each gallery script."""
    texts = [run["text"] for run in RUNS.values()] + [paste["text"] for paste in PASTES]
    for observed in REFERENCE["entries"].values():
        texts += [f"{e['exception']}: {e['message']}" for e in observed["events"]]
    return texts


def signs_of_the_catalog() -> list[tuple[str, str, str, str]]:
    """``(entry, cause, kind, sign)`` for every sign: each code sign, file part, form, and
    ``field=prefix``."""
    found = []
    for entry in CATALOG:
        for cause in entry.causes:
            signs = cause.signs
            found += [(entry.id, cause.id, "code", sign) for sign in signs.code]
            found += [(entry.id, cause.id, "file", part) for part in signs.files]
            found += [(entry.id, cause.id, "form", form) for form in signs.forms]
            found += [
                (entry.id, cause.id, "field", f"{name}={prefix}")
                for name, prefixes in signs.fields.items()
                for prefix in prefixes
            ]
    return found


def seen_signs() -> set[tuple[str, str, str, str]]:
    """The signs that led a real text's answer to its cause, as :func:`signs_of_the_catalog`
    names them."""
    seen = set()
    for text in real_texts():
        for match in find_entries(text, CATALOG).matches:
            choice = match.cause
            if choice is None:
                continue
            cause = next(c for c in match.entry.causes if c.id == choice.cause_id)
            values = with_derived_fields(match.fields)
            for found in choice.evidence:
                if found.kind == "form":
                    sign = match.entry.wording(found.sign).form
                elif found.kind == "field":
                    name = found.sign.partition("=")[0]
                    sign = next(
                        f"{name}={prefix}"
                        for prefix in cause.signs.fields[name]
                        if values[name].lower().startswith(prefix.lower())
                    )
                else:
                    sign = found.sign
                seen.add((match.entry.id, choice.cause_id, found.kind, sign))
    return seen


def test_every_sign_of_every_cause_leads_a_real_paste_to_its_cause():
    seen = seen_signs()
    assert [sign for sign in signs_of_the_catalog() if sign not in seen] == []


# The new user's trial (2026-12-01), problems 1 and 9, and the threads' pastes.


def answer_of(text: str):
    found = find_entries(text, CATALOG)
    return found.matches[0], found.matches[0].cause


def test_a_loss_computed_under_no_grad_is_never_told_checkpointing_under_lora():
    _, cause = answer_of(RUNS["eval_then_train"]["text"])
    assert cause is not None
    assert cause.cause_id != "reentrant-checkpoint"
    assert cause.evidence == ()  # nothing in the paste says which: the most common


def test_a_reduction_none_loss_is_never_told_dataparallel():
    for name in ("per_sample_loss", "cell_per_sample"):
        _, cause = answer_of(RUNS[name]["text"])
        assert cause is not None
        assert cause.cause_id == "unreduced-loss", name


def test_a_reinitialised_head_gets_the_nn_parameter_fix():
    match, cause = answer_of(RUNS["reinit_head"]["text"])
    assert cause is not None
    fix = cause.cause(match.entry.causes).fix
    assert "nn.Parameter(values)" in fix
    assert "copy_" in fix.split("with the same shape", 1)[1]  # copy_ only for the same shape


def test_linalg_lstsq_gets_no_cause_of_other_functions():
    paste = "NotImplementedError: the derivative for 'linalg_lstsq' is not implemented."
    match, cause = answer_of(paste)
    assert match.entry.id == "derivative-not-implemented"
    assert cause is None  # every cause of the entry is about another function
    assert "torch.linalg.lstsq" in match.details()[-1]  # what is known of this one: its hint


def test_a_warning_is_answered_with_the_cause_of_its_own_wording():
    for source, cause_id in (
        ("https://github.com/ultralytics/yolov5/issues/392", "step-replaced-after-scheduler"),
        ("https://github.com/thu-ml/tianshou/issues/395", "shared-module"),
    ):
        paste = next(p["text"] for p in PASTES if p["source"] == source)
        match, cause = answer_of(paste)
        assert match.wording.exception.endswith("Warning")
        assert cause is not None
        assert (cause.cause_id, [e.kind for e in cause.evidence]) == (cause_id, ["form"])
    _, cause = answer_of(RUNS["sequential_checkpoint"]["text"])
    assert cause is not None
    assert cause.cause_id == "sequential"


def test_the_other_warning_of_the_entry_is_not_given_the_required_cause():
    # checkpoint's own warning, not checkpoint_sequential's: never the 'sequential' cause.
    example = CATALOG["checkpoint-use-reentrant"].current.example
    _, cause = answer_of(example)
    assert cause is not None
    assert (cause.cause_id, cause.evidence) == ("own-call", ())


@pytest.mark.parametrize(
    ("source", "cause_id", "sign"),
    [
        ("https://github.com/pytorch/pytorch/issues/44022", "computed-from-parameter", "self."),
        (
            "https://github.com/marlbenchmark/on-policy/issues/19",
            "computed-from-parameter",
            "self.",
        ),
        ("https://github.com/salesforce/awd-lstm-lm/issues/117", "functional-weights", "setattr("),
        ("https://github.com/dasguptar/treelstm.pytorch/pull/26", "copy-into-parameter", ".copy_("),
        ("https://github.com/facebookresearch/localrf/issues/9", "register-parameter-tensor", ""),
        ("https://github.com/facebookresearch/svoice/issues/78", "zero-denominator", ""),
        ("https://github.com/pytorch/pytorch/issues/98164", "fused-attention", ""),
    ],
)
def test_a_threads_paste_gets_the_cause_its_code_or_message_shows(source, cause_id, sign):
    paste = next(p["text"] for p in PASTES if p["source"] == source)
    _, cause = answer_of(paste)
    assert cause is not None
    assert cause.cause_id == cause_id
    assert cause.evidence
    assert all(sign in e.sign for e in cause.evidence if e.kind == "code")
