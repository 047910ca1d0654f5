"""inplace-modified: the in-place operation that changed a saved tensor, and the line that saved
it, for realistic training scripts (tests/data/diagnose/inplace_*.py)."""

from __future__ import annotations

from diagnosis_helpers import SCRIPTS, line_of

RESIDUAL = SCRIPTS / "inplace_residual.py"


def where(diagnosis):
    return [(culprit.path, culprit.line, culprit.role) for culprit in diagnosis.culprits]


def test_a_residual_block_adding_the_shortcut_in_place(in_process):
    diagnosis = in_process("inplace_residual.py")
    assert (diagnosis.entry, diagnosis.cause) == ("inplace-modified", "inplace-after-saving-op")
    assert where(diagnosis) == [
        (str(RESIDUAL), line_of(RESIDUAL, "out += identity"), "changed-in-place"),
        (str(RESIDUAL), line_of(RESIDUAL, "out = self.relu(self.bn2(self.conv2(out)))"), "saved"),
    ]
    changed = diagnosis.culprits[0]
    assert changed.code == "out += identity"
    # The message's version numbers, matched against the change recorded: 1 (after the
    # in-place ReLU) to 2.
    assert changed.what.values["before"] == "1"
    assert changed.what.values["after"] == "2"


def test_an_attention_mask_filled_in_place_after_the_softmax(in_process):
    script = SCRIPTS / "inplace_attention.py"
    diagnosis = in_process("inplace_attention.py")
    assert diagnosis.cause == "inplace-after-saving-op"
    assert where(diagnosis) == [
        (str(script), line_of(script, "weights.masked_fill_("), "changed-in-place"),
        (str(script), line_of(script, "weights = torch.softmax("), "saved"),
    ]


def test_an_optimizer_step_between_two_backward_calls(in_process):
    script = SCRIPTS / "inplace_optimizer.py"
    diagnosis = in_process("inplace_optimizer.py")
    assert diagnosis.cause == "optimizer-step"
    # The first step, between the two backward calls, not the one after them.
    assert where(diagnosis)[0] == (
        str(script),
        line_of(script, "optimizer.step()", occurrence=1),
        "changed-in-place",
    )
    assert where(diagnosis)[1] == (str(script), line_of(script, "outputs = model(inputs)"), "saved")


def test_a_loop_that_writes_each_step_into_the_tensor_it_reads(in_process):
    script = SCRIPTS / "inplace_rnn_buffer.py"
    diagnosis = in_process("inplace_rnn_buffer.py")
    assert diagnosis.cause == "loop-writes-buffer"
    assert where(diagnosis) == [
        (str(script), line_of(script, "hidden[t + 1] = "), "changed-in-place")
    ]


def test_a_project_of_two_files_names_the_line_in_the_module(runner, tmp_path):
    project = SCRIPTS / "project"
    result, report = runner.diagnose(tmp_path / "report.json", "train.py", cwd=project)
    assert result.returncode == 1
    blocks = project / "blocks.py"
    assert report == {
        "entry": "inplace-modified",
        "cause": "inplace-after-saving-op",
        "culprits": [
            {
                "path": str(blocks),
                "line": line_of(blocks, "gate.mul_(2.0)"),
                "role": "changed-in-place",
                "code": "gate.mul_(2.0)",
            },
            {
                "path": str(blocks),
                "line": line_of(blocks, "gate = torch.sigmoid(self.gate(x))"),
                "role": "saved",
                "code": "gate = torch.sigmoid(self.gate(x))",
            },
        ],
    }
    # Under the answer, after the traceback: the culprit, file:line and code.
    answer = result.stderr.split("autograd-errors: ", 1)[1]
    assert f"Culprit: blocks.py:{line_of(blocks, 'gate.mul_(2.0)')} (changed in place)" in answer
    assert "\n    gate.mul_(2.0)\n" in answer
