"""The inventory of autograd messages (data/inventory/, written by tools/inventory.py): checked
against the catalog both ways, its counts checked for form, its parsing checked on torch's own
sources, and the coverage page built from it."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from autograd_errors import catalog
from autograd_errors.matcher.matching import find_entries, find_matches

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "data" / "inventory"
REFERENCE = "2.13.0"
TORCH = Path(torch.__file__).parent


def _load_tool():
    spec = importlib.util.spec_from_file_location("inventory", REPO / "tools" / "inventory.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["inventory"] = module
    spec.loader.exec_module(module)
    return module


inventory = _load_tool()
CATALOG = catalog.load(use_cache=False)
MESSAGES = json.loads((DATA / "messages.json").read_text(encoding="utf-8"))
RECORDS = MESSAGES["messages"]
BY_ID = {record["id"]: record for record in RECORDS}
COUNTS = json.loads((DATA / "counts.json").read_text(encoding="utf-8"))
RANKING = json.loads((DATA / "ranking.json").read_text(encoding="utf-8"))["ranking"]


# --- the committed inventory against the catalog -----------------------------------------------


def _covering(entry_id: str, variant: str) -> list[dict]:
    return [
        record
        for record in RECORDS
        if any(c["entry"] == entry_id and c["wording"] == variant for c in record["covered_by"])
    ]


#: Entries whose message no torch source holds, and why: the inventory cannot list them.
NOT_TORCHS = {
    # Python's own TypeError for a keyword Tensor.backward does not accept (torch/_tensor.py
    # has no such text): the interpreter writes it, outside torch.
    "retain-variables": "Python's TypeError for an unexpected keyword argument",
}


@pytest.mark.parametrize(
    ("entry_id", "variant"),
    [
        (entry.id, wording.variant)
        for entry in CATALOG
        for wording in entry.wordings
        if REFERENCE in wording.releases and entry.id not in NOT_TORCHS
    ],
)
def test_every_wording_of_the_reference_release_is_in_the_inventory(entry_id, variant):
    """The limit holds what the catalog explains: each wording torch 2.13.0 prints is a message
    (or the pieces of one) the inventory found in 2.13.0's own sources or libraries."""
    covering = _covering(entry_id, variant)
    assert covering, f"no inventory message is covered by {entry_id}:{variant}"
    if CATALOG[entry_id].needs != "cuda":  # the reference wheel is the CPU build
        assert any(REFERENCE in record["locations"] for record in covering)


def test_the_inventory_knows_every_entry_with_a_message():
    entries = {c["entry"] for record in RECORDS for c in record["covered_by"]}
    with_wordings = {
        entry.id
        for entry in CATALOG
        if any(REFERENCE in w.releases or w.releases.current for w in entry.wordings)
        and entry.id not in NOT_TORCHS
    }
    assert with_wordings <= entries


def _wording_texts(entry_id: str, variant: str) -> list[str]:
    wording = CATALOG[entry_id].wording(variant)
    texts = [inventory.render(wording.message)]
    if wording.example:
        texts.append(wording.example)
    return ["".join(text.split()) for text in texts]


@pytest.mark.parametrize("record", [r for r in RECORDS if r["covered_by"]], ids=lambda r: r["id"])
def test_every_covered_message_is_matched_by_its_entry(record):
    """What the inventory says an entry covers, the catalog agrees with now: the project's
    matcher finds the entry's wording in the message (forward), or the message is found in the
    wording (reverse), as each record says."""
    found = {
        (m.entry.id, m.wording.variant)
        for m in find_matches(inventory.render(record["template"]), CATALOG)
    }
    pattern = inventory.reverse_pattern(record["template"])
    for cover in record["covered_by"]:
        key = (cover["entry"], cover["wording"])
        assert cover["entry"] in CATALOG, f"{record['id']} names a missing entry {key}"
        if "forward" in cover["how"]:
            assert key in found, f"{record['id']}: the matcher no longer finds {key}"
        if "reverse" in cover["how"]:
            assert any(pattern.search(t) for t in _wording_texts(*key)), (record["id"], key)


def test_a_message_the_matcher_finds_records_that_entry():
    """Coverage is not left out: a message in which the matcher finds an entry says so."""
    missing = []
    for record in RECORDS:
        found = {m.entry.id for m in inventory.forward_matches(record["template"], CATALOG)}
        recorded = {c["entry"] for c in record["covered_by"]}
        if found - recorded:
            missing.append((record["id"], sorted(found - recorded)))
    assert not missing


