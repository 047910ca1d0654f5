"""PyTorch's words raised by another library: many small autograd engines (and tinygrad) raise
PyTorch's messages from their own ``raise`` lines. Such a paste is no PyTorch error: no entry
answers it, the entry with those words is a near miss, and the answer names the line that
raised it. PyTorch's own ``raise`` lines (``torch/autograd/__init__.py``) are still answered."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from autograd_errors import catalog
from autograd_errors.matcher.frames import Frame, raised_literal, raises_outside_torch
from autograd_errors.matcher.matching import find_entries
from autograd_errors.rendering.terminal import Style
from autograd_errors.rendering.text import answer_text

CATALOG = catalog.load(use_cache=False)
MESSAGE = "grad can be implicitly created only for scalar outputs"

#: A toy engine that copies PyTorch's message, and a training script using it: two files.
TOY_TENSOR = f'''
class Tensor:
    def __init__(self, values):
        self.values = list(values)

    def __mul__(self, factor):
        return Tensor([v * factor for v in self.values])

    def backward(self, gradient=None):
        if gradient is None and len(self.values) != 1:
            raise RuntimeError("{MESSAGE}")
'''
TOY_SCRIPT = """
from minigrad.tensor import Tensor

loss = Tensor([0.5, -1.0, 2.0]) * 3
loss.backward()
"""

#: PyTorch's own Python raise of the same words, as users pasted it (torch 0.4 and 1.x).
TORCH_RAISED = {
    "https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4": (
        '  File "/root/anaconda3/lib/python3.6/site-packages/torch/autograd/variable.py", line '
        "167, in backward\n"
        "    torch.autograd.backward(self, gradient, retain_graph, create_graph, "
        "retain_variables)\n"
        '  File "/root/anaconda3/lib/python3.6/site-packages/torch/autograd/__init__.py", line '
        "87, in backward\n"
        "    grad_variables, create_graph = _make_grads(variables, grad_variables, create_graph)\n"
        '  File "/root/anaconda3/lib/python3.6/site-packages/torch/autograd/__init__.py", line '
        "35, in _make_grads\n"
        '    raise RuntimeError("grad can be implicitly created only for scalar outputs")\n'
        "RuntimeError: grad can be implicitly created only for scalar outputs"
    ),
    "https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7": (
        '  File "/home/ashish18024/anaconda3/envs/dl/lib/python3.7/site-packages/gradcam/'
        'gradcam.py", line 70, in forward\n'
        "    score.backward(retain_graph=retain_graph)\n"
        '  File "/home/ashish18024/anaconda3/envs/dl/lib/python3.7/site-packages/torch/tensor.py"'
        ", line 118, in backward\n"
        "    torch.autograd.backward(self, gradient, retain_graph, create_graph)\n"
        '  File "/home/ashish18024/anaconda3/envs/dl/lib/python3.7/site-packages/torch/autograd/'
        '__init__.py", line 28, in _make_grads\n'
        '    raise RuntimeError("grad can be implicitly created only for scalar outputs")\n'
        "RuntimeError: grad can be implicitly created only for scalar outputs`"
    ),
}


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What ``python train.py`` printed, the toy engine raising PyTorch's words."""
    project = tmp_path_factory.mktemp("toy")
    (project / "minigrad").mkdir()
    (project / "minigrad" / "__init__.py").write_text("")
    (project / "minigrad" / "tensor.py").write_text(textwrap.dedent(TOY_TENSOR))
    (project / "train.py").write_text(textwrap.dedent(TOY_SCRIPT))
    run = subprocess.run(
        [sys.executable, "train.py"], cwd=project, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert run.stderr.rstrip().endswith(f"RuntimeError: {MESSAGE}")
    return run.stderr


def test_another_librarys_raise_is_no_entry_and_its_entry_a_near_miss(toy_run):
    found = find_entries(toy_run, CATALOG)
    assert found.matches == []
    assert [miss.entry.id for miss in found.near_misses] == ["scalar-outputs"]
    assert found.raised_by is not None
    assert found.raised_by.file.endswith("minigrad/tensor.py")
    assert (found.raised_by.line, found.raised_by.code) == (11, f'raise RuntimeError("{MESSAGE}")')


def test_the_answer_names_the_line_that_raised_it(toy_run):
    found = find_entries(toy_run, CATALOG)
    text = answer_text(found, "https://x.org/", Style(False), 400)
    assert text.startswith("No entry matches this text.")
    assert "minigrad/tensor.py:11 by a `raise` outside PyTorch" in text
    assert "PyTorch's own error in these words:" in text
    assert "scalar-outputs" in text
    chinese = answer_text(found, "https://x.org/", Style(False), 400, language="zh_CN")
    assert "minigrad/tensor.py:11 处的 `raise` 抛出" in chinese


@pytest.mark.parametrize("source", list(TORCH_RAISED))
def test_pytorchs_own_raise_is_answered(source):
    found = find_entries(TORCH_RAISED[source], CATALOG)
    assert [match.entry.id for match in found.matches] == ["scalar-outputs"]
    assert found.raised_by is None


def test_a_windows_path_into_torch_is_pytorchs_own():
    frame = Frame(
        "C:\\Users\\me\\.conda\\envs\\x\\lib\\site-packages\\torch\\autograd\\__init__.py",
        51,
        f'raise RuntimeError("{MESSAGE}")',
    )
    assert not raises_outside_torch(frame, f"RuntimeError: {MESSAGE}")
    relative = Frame("torch/autograd/__init__.py", 51, frame.code)  # run from a checkout
    assert not raises_outside_torch(relative, f"RuntimeError: {MESSAGE}")
    moved = Frame("C:\\work\\minigrad\\tensor.py", 51, frame.code)
    assert raises_outside_torch(moved, f"RuntimeError: {MESSAGE}")


@pytest.mark.parametrize(
    ("code", "literal"),
    [
        (f'raise RuntimeError("{MESSAGE}")', MESSAGE),
        (
            'raise RuntimeError(f"Only Tensors of {kind} dtype can require gradients")',
            "Only Tensors of",
        ),
        ("raise RuntimeError(f'{name} does not require grad')", ""),  # no words before a field
        ("raise RuntimeError(str(error))", ""),  # a re-raise in other words: torch's own text
        ("raise", ""),
        ('raise RuntimeError("short")', ""),  # too few words to stand for a message
        ('error = RuntimeError("grad can be implicitly created")', ""),  # not a raise line
    ],
)
def test_the_literal_a_raise_line_raises(code, literal):
    assert raised_literal(code) == literal


def test_a_raise_of_other_words_is_not_a_copy():
    frame = Frame("/home/me/lib/wrapper.py", 3, 'raise RuntimeError("training failed at step")')
    assert not raises_outside_torch(frame, f"RuntimeError: {MESSAGE}")
