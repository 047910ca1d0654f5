"""The signs of a common cause, as the records give them and as the catalog refuses them, and
how the answer chooses among the causes of an entry."""

from __future__ import annotations

import pytest
from realruns import recorded

from autograd_errors import catalog
from autograd_errors.catalog.schema import CatalogError
from autograd_errors.matcher.causes import choose
from autograd_errors.matcher.frames import Frame
from autograd_errors.matcher.matching import find_entries

CATALOG = catalog.load(use_cache=False)
RUNS = {run["name"]: run["text"] for run in recorded()["runs"]}
RECORD = (
    'title = "T"\nexception = "RuntimeError"\nsection = "s"\ncause = "C"\nfix = "F"\n'
    '[[wording]]\nvariant = "current"\nmessage = "the derivative of {op} is not there"\n'
    'source = "https://github.com/x"\n'
    '[[common_cause]]\nid = "one"\ntext = "One."\nfix = "Fix one."\n'
)


@pytest.mark.parametrize(
    ("signs", "problem"),
    [
        ('colour = ["red"]', "unknown key 'colour'"),
        ('code = "torch.randn("', "code must be a list"),
        ('code = [""]', "code must be a list of non-empty strings"),
        ('code = ["x(", "x("]', "code lists a sign twice"),
        ("fields = { op = [1] }", "fields.op must be a list of non-empty strings"),
        ('fields = { shape = ["[3]"] }', "no wording captures a field 'shape'"),
        ('forms = ["leaf"]', "no wording of form 'leaf'"),
        ("required = true", "a required cause needs a sign"),
        ('required = "yes"', "required must be a bool"),
        ('unseen = " "', "unseen must say why no paste shows the cause"),
        ('code = ["x("]\nunseen = "Raised at backward()."', "unseen contradicts them"),
    ],
)
def test_a_broken_sign_is_refused_with_its_place(tmp_path, signs, problem):
    (tmp_path / "some-entry.toml").write_text(
        RECORD + f"[common_cause.signs]\n{signs}\n", encoding="utf-8"
    )
    with pytest.raises(CatalogError, match=r"^some-entry\.toml: ") as caught:
        catalog.load(str(tmp_path), use_cache=False)
    assert problem in str(caught.value)


def test_a_cause_no_paste_shows_keeps_its_reason_and_is_chosen_only_as_the_most_common(tmp_path):
    reason = "Raised at backward(); the line that did it is not in the traceback."
    (tmp_path / "some-entry.toml").write_text(
        RECORD + f'[common_cause.signs]\nunseen = "{reason}"\n', encoding="utf-8"
    )
    (entry,) = catalog.load(str(tmp_path), use_cache=False)
    (cause,) = entry.causes
    assert (bool(cause.signs), cause.signs.unseen) == (False, reason)
    choice = choose(entry, entry.current, {}, [], [])
    assert choice is not None
    assert (choice.cause_id, choice.evidence) == ("one", ())


def test_a_cause_that_needs_its_setting_is_never_the_most_common_without_it():
    for entry in CATALOG:
        for wording in entry.wordings:
            choice = choose(entry, wording, {}, [], [])
            if choice is None:  # every cause of the entry needs its sign
                assert all(cause.signs.required for cause in entry.causes), entry.id
                continue
            if not choice.evidence:  # the most common: one that needs no sign
                assert not choice.cause(entry.causes).signs.required, entry.id


def test_a_diagnosis_leads_with_the_cause_it_found_and_its_lines():
    found = find_entries(RUNS["eval_then_train"], CATALOG)
    assert found.cause is not None
    assert found.cause.cause_id == "frozen-or-detached"  # from the paste: the most common
    culprit = Frame("/home/user/run/eval_then_train.py", 12, "with torch.no_grad():")
    found.diagnosed("no-grad-mode", [culprit])
    assert found.cause is not None
    assert found.cause.cause_id == "no-grad-mode"
    assert [(e.kind, e.frame) for e in found.cause.evidence] == [("diagnosis", culprit)]
    found.diagnosed("not-a-cause-of-this-entry", [culprit])
    assert found.cause.cause_id == "no-grad-mode"  # a cause the entry lacks changes nothing


def test_the_most_evidence_wins_a_sign_two_causes_share():
    # AsStrided is a weight changed by optimizer.step() and a loop writing into a buffer; the
    # cell's own h[t] = ... h[t - 1] says which.
    found = find_entries(RUNS["cell_loop_buffer"], CATALOG)
    assert found.cause is not None
    assert found.cause.cause_id == "loop-writes-buffer"
    message = found.matches[0].message
    assert "AsStrided" in message
    alone = find_entries(f"RuntimeError: {message}", CATALOG)
    assert alone.cause is not None
    assert alone.cause.cause_id == "optimizer-step"  # the message alone: the more common