def test_records_are_well_formed_and_in_a_stable_order():
    assert MESSAGES["reference"] == REFERENCE
    assert set(MESSAGES["releases"]) == {"2.13.0", "2.15.0"}
    ids = [record["id"] for record in RECORDS]
    assert len(ids) == len(set(ids))
    assert sorted(RECORDS, key=_order) == RECORDS
    for record in RECORDS:
        assert record["id"] == inventory.message_id(record["template"])
        assert record["source"] in ("python", "c++")
        assert record["locations"]
        assert set(record["locations"]) <= {"2.13.0", "2.15.0"}
        for where in [w for ws in record["locations"].values() for w in ws]:
            file, _, line = where.partition(":")
            assert file.startswith(("torch/", "c10/", "aten/")), where
            assert not line or line.isdigit(), where
        if record["source"] == "python":
            assert record["exception"], record["id"]  # a Python message's class is in its code


def _order(record):
    release = REFERENCE if REFERENCE in record["locations"] else max(record["locations"])
    file, _, line = sorted(record["locations"][release])[0].partition(":")
    return file, int(line or 0), record["template"]


def test_internal_asserts_are_left_out():
    assert not [r["id"] for r in RECORDS if "INTERNAL ASSERT FAILED" in r["template"]]
    assert MESSAGES["releases"][REFERENCE]["dropped"]["internal assert"] > 0


def test_python_locations_point_at_the_message_in_the_reference_wheel():
    """A Python location is the line of the raise or warn in that release's file."""
    checked = 0
    for record in RECORDS:
        if record["source"] != "python" or REFERENCE not in record["locations"]:
            continue
        literal = max(re.split(r"\{[^{}]*\}", record["template"]), key=len).strip()
        words = literal.split()[:3]
        for where in record["locations"][REFERENCE]:
            file, _, line = where.partition(":")
            if not file.endswith(".py"):  # a binding that repeats the message in C++
                continue
            lines = (TORCH.parent / file).read_text(encoding="utf-8").splitlines()
            start = int(line) - 1
            # The statement starts at the line; its text may continue on the next ones, or
            # come from a variable or helper above it, so only plainly quoted ones are checked.
            window = " ".join(lines[start : start + 8])
            if words and all(w in window for w in words):
                checked += 1
    assert checked > 500


# --- the counts ---------------------------------------------------------------------------------


def _targets():
    return {f"{e.id}:{w.variant}" for e in CATALOG for w in e.wordings}


def test_counts_are_well_formed():
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", COUNTS["date"])
    assert COUNTS["method"]
    assert COUNTS["queries"]
    targets = _targets()
    queries = [q["query"] for q in COUNTS["queries"]]
    assert len(queries) == len(set(queries)), "a query is kept once"
    for query in COUNTS["queries"]:
        assert query["corpus"] == "issues"
        for target in query["for"]:
            assert target in BY_ID or target in targets, target
        for url, quoted in query["threads"].items():
            assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", url)
            assert quoted
            for target in quoted:
                assert target in BY_ID or target in targets, (url, target)
    for family, ids in COUNTS["families"].items():
        assert family
        assert ids
        assert all(i in BY_ID for i in ids), family


def test_every_message_with_an_entry_was_counted():
    assert not [r["id"] for r in RECORDS if r["covered_by"] and r["threads"] is None]


def test_a_count_is_the_number_of_distinct_threads_quoting_the_message():
    """The counts in messages.json are counts.json's threads, each thread once per message."""
    covering: dict[str, set[str]] = {}
    for record in RECORDS:
        for cover in record["covered_by"]:
            covering.setdefault(f"{cover['entry']}:{cover['wording']}", set()).add(record["id"])
    threads: dict[str, set[str]] = {}
    for query in COUNTS["queries"]:
        for url, quoted in query["threads"].items():
            for target in quoted:
                for message in covering.get(target, {target}):
                    threads.setdefault(message, set()).add(url)
    for message, urls in threads.items():
        assert BY_ID[message]["threads"] == len(urls), message
    counted = [r for r in RECORDS if r["threads"] is not None]
    assert all(r["threads"] >= 0 for r in counted)
    assert sum(1 for r in counted if r["threads"]) == len(threads)


def test_the_ranking_is_the_uncovered_counted_messages_most_threads_first():
    assert RANKING, "the ranking is empty"
    ranked = [row["id"] for row in RANKING]
    assert len(ranked) == len(set(ranked))
    for row in RANKING:
        record = BY_ID[row["id"]]
        assert not record["covered_by"]
        assert row["threads"] == record["threads"]
        assert row["template"] == record["template"]
    counts = [row["threads"] for row in RANKING]
    assert counts == sorted(counts, reverse=True)
    assert {row["id"] for row in RANKING} == {
        r["id"] for r in RECORDS if not r["covered_by"] and r["threads"] is not None
    }
    # The families issue 24 names, each found in the inventory (entries cover most of them now).
    named = {i for ids in COUNTS["families"].values() for i in ids}
    assert len(COUNTS["families"]) >= 10
    assert named <= set(BY_ID)


