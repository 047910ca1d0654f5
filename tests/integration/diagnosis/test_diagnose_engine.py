"""The engine as a whole: diagnosis never changes what a program computes, every probe is an
entry's, every word it says is in both languages, and nothing on the explain path imports it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from diagnosis_helpers import SCRIPTS, line_of

from autograd_errors.diagnosis import findings
from autograd_errors.diagnosis.engine import registry
from autograd_errors.diagnosis.rerun import Command, rerun
from autograd_errors.rendering import strings as ui

PACKAGE = Path(__file__).parents[3] / "src" / "autograd_errors" / "diagnosis"


def test_recording_everything_leaves_the_results_bit_for_bit(runner, tmp_path, monkeypatch):
    """The correct script run by python, and run again by the re-run with every feature of the
    recorder on (what instrumenting from the start would do): the same output, the same
    weights, to the last bit."""
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(tmp_path / "cache"))
    plain = runner.python("correct_training.py", str(tmp_path / "plain.txt"), "30")
    assert plain.returncode == 0
    recorded = rerun(
        Command("correct_training.py", (str(tmp_path / "recorded.txt"), "30"), cwd=str(SCRIPTS)),
        "*",
    )
    # It did not fail, and says so; the recorder saw the run (it wrote its weights).
    assert [note.key for note in recorded.notes] == ["diagnose.note.rerun_passed"]
    weights = (tmp_path / "plain.txt").read_text(encoding="utf-8")
    assert weights.count("\n") == 6  # three layers, weight and bias
    assert (tmp_path / "recorded.txt").read_text(encoding="utf-8") == weights


def test_every_probe_diagnoses_an_entry_of_the_catalog(packaged_catalog):
    probes = registry().probes()
    assert set(probes) <= set(packaged_catalog.ids)
    for needed in (
        "inplace-modified",
        "backward-twice",
        "no-grad-fn",
        "grad-is-none",
        "nonleaf-grad",
        "anomaly-nan",
        "leaf-inplace",
    ):
        assert needed in probes


def test_every_cause_a_probe_can_give_is_a_common_cause_of_its_entry(packaged_catalog):
    """The cause ids written in the probes' sources (``"optimizer-step"``...) are common causes
    of the entries those probes diagnose."""
    for module in (PACKAGE / "probes").glob("*.py"):
        entries = {
            entry
            for probe in registry().probes().values()
            for entry in probe.entries
            if probe.function.__module__.endswith(module.stem)
        }
        causes = {cause.id for entry in entries for cause in packaged_catalog[entry].causes}
        literals = {
            node.value
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        claimed = {value for value in literals if value in _all_cause_ids(packaged_catalog)}
        assert claimed <= causes, (module.name, claimed - causes)


def _all_cause_ids(catalog) -> set[str]:
    return {cause.id for entry in catalog for cause in entry.causes}


def test_every_word_of_a_diagnosis_is_a_ui_string():
    """Each role, and each ``diagnose.*`` key written in the subpackage's sources (those built
    from a kind or a reason too), has its English and Chinese text."""
    keys = {f"diagnose.role.{role}" for role in findings.ROLES}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and text.startswith("diagnose.") and text[-1] not in "._":
                keys.add(text)
    keys |= {f"diagnose.what.assigned_{kind}" for kind in ("attribute", "buffer")}
    reasons = ("detach", "no-grad", "inference-mode", "non-differentiable", "item", "frozen")
    keys |= {"diagnose.what.cut_" + reason.replace("-", "_") for reason in reasons}
    assert keys - set(ui.STRINGS) == set()
    assert len(keys) > 60


def test_explaining_never_imports_the_diagnosis(cli_env):
    result = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "autograd_errors",
            "explain",
            "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
            "operation.",
        ],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "autograd_errors.matcher.matching" in imported
    assert {name for name in imported if "diagnosis" in name} == set()


def test_a_report_round_trips_through_json():
    culprit = findings.Culprit("/a.py", 3, "raised", "x += 1", findings.Note("k", {"v": "1"}))
    diagnosis = findings.Diagnosis("leaf-inplace", "manual-update", (culprit,), (), 1.5)
    assert findings.Diagnosis.from_dict(diagnosis.as_dict()) == diagnosis
    assert diagnosis.report() == {
        "entry": "leaf-inplace",
        "cause": "manual-update",
        "culprits": [{"path": "/a.py", "line": 3, "role": "raised", "code": "x += 1"}],
    }


def test_a_function_called_again_in_this_process(monkeypatch, tmp_path):
    """What a notebook cell or a test run again gets: one call."""
    import torch

    from autograd_errors.diagnosis import diagnose_call

    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(tmp_path / "cache"))

    def step() -> None:
        probabilities = torch.sigmoid(torch.randn(3, requires_grad=True))
        probabilities.mul_(2)
        probabilities.sum().backward()

    diagnosis = diagnose_call(step)
    this = Path(__file__)
    assert diagnosis.cause == "inplace-after-saving-op"
    assert [(c.path, c.line, c.role) for c in diagnosis.culprits] == [
        (str(this), line_of(this, "probabilities.mul_(2)"), "changed-in-place"),
        (str(this), line_of(this, "probabilities = torch.sigmoid("), "saved"),
    ]
    assert diagnose_call(lambda: None) is None
