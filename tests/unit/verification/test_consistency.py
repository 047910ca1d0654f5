"""One check of the catalog, its gallery scripts and its recordings, in tidy's stages: every
rule of :mod:`autograd_errors.verification.consistency` holds for the project, each a test of
its own; and each rule finds what it is about.
"""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest
from helpers import REPO

from autograd_errors import catalog
from autograd_errors.verification import consistency, gallery, recordings, script_rules
from autograd_errors.verification.consistency import RULES, STAGES, Project

GALLERY = REPO / "gallery"
OBSERVED = REPO / "data" / "observed"
REFERENCE = recordings.reference_release(str(REPO / "constraints.txt"))
PROJECT = Project(catalog.ENTRIES_DIR, str(GALLERY), str(OBSERVED), REFERENCE)
CATALOG = PROJECT.catalog
RECORDINGS = PROJECT.recordings


@pytest.mark.parametrize("rule", RULES, ids=[f"{rule.stage}: {rule.name}" for rule in RULES])
def test_the_project_keeps_the_rule(rule):
    assert rule.check(PROJECT) == []


def test_the_rules_come_in_the_stages_order():
    assert [rule.stage for rule in RULES] == sorted(
        (rule.stage for rule in RULES), key=STAGES.index
    )
    assert {rule.stage for rule in RULES} == set(STAGES)


def test_the_exemptions_are_properties_of_the_records():
    """A pitfall, a retired entry and one that needs CUDA raise nothing on the reference
    release; every other entry does (stage "raised")."""
    exempt = {
        entry.id
        for entry in CATALOG
        for applies in consistency.RAISES_NOTHING.values()
        if applies(entry)
    }
    assert exempt == {e.id for e in CATALOG if e.is_pitfall or e.retired or e.needs == "cuda"}
    (reference,) = [r for r in RECORDINGS if r.release == REFERENCE]
    assert all(reference.message(entry) for entry in CATALOG if entry.id not in exempt)


# listed -----------------------------------------------------------------------------------