# --- parsing, on torch's own sources ------------------------------------------------------------


def _found_in(function) -> list[tuple[str, str | None]]:
    source = textwrap.dedent(inspect.getsource(function))
    module = ast.parse(source)
    visitor = inventory._Messages("snippet.py", module)
    visitor.visit(module)
    return [(found.template, found.exception) for found in visitor.found]


def test_a_raise_of_a_literal():
    found = _found_in(torch.optim.Optimizer.__init__)
    assert ("optimizer got an empty parameter list", "ValueError") in found


def test_a_message_built_by_a_helper_function():
    """gradcheck builds its message in _get_notallclose_msg, from f-strings and a variable."""
    source = inspect.getsource(sys.modules["torch.autograd.gradcheck"])
    module = ast.parse(source)
    visitor = inventory._Messages("torch/autograd/gradcheck.py", module)
    visitor.visit(module)
    jacobian = [f for f in visitor.found if "mismatch for output" in f.template]
    assert jacobian
    assert jacobian[0].exception == "GradcheckError"
    assert re.search(
        r"Jacobian \{\w+:\w+\}mismatch for output \{output_idx:\w+\}", jacobian[0].template
    )


def test_ddps_log_and_throw():
    found = _found_in(torch.nn.parallel.DistributedDataParallel.__init__)
    assert (
        "DistributedDataParallel is not needed when a module doesn't have any parameter that "
        "requires a gradient.",
        "RuntimeError",
    ) in found


def test_an_error_made_to_be_raised_later_with_a_bytes_message():
    found = _found_in(torch.autograd.function.once_differentiable)
    assert (
        "trying to differentiate twice a function that was marked with @once_differentiable",
        "DelayedError",
    ) in found


def test_a_deprecated_decorator_and_a_warning_category():
    found = _found_in(torch.cuda.amp.GradScaler)
    assert any(
        t.startswith("`torch.cuda.amp.GradScaler(args...)` is deprecated") and e == "FutureWarning"
        for t, e in found
    )


def test_f_string_placeholders_are_templates_the_matcher_can_compile():
    found = _found_in(torch.nn.Module.__setattr__)
    template = next(t for t, _ in found if t.startswith("cannot assign '{"))
    compiled = inventory.render(template)
    assert "{" not in compiled
    assert any(m.entry.id == "parameter-assign" for m in find_matches(compiled, CATALOG))


def test_header_literals_locate_a_message_and_its_macro():
    """Inline functions of c10/core/TensorImpl.h put their strings in whichever unit uses them:
    the wheel's header locates them, with the macro's exception."""
    literals = inventory.header_literals(TORCH)
    file, line, exception = literals["Inference tensors do not track version counter."]
    assert file == "c10/core/TensorImpl.h"
    header = (TORCH / "include" / file).read_text(encoding="utf-8").splitlines()
    assert "Inference tensors do not track version counter." in " ".join(
        header[line - 1 : line + 1]
    )
    assert exception == "RuntimeError"


