"""Leaves and gradients: nonleaf-grad (where the tensor became a non-leaf), grad-is-none (which
parameters got no gradient, and where the graph was cut from them), anomaly-nan (the first node
whose output was not finite), and leaf-inplace (the line that raised, and which tensor)."""

from __future__ import annotations

from diagnosis_helpers import SCRIPTS, line_of


def where(diagnosis):
    return [(culprit.path, culprit.line, culprit.role) for culprit in diagnosis.culprits]


def test_weights_scaled_after_requires_grad(in_process):
    script = SCRIPTS / "nonleaf_grad.py"
    diagnosis = in_process("nonleaf_grad.py")
    assert (diagnosis.entry, diagnosis.cause) == ("nonleaf-grad", "moved-after-creation")
    assert where(diagnosis) == [
        (
            str(script),
            line_of(script, "weights = torch.randn(20, 3, requires_grad=True) * 0.01"),
            "became-non-leaf",
        )
    ]
    assert diagnosis.culprits[0].what.values == {"tensor": "weights", "node": "MulBackward0"}


def test_parameters_cut_off_from_the_loss_by_detach(in_process):
    script = SCRIPTS / "grad_is_none.py"
    diagnosis = in_process("grad_is_none.py")
    assert (diagnosis.entry, diagnosis.cause) == ("grad-is-none", "not-in-graph")
    assert where(diagnosis) == [
        (
            str(script),
            line_of(script, "features = torch.relu(encoder(inputs)).detach()"),
            "graph-cut",
        )
    ]
    # The catalog knows no message for it (it is a TypeError): the diagnosis names the entry.
    assert [(note.key, note.values) for note in diagnosis.notes] == [
        ("diagnose.note.symptom", {"entry": "grad-is-none"}),
        ("diagnose.note.no_gradient", {"names": "encoder.weight, encoder.bias", "count": "2"}),
    ]


def test_a_square_root_at_zero_under_anomaly_mode(in_process):
    script = SCRIPTS / "anomaly_nan.py"
    diagnosis = in_process("anomaly_nan.py")
    assert (diagnosis.entry, diagnosis.cause) == ("anomaly-nan", "sqrt-of-zero")
    # sqrt at 0 is where it starts (an infinity); pow, which anomaly mode names, turns it
    # into NaN.
    assert where(diagnosis) == [
        (str(script), line_of(script, "return torch.sqrt(squared)"), "non-finite"),
        (str(script), line_of(script, "squared = ((a - b) ** 2).sum(dim=1)"), "reported"),
    ]
    assert diagnosis.culprits[0].what.values == {
        "node": "SqrtBackward0",
        "kind": "inf",
        "index": "0",
    }
    assert diagnosis.culprits[1].what.values == {"node": "PowBackward0"}


def test_a_gradient_step_by_hand_on_a_leaf(in_process):
    script = SCRIPTS / "leaf_inplace.py"
    diagnosis = in_process("leaf_inplace.py")
    assert (diagnosis.entry, diagnosis.cause) == ("leaf-inplace", "manual-update")
    assert where(diagnosis) == [
        (str(script), line_of(script, "w -= learning_rate * w.grad"), "raised")
    ]
    assert diagnosis.culprits[0].what.values == {"tensor": "w", "shape": "[3, 1]"}
