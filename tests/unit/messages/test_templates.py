"""Templates: parsing, deterministic matching, truncation."""

from __future__ import annotations

import pytest

from autograd_errors.messages.normalize import skeleton
from autograd_errors.messages.templates import (
    MIN_TRUNCATED_CHARS,
    Template,
    TemplateError,
    folded,
)


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("unbalanced {brace", "unbalanced"),
        ("unbalanced brace} here", "unbalanced"),
        ("got {thing} here", "unknown placeholder kind"),
        ("got {a:index}{b:index} here", "two placeholders in a row"),
        ("got {name:attribute}_suffix", "could also hold"),
        ("got {a:index} and {a:index}", "used twice"),
        ("{a:index} {b:index} x", "two placeholders in a row"),
        ("ab {a:index}", r"6\+ literal characters"),
        ("{node}", "no literal text"),
    ],
)
def test_bad_templates_are_refused(template, problem):
    with pytest.raises(TemplateError, match=problem):
        Template(template)


def test_braces_can_be_escaped():
    template = Template("a literal {{brace}} then {node:node}.")
    assert template.render({"node": "MulBackward0"}) == "a literal {brace} then MulBackward0."


def test_placeholders_capture_their_kind():
    template = Template("modified: [{tensor_type} {shape}], output {output_index:index} of {node}.")
    (found,) = template.find(
        skeleton(
            "modified: [torch.cuda.HalfTensor [64, 128, 3]], output 2 "
            "of torch::autograd::CopySlices."
        )
    )
    assert found.complete
    assert found.fields == {
        "tensor_type": "torch.cuda.HalfTensor",
        "shape": "[64, 128, 3]",
        "output_index": "2",
        "node": "torch::autograd::CopySlices",
    }


def test_an_empty_shape_is_a_shape():
    (found,) = Template("tensor of shape {shape} here").find(skeleton("tensor of shape [] here"))
    assert found.fields == {"shape": "[]"}


def test_a_trailing_value_stops_at_the_end_of_its_word():
    template = Template("Variable data has to be a tensor, but got {python_type}")
    (found,) = template.find(skeleton("Variable data has to be a tensor, but got int\nnext_line"))
    assert found.fields == {"python_type": "int"}


def test_a_leading_value_stops_at_the_start_of_its_word():
    template = Template("{op}(): functions with out=... arguments don't support it")
    (found,) = template.find(
        skeleton("torch.add(a, 1, out=x)\nadd(): functions with out=... arguments don't support it")
    )
    assert found.fields == {"op": "add"}


def test_a_value_wrapped_by_a_terminal_is_rejoined():
    template = Template("modified: [{tensor_type} {shape}] is at version {version}")
    (found,) = template.find(
        skeleton("modified: [torch.cuda.Float\nTensor [64,\n 128]] is at version 3")
    )
    assert found.fields == {
        "tensor_type": "torch.cuda.FloatTensor",
        "shape": "[64, 128]",
        "version": "3",
    }


def test_truncated_match_needs_enough_text_and_a_line_end():
    template = Template(
        "Trying to backward through the graph a second time, but the buffers are gone."
    )
    short = "Trying to backward through the"  # 25 letters without spaces
    assert len(short.replace(" ", "")) < MIN_TRUNCATED_CHARS
    assert template.find(skeleton(short)) == []
    (found,) = template.find(skeleton("Trying to backward through the graph a second time\nnext"))
    assert not found.complete
    assert template.score(found) == round(42 / template.literal_chars, 3)
    assert template.find(skeleton("Trying to backward through the graph a second time, no")) == []


def test_every_occurrence_is_found():
    template = Template("element {index} of tensors does not require grad")
    found = template.find(skeleton("element 0 of tensors does not require grad\n" * 3))
    assert [f.fields["index"] for f in found] == ["0", "0", "0"]


def test_a_version_of_several_digits_is_captured_whole():
    # torch counts versions past 9 in real runs ("is at version 12"); a kind cut too short would
    # lose the field and fall back to a bare wording.
    template = Template("is at version {version}; expected version {expected_version:version} ok")
    (found,) = template.find(skeleton("is at version 12; expected version 11 ok"))
    assert found.complete
    assert found.fields == {"version": "12", "expected_version": "11"}


def test_a_python_type_at_a_sentence_end_loses_its_full_stop():
    template = Template("Variable data has to be a tensor, but got {python_type}")
    (found,) = template.find(skeleton("Variable data has to be a tensor, but got int."))
    assert found.fields == {"python_type": "int"}
    (dotted,) = template.find(skeleton("Variable data has to be a tensor, but got numpy.ndarray."))
    assert dotted.fields == {"python_type": "numpy.ndarray"}


def test_a_message_whose_capital_the_user_lowered_is_the_message():
    # A blind sample's paste (https://github.com/marcoancona/TorchPruner/issues/1): the copy
    # lowercased "Function"; the wording inside it (grad-shape-mismatch's) must not win for it.
    template = Template(
        "Function {node} returned an invalid gradient at index {index} - got {got:shape} "
        "but expected shape compatible with {expected:shape}"
    )
    pasted = (
        "function normbackward1 returned an invalid gradient at index 0 - got [512, 120, 3, 3] "
        "but expected shape compatible with [512, 512, 3, 3]"
    )
    (found,) = template.find(skeleton(pasted))
    assert found.complete
    assert found.fields["node"] == "normbackward1"
    # both spellings in one paste: each is found, the last first
    both = template.find(skeleton(pasted + "\n" + pasted.replace("function", "Function", 1)))
    assert [f.start for f in both] == sorted((f.start for f in both), reverse=True)
    assert len(both) == 2


@pytest.mark.parametrize(
    ("literal", "lowered"),
    [
        ("Function ", "function "),
        ("Trying to backward", "trying to backward"),
        ("CUDA error: ", None),  # an acronym stays as torch writes it
        ("DDP expects", None),
        ("a leaf Variable", None),  # already lower case
        ("", None),
    ],
)
def test_only_a_capitalised_first_word_is_folded(literal, lowered):
    assert folded(literal) == lowered


def test_a_message_starting_inside_a_word_is_still_no_match_when_folded():
    template = Template("Function {node} returned an invalid gradient at index {index}")
    # "function" inside "myfunction" starts no message, lowered or not
    assert template.find(skeleton("myfunction X returned an invalid gradient at index 0")) == []