def test_library_strings_and_what_reads_as_a_message():
    strings = set(inventory.rodata_strings(TORCH / "lib" / "libc10.so"))
    piece = next(
        s for s in strings if s.startswith("is not allowed on a Tensor created from .data")
    )
    assert inventory.is_message(piece)
    assert not inventory.is_message("celu_(Tensor input, Scalar alpha=1.0)")
    assert not inventory.is_message("torch/csrc/autograd/engine.cpp")
    template, prefix = inventory.cpp_template(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: ["
    )
    assert prefix
    assert template.endswith("operation: [")
    template, prefix = inventory.cpp_template(
        "save_for_backward can only save variables, but argument {} is of type {}"
    )
    assert not prefix
    assert re.fullmatch(
        r"save_for_backward can only save variables, but argument \{value:\w+\} is of type "
        r"\{value_2:\w+\}",
        template,
    )


def test_one_message_per_operator_becomes_one_template():
    strings = [
        f"Trying to use forward AD with {op}_out that does not support it because it is an out= "
        "function"
        for op in ("addmm", "cumsum", "sigmoid")
    ]
    collapsed = inventory.collapse(strings)
    assert set(collapsed.values()) == {
        "Trying to use forward AD with {op:op} that does not support it because it is an out= "
        "function"
    }


def test_the_tool_refuses_a_missing_torch_in_one_line(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "tools" / "inventory.py"),
            "--torch",
            f"2.13.0={tmp_path}",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0
    assert "no torch package" in run.stderr
    assert not (tmp_path / "out").exists()


def test_cover_finds_the_entries_again_without_the_wheels(tmp_path):
    """``--cover``: the committed messages, their entries forgotten, get them back from the
    catalog; an entry added since the wheels were read is found so (the messages stay)."""
    out = tmp_path / "out"
    out.mkdir()
    stale = json.loads((DATA / "messages.json").read_text(encoding="utf-8"))
    for record in stale["messages"]:
        record["covered_by"] = []
    (out / "messages.json").write_text(json.dumps(stale), encoding="utf-8")
    shutil.copy(DATA / "counts.json", out / "counts.json")
    run = subprocess.run(
        [sys.executable, str(REPO / "tools" / "inventory.py"), "--cover", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads((out / "messages.json").read_text(encoding="utf-8")) == json.loads(
        (DATA / "messages.json").read_text(encoding="utf-8")
    )
    assert json.loads((out / "ranking.json").read_text(encoding="utf-8"))["ranking"] == RANKING


def test_cover_refuses_a_missing_inventory_in_one_line(tmp_path):
    run = subprocess.run(
        [sys.executable, str(REPO / "tools" / "inventory.py"), "--cover", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0
    assert "cannot read" in run.stderr


# --- the coverage page --------------------------------------------------------------------------


def _build(tmp_path: Path, language: str) -> str:
    project = tmp_path / language
    (project / "docs").mkdir(parents=True)
    shutil.copy(REPO / "docs" / "coverage.md", project / "docs" / "index.md")
    (project / "data" / "inventory").mkdir(parents=True)
    shutil.copy(DATA / "messages.json", project / "data" / "inventory" / "messages.json")
    shutil.copytree(REPO / "locales", project / "locales")
    # The page's own .po is named after it; here it is the index.
    po = project / "locales" / "zh_CN" / "LC_MESSAGES"
    shutil.copy(po / "coverage.po", po / "index.po")
    (project / "conf.py").write_text(
        "extensions = ['myst_parser', 'autograd_errors.sphinxext.coverage']\n"
        "locale_dirs = ['../locales']\ngettext_compact = False\n",
        encoding="utf-8",
    )
    sphinx = Path(sys.executable).parent / "sphinx-build"
    run = subprocess.run(
        [str(sphinx), "-q", "-b", "html", "-c", ".", "-D", f"language={language}", "docs", "out"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return (project / "out" / "index.html").read_text(encoding="utf-8")


def test_the_coverage_page_shows_the_figures_and_every_message(tmp_path):
    page = _build(tmp_path, "en")
    covered = sum(1 for r in RECORDS if r["covered_by"])
    threads = sum(r["threads"] or 0 for r in RECORDS)
    in_entries = sum(r["threads"] or 0 for r in RECORDS if r["covered_by"])
    summary = re.search(r'<p class="autograd-coverage-summary">(.*?)</p>', page, re.S)
    assert summary is not None
    text = re.sub(r"\s+", " ", summary.group(1))
    assert f"Of {len(RECORDS)} messages" in text
    assert f"{covered} have an entry" in text
    assert f"{round(100 * in_entries / threads)}% of the {threads} public threads" in text
    body = page.split('class="autograd-coverage-table', 1)[1]
    assert body.count("<tr") == len(RECORDS) + 1  # the header row, then one row per message
    top = max((r for r in RECORDS if r["threads"]), key=lambda r: r["threads"])
    first_row = body.split("<tbody>", 1)[1].split("</tr>", 1)[0]
    assert str(top["threads"]) in first_row


def test_the_chinese_coverage_page(tmp_path):
    page = _build(tmp_path, "zh_CN")
    assert "覆盖范围：torch 可能抛出的报错" in page
    summary = re.search(r'<p class="autograd-coverage-summary">(.*?)</p>', page, re.S)
    assert summary is not None
    assert f"{len(RECORDS)} 条报错信息" in summary.group(1)
    assert '<th class="head"><p>条目</p></th>' in page
    assert "This reference has a limit" not in page


def test_the_page_is_in_the_sites_toctree():
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    toctree = index.split("```{toctree}", 1)[1].split("```", 1)[0]
    assert "\ncoverage\n" in toctree
    assert ".. autograd-coverage::" in (REPO / "docs" / "coverage.md").read_text(encoding="utf-8")


def test_no_message_of_torchs_is_taken_for_a_pitfalls_symptom():
    """A pitfall's symptom words are users' descriptions: a message torch raises that no entry
    covers ("AssertionError: grad should not be None") is no description of one."""
    described = []
    for record in RECORDS:
        if record["covered_by"]:
            continue
        text = f"{record['exception'] or 'RuntimeError'}: {inventory.render(record['template'])}"
        if any(m.kind == "symptom" for m in find_entries(text, CATALOG).matches):
            described.append(record["id"])
    assert described == []
