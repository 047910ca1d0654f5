"""backward-twice (the tensor that brought a freed graph into this backward, where it was
carried over, built and freed) and no-grad-fn (where the graph was cut on the way to the loss),
for realistic training scripts."""

from __future__ import annotations

from diagnosis_helpers import SCRIPTS, line_of


def where(diagnosis):
    return [(culprit.path, culprit.line, culprit.role) for culprit in diagnosis.culprits]


def test_an_rnn_state_kept_as_an_attribute_with_its_graph(in_process):
    script = SCRIPTS / "backward_rnn_state.py"
    diagnosis = in_process("backward_rnn_state.py")
    assert (diagnosis.entry, diagnosis.cause) == ("backward-twice", "carried-state")
    assert where(diagnosis) == [
        (str(script), line_of(script, "self.hx = out"), "carried-over"),
        (str(script), line_of(script, "out = torch.mm(x_t, self.W_ih)"), "reused"),
        (str(script), line_of(script, "loss.backward()"), "freed-by"),
    ]
    assert diagnosis.culprits[0].what.values == {"name": "hx", "owner": "RNNCell"}


def test_a_gan_whose_discriminator_step_does_not_detach_the_fake_batch(in_process):
    script = SCRIPTS / "backward_gan.py"
    diagnosis = in_process("backward_gan.py")
    assert diagnosis.cause == "gan-not-detached"
    assert where(diagnosis) == [
        (str(script), line_of(script, "d_loss = criterion("), "not-detached"),
        (str(script), line_of(script, "g_loss = criterion(discriminator(fake), ones)"), "reused"),
        (str(script), line_of(script, "fake = generator(noise)"), "built"),
        (str(script), line_of(script, "d_loss.backward()"), "freed-by"),
    ]


def test_a_running_total_of_losses_kept_with_its_graph(in_process):
    script = SCRIPTS / "backward_running_total.py"
    diagnosis = in_process("backward_running_total.py")
    assert diagnosis.cause == "accumulated-loss"
    assert where(diagnosis) == [
        (str(script), line_of(script, "total_loss = total_loss + loss"), "carried-over"),
        (str(script), line_of(script, "total_loss.backward()"), "freed-by"),
    ]


def test_a_buffer_assigned_a_tensor_with_its_graph(in_process):
    script = SCRIPTS / "backward_buffer.py"
    diagnosis = in_process("backward_buffer.py")
    assert diagnosis.cause == "carried-state"
    assert where(diagnosis)[0] == (
        str(script),
        line_of(script, "self.running_mean = 0.9 * self.running_mean"),
        "carried-over",
    )
    assert diagnosis.culprits[0].what.key == "diagnose.what.assigned_buffer"
    assert where(diagnosis)[-1] == (str(script), line_of(script, "loss.backward()"), "freed-by")


def test_the_notes_rnn_through_the_command_line(runner, tmp_path):
    """The story of the notes this project grew from: `self.hx = out`, found without anomaly
    mode and without looking."""
    script = SCRIPTS / "backward_rnn_state.py"
    result, report = runner.diagnose(tmp_path / "report.json", "backward_rnn_state.py")
    assert result.returncode == 1
    assert report["entry"] == "backward-twice"
    assert report["cause"] == "carried-state"
    assert report["culprits"][0] == {
        "path": str(script),
        "line": line_of(script, "self.hx = out"),
        "role": "carried-over",
        "code": "self.hx = out",
    }
    answer, diagnosis = result.stderr.split("autograd-errors: Diagnosis", 1)
    carried = line_of(script, "self.hx = out")
    assert f"Culprit: backward_rnn_state.py:{carried} (carried over)" in diagnosis
    # The answer leads with the cause found, the culprit line its evidence.
    flat = " ".join(answer.split())
    assert "Most likely: State carried from one step to the next with its graph" in flat
    assert f"Evidence: the diagnosis found it at {script.name}:{carried}." in flat


def test_a_loss_computed_under_no_grad(in_process):
    script = SCRIPTS / "nograd_validation.py"
    diagnosis = in_process("nograd_validation.py")
    assert (diagnosis.entry, diagnosis.cause) == ("no-grad-fn", "no-grad-mode")
    assert where(diagnosis) == [
        (str(script), line_of(script, "with torch.no_grad():"), "no-grad"),
        (str(script), line_of(script, "logits = model(batch)"), "graph-cut"),
    ]