def test_a_record_that_breaks_a_rule_is_the_first_problem(tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    (entries / "leaf-inplace.toml").write_text('title = "no more"\n', encoding="utf-8")
    broken = Project(str(entries), str(GALLERY), str(OBSERVED), REFERENCE)
    assert consistency.problems(broken) == [
        "listed: leaf-inplace.toml: missing cause, exception, fix, section, wording"
    ]


def test_a_wording_without_a_cited_source_is_reported(tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "leaf-inplace.toml"
    text = record.read_text(encoding="utf-8")
    source = text.split('source = "', 1)[1].split('"', 1)[0]
    record.write_text(text.replace(source, "a forum post", 1), encoding="utf-8")
    edited = catalog.load(str(entries), use_cache=False)
    assert consistency.source_problems(edited) == ["leaf-inplace 'current': source 'a forum post'"]


def test_a_message_two_entries_hold_is_reported(tmp_path):
    """An entry given another's wording (the family of optimizer-empty-params, whose TypeError
    relatives moved to optimizer-param-not-tensor: one message, one entry)."""
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "optimizer-empty-params.toml"
    text = record.read_text(encoding="utf-8")
    stolen = textwrap.dedent(
        """
        [[wording]]
        variant = "not-a-tensor"
        message = "optimizer can only optimize Tensors, but one of the params is {python_type}"
        form = "other"
        exception = "TypeError"
        source = "https://github.com/pytorch/pytorch/blob/v2.13.0/torch/optim/optimizer.py"
        """
    )
    head, tail = text.split("\n[zh_CN]", 1)
    record.write_text(head + stolen + "\n[zh_CN]" + tail, encoding="utf-8")
    edited = catalog.load(str(entries), use_cache=False)
    # The matcher gives a text to one of two equal wordings: the pair is reported, either way.
    assert consistency.one_entry_per_message(edited) in (
        ["optimizer-empty-params 'not-a-tensor': also a message of optimizer-param-not-tensor"],
        ["optimizer-param-not-tensor 'current': also a message of optimizer-empty-params"],
    )


def test_a_symptom_two_pitfalls_claim_is_reported(tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "grad-accumulates.toml"
    text = record.read_text(encoding="utf-8")
    record.write_text(
        text.replace("symptoms = [\n", 'symptoms = [\n    "NaN  gradients",\n', 1), encoding="utf-8"
    )
    edited = catalog.load(str(entries), use_cache=False)
    assert consistency.one_entry_per_message(edited) == [
        "'nan gradients' is a symptom of grad-accumulates, nan-gradient-silent"
    ]


def test_another_programs_words_two_pitfalls_claim_are_reported(tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "grad-accumulates.toml"
    text = record.read_text(encoding="utf-8")
    claimed = (
        '[[symptom_message]]\nprogram = "AllenNLP"\ncontains = ["nan loss encountered"]\n'
        'source = "https://github.com/allenai/allennlp"\n\n[[common_cause]]'
    )
    record.write_text(text.replace("[[common_cause]]", claimed, 1), encoding="utf-8")
    edited = catalog.load(str(entries), use_cache=False)
    assert consistency.one_entry_per_message(edited) == [
        "'nan loss encountered' is a symptom of grad-accumulates, nan-loss"
    ]


# documented -------------------------------------------------------------------------------


def test_a_script_without_an_entry_is_reported(packaged_catalog, tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    (copy / "graph" / "orphan-entry.py").write_text('"""\norphan-entry\n============\n"""\n')
    problems = consistency.correspondence_problems(packaged_catalog, gallery.scripts(str(copy)))
    assert problems == [
        (
            "orphan-entry",
            f"orphan-entry: gallery script {copy}/graph/orphan-entry.py has no catalog entry",
        )
    ]


def test_an_entry_without_a_script_is_reported(packaged_catalog, tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    (copy / "graph" / "no-grad-fn.py").unlink()
    problems = consistency.correspondence_problems(packaged_catalog, gallery.scripts(str(copy)))
    assert problems == [("no-grad-fn", "no-grad-fn: no gallery script gallery/graph/no-grad-fn.py")]


def test_a_script_in_the_wrong_section_is_reported(packaged_catalog, tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    (copy / "graph" / "no-grad-fn.py").rename(copy / "leaves" / "no-grad-fn.py")
    problems = consistency.correspondence_problems(packaged_catalog, gallery.scripts(str(copy)))
    assert problems == [
        (
            "no-grad-fn",
            "no-grad-fn: the catalog puts it in section 'graph', the gallery in 'leaves'",
        )
    ]


def test_a_section_missing_from_the_order_is_reported(tmp_path):
    copy = tmp_path / "gallery"
    shutil.copytree(GALLERY, copy)
    order = copy / "_order.txt"
    order.write_text(order.read_text().replace("graph\n", ""), encoding="utf-8")
    project = Project(catalog.ENTRIES_DIR, str(copy), str(OBSERVED), REFERENCE)
    problems = consistency.problems(project, ("documented",))
    assert "documented: section 'graph' is not in gallery/_order.txt" in problems


def test_an_untranslated_hint_of_a_non_autograd_kind_is_reported(monkeypatch):
    (kind, *_) = CATALOG.not_autograd
    monkeypatch.setattr(kind, "hints", {"en": kind.hint})
    (rule,) = [r for r in RULES if r.name == "every text is translated and stamped"]
    assert rule.check(PROJECT) == [f"not-autograd.toml: {kind.name}: no zh_CN hint"]


# scripted ---------------------------------------------------------------------------------


def script(tmp_path, text: str) -> str:
    path = tmp_path / "x.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def test_a_script_importing_beyond_torch_is_reported(tmp_path):
    path = script(tmp_path, "import torch\nimport numpy\nfrom pandas import DataFrame\n")
    assert script_rules.imports_beyond_torch(path) == [(None, "imports pandas")]


def test_an_untagged_cause_and_a_tag_naming_no_cause_are_reported(tmp_path):
    entry = CATALOG["leaf-inplace"]
    first, *others = [cause.id for cause in entry.causes]
    lines = [f"x = 1  # cause: {first}", f"x = 2  # fix: {first}", "y = 3  # cause: no-such"]
    lines += [f"z = 4  # cause: {o}\nz = 5  # fix: {o}" for o in others[:-1]]
    lines.append(f"w = 6  # cause: {others[-1]}")
    path = script(tmp_path, "\n".join(lines) + "\n")
    assert script_rules.causes_tagged(path, entry) == [
        (None, "line 3 is tagged 'cause: no-such', but 'leaf-inplace' has no cause 'no-such'"),
        (None, f"no line is tagged '# fix: {others[-1]}'"),
    ]


def test_a_fix_without_an_assertion_is_reported(tmp_path):
    path = script(
        tmp_path,
        """\
        x = 1
        try:
            x += 1  # broken
        except RuntimeError:
            pass
        y = 2  # fixed
        try:
            y += 1
        except RuntimeError:
            pass
        assert y == 3
        """,
    )
    ((line, problem),) = script_rules.fixes_checked(path)
    assert line == 6
    assert problem.startswith("the fix is followed by no assertion before the next repro")


def test_a_checked_fix_is_not_reported(tmp_path):
    path = script(tmp_path, "y = 2  # fixed\nassert y == 2\n")
    assert script_rules.fixes_checked(path) == []


def test_a_heading_right_after_code_is_reported(tmp_path):
    text = "x = 1\n# A heading\n# ---------\n\n# %%\n# Another\n# -------\n"
    path = script(tmp_path, text)
    assert script_rules.headings_open_text_cells(path) == [
        (2, "a heading after code, without '# %%' before it")
    ]


# recorded ---------------------------------------------------------------------------------


def test_a_wording_claiming_a_release_that_printed_another_is_reported(tmp_path):
    """Stage "recorded" at work: backward-twice's 1.13.1 recording against a catalog that says
    1.13.1 still printed the 'saved-variables' wording (1.9 only) and 'current' began later."""
    entries = tmp_path / "entries"
    entries.mkdir()
    for path in (REPO / "src" / "autograd_errors" / "entries").glob("*.toml"):
        (entries / path.name).write_text(path.read_text())
    record = entries / "backward-twice.toml"
    text = record.read_text()
    text = text.replace('since = "1.9.0"\nuntil = "1.9.1"', 'since = "1.9.0"\nuntil = "1.13.1"')
    text = text.replace('since = "1.10.0"', 'since = "2.0.0"', 1)
    record.write_text(text)
    edited = catalog.load(str(entries), use_cache=False)
    (old,) = [r for r in RECORDINGS if r.release == "1.13.1"]
    message = f"RuntimeError: {old.message(edited['backward-twice'])}"
    # Both repros of the entry (calling backward twice, the recurrent cell) print the message.
    assert sorted(set(consistency.consistency_problems(edited, [old]))) == [
        "torch 1.13.1: backward-twice wording 'current' claims torch 2.0.0 and later, but "
        f"1.13.1 printed it: {message}",
        "torch 1.13.1: backward-twice wording 'saved-variables' claims 1.13.1, which printed "
        f"'current' instead: {message}",
    ]


def test_a_recorded_release_outside_its_wordings_range_is_reported():
    data = json.loads((OBSERVED / "torch-2.1.2.json").read_text())
    data["torch"] = "2.13.0"  # pretend 2.13.0 printed 2.1.2's in-place hint
    problems = consistency.consistency_problems(CATALOG, [recordings.Recording(data)])
    assert any(
        "inplace-modified wording 'anomaly-hint' claims torch 1.1.0 to 2.10.0, but 2.13.0 "
        "printed it" in problem
        for problem in problems
    )


def test_a_failing_entry_of_an_older_recording_is_reported():
    (oldest, *_) = RECORDINGS
    some_id = next(iter(oldest.entries))
    oldest.entries[some_id] = {**oldest.entries[some_id], "status": "DRIFT"}
    project = Project(catalog.ENTRIES_DIR, str(GALLERY), str(OBSERVED), REFERENCE)
    project._recordings = [oldest]
    assert consistency.problems(project, ("recorded",)) == [
        f"recorded: torch {REFERENCE}: no recording; run `make record`",
        f"recorded: torch {oldest.release}: {some_id} is DRIFT",
    ]


def test_a_sign_its_trigger_did_not_raise_is_reported(tmp_path):
    """A cause's field sign claims what torch prints for it; its trigger's recorded message is
    what torch printed: derivative-not-implemented's gammainc cause said to give 'zeta', and
    its unique cause a form no script raised."""
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "derivative-not-implemented.toml"
    text = record.read_text()
    text = text.replace('fields = { op = ["igamma"] }', 'fields = { op = ["zeta"] }')
    text = text.replace(
        'fields = { op = ["_unique", "unique_"] }',
        'fields = { op = ["_unique", "unique_"] }\nforms = ["cudnn-rnn"]',
    )
    record.write_text(text)
    edited = catalog.load(str(entries), use_cache=False)
    (reference,) = [r for r in RECORDINGS if r.release == REFERENCE]
    assert consistency.sign_problems(edited, gallery.scripts(str(GALLERY)), reference) == [
        f"torch {REFERENCE}: derivative-not-implemented cause 'gammainc-shape': its trigger "
        "raised no message whose op starts with 'zeta'",
        f"torch {REFERENCE}: derivative-not-implemented cause 'unique': no message of form "
        "'cudnn-rnn'",
    ]


def test_a_cause_with_neither_signs_nor_a_reason_is_reported(tmp_path):
    """Every cause of an entry with several says what recognises it, or why nothing does:
    backward-twice's first cause, its table taken off."""
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "backward-twice.toml"
    text = record.read_text()
    kept = catalog.load(str(entries), use_cache=False)["backward-twice"].causes
    assert all(cause.signs or cause.signs.unseen for cause in kept)
    first = kept[0].id
    start = text.index("[common_cause.signs]")
    end = text.index("[[common_cause]]", start)
    record.write_text(text[:start] + text[end:])
    edited = catalog.load(str(entries), use_cache=False)
    assert [p for p in consistency.recognition_problems(edited) if "backward-twice" in p] == [
        f"backward-twice: common_cause {first!r}: no signs, and no unseen to say why"
    ]


def test_a_code_sign_its_trigger_does_not_write_is_reported(tmp_path):
    """A cause's code signs claim how the cause is written; its trigger is the cause written:
    leaf-inplace's hand-written gradient step said to be recognised by ``.sub_(`` alone."""
    entries = tmp_path / "entries"
    shutil.copytree(catalog.ENTRIES_DIR, entries)
    record = entries / "leaf-inplace.toml"
    text = record.read_text()
    assert 'code = ["-= ... .grad", ".add_( ... .grad"]' in text
    record.write_text(
        text.replace('code = ["-= ... .grad", ".add_( ... .grad"]', 'code = [".sub_("]')
    )
    edited = catalog.load(str(entries), use_cache=False)
    script = next(s for s in gallery.scripts(str(GALLERY)) if s.entry_id == "leaf-inplace")
    assert consistency.code_sign_problems(edited, gallery.scripts(str(GALLERY))) == [
        f"{script.path}: cause 'manual-update': none of its code signs ('.sub_(') is in its trigger"
    ]


# raised -----------------------------------------------------------------------------------


def test_an_entry_whose_own_message_the_reference_did_not_raise_is_reported():
    (reference,) = (
        recordings.load_recordings(str(OBSERVED))[-1:]
        if False
        else [r for r in recordings.load_recordings(str(OBSERVED)) if r.release == REFERENCE]
    )
    reference.entries["leaf-inplace"]["events"] = []
    project = Project(catalog.ENTRIES_DIR, str(GALLERY), str(OBSERVED), REFERENCE)
    project._recordings = [reference]
    assert consistency.problems(project, ("raised",)) == [
        f"raised: torch {REFERENCE}: leaf-inplace raised no message of its own"
    ]
