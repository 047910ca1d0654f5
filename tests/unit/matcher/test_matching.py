"""The matcher on real torch messages, in the forms users paste them."""

from __future__ import annotations

import textwrap

import pytest
from helpers import ANOMALY_LINES_2_13, MESSAGES_2_13, load_data

from autograd_errors.matcher.matching import find_entries, find_matches

ENTRY_IDS = sorted(MESSAGES_2_13)


def traceback_around(line: str, code: str = "loss.backward()") -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/user/project/train.py", line 42, in <module>\n'
        f"    {code}\n"
        '  File "/home/user/.venv/lib/python3.11/site-packages/torch/_tensor.py", line 648, '
        "in backward\n"
        "    torch.autograd.backward(\n"
        f"{line}\n"
    )


def hard_wrap(text: str, width: int = 80) -> str:
    """What a terminal does: cut every ``width`` characters, mid-word or not."""
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def forms(entry_id: str) -> dict[str, tuple[str, dict[str, str]]]:
    recorded = MESSAGES_2_13[entry_id]
    message, fields = recorded["message"], recorded["fields"]
    prefixed = f"{recorded['exception']}: {message}"
    return {
        "bare": (message, fields),
        "prefixed": (prefixed, fields),
        "traceback": (traceback_around(prefixed), fields),
        "wrapped-at-words": (textwrap.fill(prefixed, 80), fields),
        "wrapped-hard": (hard_wrap(prefixed, 80), fields),
        "cuda": (
            traceback_around(f"{recorded['exception']}: {recorded['cuda']['message']}", "y.cuda()"),
            recorded["cuda"]["fields"],
        ),
    }


FORM_CASES = [(entry_id, form) for entry_id in ENTRY_IDS for form in forms(entry_id)]


@pytest.mark.parametrize(("entry_id", "form"), FORM_CASES, ids=[f"{e}-{f}" for e, f in FORM_CASES])
def test_torch_2_13_message_in_every_form(packaged_catalog, entry_id, form):
    text, fields = forms(entry_id)[form]
    matches = find_matches(text, packaged_catalog)
    assert [m.entry.id for m in matches] == [entry_id]
    assert matches[0].wording.variant == "current"
    assert matches[0].fields == fields
    assert matches[0].score == 1.0


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_rebuilt_message_is_the_one_torch_printed(packaged_catalog, entry_id):
    recorded = MESSAGES_2_13[entry_id]
    (match,) = find_matches(recorded["message"], packaged_catalog)
    assert match.message == recorded["message"]


def all_wordings():
    from autograd_errors.catalog import load

    for entry in load(use_cache=False):
        for wording in entry.wordings:
            yield pytest.param(entry.id, wording.variant, id=f"{entry.id}-{wording.variant}")


@pytest.mark.parametrize(("entry_id", "variant"), list(all_wordings()))
def test_every_recorded_wording_matches_its_own_variant(packaged_catalog, entry_id, variant):
    wording = packaged_catalog[entry_id].wording(variant)
    assert wording.example, "every wording carries a real example of itself"
    matches = find_matches(wording.example, packaged_catalog)
    assert [(m.entry.id, m.wording.variant) for m in matches] == [(entry_id, variant)]
    assert matches[0].score == 1.0


REAL_PASTES = load_data("real-pastes.json")["pastes"]


@pytest.mark.parametrize(
    "paste", REAL_PASTES, ids=[f"{p['expected']}-{n}" for n, p in enumerate(REAL_PASTES)]
)
def test_real_pastes_from_public_threads(packaged_catalog, paste):
    explanation = find_entries(paste["text"], packaged_catalog)
    if paste["expected"] is None:  # lines an entry knows, but not an error it explains
        assert explanation.matches == []
        assert explanation.context_only is paste.get("context_only", False)
        if explanation.context_only:  # the user's line their forward traceback names
            frame = explanation.frame
            assert f"{frame.file}:{frame.line}" == paste["context_frame"]
        return
    assert explanation.matches, f"no match for {paste['source']}"
    assert explanation.matches[0].entry.id == paste["expected"]
    assert explanation.matches[0].kind == paste.get("match", "exact")
    if "cause" in paste:  # what its signs show (issue 23)
        choice = explanation.matches[0].cause
        assert choice is not None
        assert (choice.cause_id, bool(choice.evidence)) == (paste["cause"], True)


NOT_AUTOGRAD = load_data("not-autograd.json")["errors"]


def test_enough_non_autograd_errors_are_collected():
    assert len(NOT_AUTOGRAD) >= 20


@pytest.mark.parametrize(
    "error", NOT_AUTOGRAD, ids=[f"{n}-{e['kind'][:40]}" for n, e in enumerate(NOT_AUTOGRAD)]
)
def test_non_autograd_errors_match_nothing(packaged_catalog, error):
    assert find_matches(error["text"], packaged_catalog) == []
    # Nor partly: a non-autograd error is never offered as an autograd entry.
    assert find_entries(error["text"], packaged_catalog).matches == []


#: The kinds issue 11 names, by how the collected errors' descriptions start.
NOT_AUTOGRAD_KINDS = {
    "cuda-oom": "cuda-out-of-memory",
    "cuda error: out of memory": "cuda-out-of-memory",
    "cuda runtime error (2) out of memory": "cuda-out-of-memory",
    "device mismatch": "device-mismatch",
    "mat1 and mat2 shapes": "shape-mismatch",
    "mat1/mat2 shape mismatch": "shape-mismatch",
    "dtype mismatch": "dtype-mismatch",
    "load_state_dict": "state-dict-mismatch",
    "DataLoader worker killed": "dataloader-worker",
    "cuda device-side assert": "device-side-assert",
}
NAMED = [
    (error, kind)
    for error in NOT_AUTOGRAD
    for start, kind in NOT_AUTOGRAD_KINDS.items()
    if error["kind"].startswith(start)
]


def test_every_kind_the_issue_names_is_collected():
    assert {kind for _, kind in NAMED} == set(NOT_AUTOGRAD_KINDS.values())


@pytest.mark.parametrize(("error", "kind"), NAMED, ids=[e["kind"][:40] for e, _ in NAMED])
def test_non_autograd_errors_are_named(packaged_catalog, error, kind):
    explanation = find_entries(error["text"], packaged_catalog)
    assert explanation.not_autograd is not None
    assert explanation.not_autograd.name == kind
    assert explanation.not_autograd.url.startswith("https://pytorch.org/")
    assert (explanation.matches, explanation.near_misses) == ([], [])


def test_an_autograd_error_beside_a_non_autograd_one_is_still_explained(packaged_catalog):
    paste = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
        "operation.\n"
    )
    explanation = find_entries(paste, packaged_catalog)
    assert [m.entry.id for m in explanation.matches] == ["leaf-inplace"]
    assert explanation.not_autograd is None


def test_anomaly_mode_context_lines_are_no_match_of_their_own(packaged_catalog):
    # What torch 2.13.0 prints for an in-place error under detect_anomaly().
    paste = (
        ANOMALY_LINES_2_13 + "Traceback (most recent call last):\n"
        '  File "/tmp/t.py", line 15, in <module>\n'
        "    y.sum().backward()\n"
        "RuntimeError: one of the variables needed for gradient computation has been modified by "
        "an inplace operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at "
        "version 1; expected version 0 instead. Hint: the backtrace further above shows the "
        "operation that failed to compute its gradient. The variable in question was changed in "
        "there or anywhere later. Good luck!\n"
    )
    # "Error detected in SigmoidBackward0" only accompanies the in-place error.
    explanation = find_entries(paste, packaged_catalog)
    for matches in (find_matches(paste, packaged_catalog), explanation.matches):
        assert [(m.entry.id, m.wording.variant) for m in matches] == [
            ("inplace-modified", "anomaly-mode")
        ]
    # Alone, the warnings are no answer: anomaly mode prints them beside any error of the
    # backward pass (an in-place one here); their entry is a near miss, and the answer says
    # that the error's own message is missing (a blind sample's paste got anomaly-nan's NaN
    # causes for an in-place error).
    alone = find_entries(paste[: paste.index("Traceback (most")], packaged_catalog)
    assert (alone.matches, alone.context_only) == ([], True)
    assert [miss.entry.id for miss in alone.near_misses] == ["anomaly-nan"]
    # Their forward traceback still names the user's line: the sigmoid whose backward failed,
    # not the line that turned anomaly mode on.
    assert (alone.frame.file, alone.frame.line) == ("/tmp/t.py", 13)
    assert alone.frame.code == "y = torch.sigmoid(x)"
    assert find_entries(paste, packaged_catalog).context_only is False


def test_chained_exceptions_put_the_last_one_first(packaged_catalog):
    paste = (
        traceback_around(
            "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
        )
        + "\nDuring handling of the above exception, another exception occurred:\n\n"
        + traceback_around("TypeError: Variable data has to be a tensor, but got NoneType")
    )
    assert [m.entry.id for m in find_matches(paste, packaged_catalog)] == [
        "data-not-tensor",
        "no-grad-fn",
    ]


@pytest.mark.parametrize(
    ("paste", "entry_id", "variant"),
    [
        # The seed notes quote only the first sentence of these.
        (
            "RuntimeError: Trying to backward through the graph a second time",
            "backward-twice",
            "current",
        ),
        (
            "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being "
            "accessed.",
            "nonleaf-grad",
            "current",
        ),
        (
            "\"RuntimeError: Function 'PowBackward0' returned nan values in its 0th\"",
            "anomaly-nan",
            "current",
        ),
        (
            "one of the variables needed for gradient computation has been modified by an inplace "
            "operation: [torch.FloatTensor [3]], which is output 0 of ...",
            "inplace-modified",
            "current",
        ),
    ],
)
def test_a_paste_cut_off_at_the_end_of_a_line_still_matches(
    packaged_catalog, paste, entry_id, variant
):
    (match,) = find_matches(paste, packaged_catalog)
    assert (match.entry.id, match.wording.variant) == (entry_id, variant)
    assert 0 < match.score < 1


@pytest.mark.parametrize(
    "paste",
    [
        # pyg-team/pytorch_geometric#4259 (blind sample 7): the first clause, in bold, ended
        # with the user's own full stop, after a bare "Error:" of their sentence.
        "When I define a GAT net, and pass its output to BART model's decoder, which uses for "
        "cross attention. The bart decoder has 12 attention layers. **And I will get an Error: "
        "Trying to backward through the graph a second time.** \nWhen I don\u2018t use GATConv "
        "layer, it won't happen.",
        "I keep getting Trying to backward through the graph a second time.\nAny idea?",
    ],
)
def test_a_message_cut_off_with_the_users_full_stop_still_matches(packaged_catalog, paste):
    explanation = find_entries(paste, packaged_catalog)
    assert [m.entry.id for m in explanation.matches] == ["backward-twice"]


@pytest.mark.parametrize(
    ("paste", "entry_id"),
    [
        # The message whole but for its full stop, as people quote it: in quotes, in bold, in
        # backticks inside a sentence (from real-pastes.json and the threads of tuning-pastes).
        (
            "\"RuntimeError: Function 'PowBackward0' returned nan values in its 0th output\"",
            "anomaly-nan",
        ),
        (
            "> **a leaf Variable that requires grad is being used in an in-place operation**",
            "leaf-inplace",
        ),
        (
            "`p.add_(-lr, p.grad)` throws `RuntimeError: a leaf Variable that requires grad is "
            "being used in an in-place operation`, using `p.data.add_(-lr, p.grad)` fixes this.",
            "leaf-inplace",
        ),
    ],
)
def test_a_message_without_its_full_stop_is_whole(packaged_catalog, paste, entry_id):
    (match,) = find_matches(paste, packaged_catalog)
    assert (match.entry.id, match.kind, match.score) == (entry_id, "exact", 1.0)


def test_a_wording_matched_to_its_end_beats_one_missing_its_full_stop(packaged_catalog):
    """derivative-not-implemented words its message with a full stop, and once without."""
    wording = packaged_catalog["derivative-not-implemented"].wording("no-full-stop")
    (match,) = find_matches(wording.example, packaged_catalog)
    assert match.wording.variant == "no-full-stop"


@pytest.mark.parametrize(
    "paste",
    [
        "Trying to backward",  # too short to tell
        "Trying to backward through the graph a second time, but I don't know why",
        "a leaf Variable that requires grad is being used in an in-place operation? No: it's fine",
    ],
)
def test_cut_off_text_matches_only_when_long_and_at_a_line_end(packaged_catalog, paste):
    assert [m.score for m in find_matches(paste, packaged_catalog) if m.score < 1] == []


def test_a_reworded_message_is_a_partial_match_never_an_exact_one(packaged_catalog):
    # What a future torch release might print: the rare words of a wording, in order.
    paste = (
        "RuntimeError: Trying to run backward through this graph twice: its saved tensors "
        "were already freed when you called .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time."
    )
    explanation = find_entries(paste, packaged_catalog)
    assert [(m.entry.id, m.kind) for m in explanation.matches] == [("backward-twice", "partial")]
    assert 0 < explanation.matches[0].score < 1


def test_words_of_a_wording_out_of_order_are_only_a_near_miss(packaged_catalog):
    paste = "gradient require doesn't that tensor a on hook a register cannot"
    explanation = find_entries(paste, packaged_catalog)
    assert explanation.matches == []
    assert [(miss.entry.id, miss.similarity) for miss in explanation.near_misses][:1] == [
        ("hook-no-grad", 1.0)
    ]


def test_near_misses_weigh_words_by_rarity(packaged_catalog):
    # Common words shared with a short entry ("tensors must be 2-D") do not make it close.
    paste = "RuntimeError: all tensors must be on the same process group, and the module must "
    paste += "be wrapped in DistributedDataParallel before the first step."
    explanation = find_entries(paste, packaged_catalog)
    assert explanation.matches == []
    assert explanation.near_misses == []


def test_near_misses_are_not_offered_for_unrelated_errors(packaged_catalog):
    paste = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x3 and 4x1)"
    assert find_entries(paste, packaged_catalog).near_misses == []


def test_fields_drive_the_explanation(packaged_catalog):
    paste = MESSAGES_2_13["inplace-modified"]["cuda"]["message"]
    (match,) = find_matches(paste, packaged_catalog)
    details = match.details()
    assert details[0] == (
        "The [64, 128] tensor (torch.cuda.HalfTensor), output 0 of Relu, was changed in place "
        "after autograd saved it: it is at version 2, autograd expected 1."
    )
    assert any("nn.ReLU(inplace=True)" in line for line in details)


def test_details_needing_an_uncaptured_field_are_left_out(packaged_catalog):
    (match,) = find_matches(
        "RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation",
        packaged_catalog,
    )
    assert match.wording.variant == "bare"
    assert match.details() == []


@pytest.mark.parametrize(
    ("node", "op"),
    [
        ("SigmoidBackward0", "Sigmoid"),
        ("SigmoidBackward", "Sigmoid"),
        ("Sigmoid", "Sigmoid"),
        ("torch::autograd::CopySlices", "CopySlices"),
        ("ReluBackward1", "Relu"),
    ],
)
def test_the_operation_behind_every_node_name_style(node, op):
    from autograd_errors.matcher.matching import with_derived_fields

    assert with_derived_fields({"node": node})["op"] == op


def test_exact_matches_rank_above_partial_ones(packaged_catalog):
    # A complete message, then (the final exception) one cut off at its line's end.
    paste = (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.\n"
        "RuntimeError: Trying to backward through the graph a second time\n"
    )
    matches = find_entries(paste, packaged_catalog).matches
    assert [(m.entry.id, m.kind) for m in matches] == [
        ("leaf-inplace", "exact"),
        ("backward-twice", "partial"),
    ]


ISSUE_11 = [
    ("Saved intermediate values of the graph are freed", ["backward-twice"]),
    ("needed for gradient computation", ["inplace-modified"]),
    ("element 0 of tensor does not requires grad", ["no-grad-fn", "input-does-not-require-grad"]),
    (
        "a leaf Variable that requires grad is being used in an `in-place` operation",
        ["leaf-inplace", "view-leaf-inplace"],
    ),
    (
        "one of the varaibles needed for gradient computation has been modified by an inplace "
        "operation",
        ["inplace-modified"],
    ),
    (
        "RUNTIMEERROR: TRYING TO BACKWARD THROUGH THE GRAPH A SECOND TIME (OR DIRECTLY ACCESS",
        ["backward-twice"],
    ),
    (
        # backward-hook-view-inplace's wording names BackwardHookFunction where this names
        # UnbindBackward0: its sliver (9% of it) leaves "Output" unexplained, so it is left out
        "Output 0 of UnbindBackward0 is a view and is being modified inplace",
        ["multi-output-view-inplace", "custom-function-view-inplace"],
    ),
    (
        '"the graph a second time or directly access saved tensors after they have already been"',
        ["backward-twice"],
    ),
]


@pytest.mark.parametrize(("paste", "ids"), ISSUE_11, ids=[p[:40] for p, _ in ISSUE_11])
def test_what_people_type_and_paste_is_a_partial_match(packaged_catalog, paste, ids):
    matches = find_entries(paste, packaged_catalog).matches
    assert [m.entry.id for m in matches] == ids
    assert {m.kind for m in matches} == {"partial"}
    assert all(0 < m.score < 1 for m in matches)


@pytest.mark.parametrize(
    "paste",
    [
        # Blind sample 2 (a Chinese sentence run into the message), and the class glued to it.
        "我训练时出现了element 0 of tensors does not require grad and does not have a grad_fn，"
        " 请问一下这个该怎么解决，pytorch用的1.2",
        "出现了RuntimeError: element 0 of tensors does not require grad and does not have a "
        "grad_fn",
    ],
)
def test_a_message_run_into_a_sentence_without_spaces_is_whole(packaged_catalog, paste):
    (match,) = find_entries(paste, packaged_catalog).matches
    assert (match.entry.id, match.kind, match.fields) == ("no-grad-fn", "exact", {"index": "0"})


@pytest.mark.parametrize(
    ("paste", "entry_id"),
    [
        # zbwxp/SegVit#10 (blind sample 9): the message's first sentence whole, then the user's.
        (
            "Did you try checkpointing? It will cause the error: Expected to mark a variable "
            "ready only once. Without checkpointing, I can't even train the large model with 8 "
            "RTX3090.",
            "ddp-mark-ready-twice",
        ),
        (
            "I get Trying to backward through the graph a second time. When I call it",
            "backward-twice",
        ),
        # megvii-research/AnchorDETR#6 (sample 1): an older wording ("producing a loss") whose
        # first sentence is also ddp-static-graph's: the fragments decide, as before.
        (
            "RuntimeError: Expected to have finished reduction in the prior iteration before "
            "starting a new one. This error indicates that your module has parameters that were "
            "not used in producing a loss. You can enable unused parameter detection by (1) "
            "passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`; (2) making sure all `forward` function "
            "outputs participate in calculating loss.",
            "ddp-unused-parameters",
        ),
    ],
)
def test_a_messages_first_sentences_quoted_in_a_line_match(packaged_catalog, paste, entry_id):
    assert [m.entry.id for m in find_entries(paste, packaged_catalog).matches] == [entry_id]


def test_a_cut_off_message_stands_above_a_fragment_another_entry_shares(packaged_catalog):
    """open-mmlab/mmcv#2869 (blind sample 9): the last sentence of the message that both DDP
    entries end with, then the error cut off where only ddp-unused-parameters' wording goes on."""
    paste = (
        " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either "
        "INFO or DETAIL to print out information about which particular parameters did not "
        "receive gradient on this rank as part of this error\n"
        "Traceback (most recent call last):\n"
        '  File "./train.py", line 253, in <module>\n    main()\n'
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting "
        "a new one. This error indicates that your module has parameters that w"
    )
    explanation = find_entries(paste, packaged_catalog)
    assert [m.entry.id for m in explanation.matches] == ["ddp-unused-parameters"]
    assert not explanation.shared


def test_a_full_stop_inside_a_word_of_the_message_ends_no_cut(packaged_catalog):
    """torch 2.15's selective-checkpoint warning ends with "... to
    torch.utils.checkpoint.checkpoint.", where checkpoint-use-reentrant's wording goes on
    "checkpoint_sequential:": the paste's full stop ends its own word, not the message's."""
    paste = (
        "FutureWarning: A saved_tensors_hooks context (e.g. save_on_cpu) is active around a "
        "selective activation checkpoint region. Silence this warning and choose the behavior "
        "explicitly by passing respect_saved_tensors_hooks=True|False to "
        "torch.utils.checkpoint.checkpoint."
    )
    assert [m.entry.id for m in find_matches(paste, packaged_catalog)] == []


def test_a_torchscript_node_in_an_unnamed_namespace_is_one_node(packaged_catalog):
    """pytorch/pytorch#108670 (blind sample 10): the node's name holds a space, which cut it in
    two, and the shorter wording inside the message (the engine's, for a gradient passed to
    backward()) was the answer."""
    paste = (
        "RuntimeError: Function torch::jit::(anonymous namespace)::DifferentiableGraphBackward "
        "returned an invalid gradient at index 0 - got [8, 1, 1024] but expected shape "
        "compatible with [8, 512, 1024]"
    )
    (match,) = find_entries(paste, packaged_catalog).matches
    assert (match.entry.id, match.kind) == ("invalid-gradient-shape", "exact")
    assert match.fields["node"] == "torch::jit::(anonymous namespace)::DifferentiableGraphBackward"
    assert match.message == paste.removeprefix("RuntimeError: ")


#: Real pastes whose words matched a wording they are no part of, each named by its thread.
NO_FRAGMENT_PASTES = {
    # https://github.com/v-mipeng/LexiconNER/issues/7 (blind sample 11): "pytorch 1.1.0" in
    # the user's sentence matched lr-scheduler-order's "In PyTorch 1.1.0 and later"; the error
    # is Python's, on a float
    "version-number": (
        "我在跑代码的过程中，遇到了如下的问题，所用的pytorch版本是1.1.0，python3的环境。\n"
        "Traceback (most recent call last):\n"
        '  File "feature_pu_model.py", line 136, in train_mini_batch\n'
        "    (risk).backward()\n"
        "AttributeError: 'float' object has no attribute 'backward'"
    ),
    # https://github.com/bordias/layoutlm/issues/1 (blind sample 14): Colab's frames;
    # "outputs = model(**inputs)" in their code is not the three words of
    # derivative-not-implemented's "output = model(inputs)"
    "ipython-frames": (
        "IndexError: index out of range in self\n\n"
        "IndexError                                Traceback (most recent call last)\n"
        "<ipython-input-31-34ebe37ab2df> in <module>()\n"
        '     30           batch[2].to(device) if model_type in ["bert", "layoutlm"] else None)\n'
        "     31       # try:\n"
        "---> 32       outputs = model(**inputs)\n\n"
        "/usr/local/lib/python3.6/dist-packages/torch/nn/functional.py in embedding(input, "
        "weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)"
    ),
    # https://github.com/fla-org/flash-linear-attention/issues/837 (blind sample 15): "At the
    # same time:" is three rare words of volatile-removed's "... at the same time!"
    "plain-short-chain": (
        "In our PaTH pretraining runs, `grad_norm` becomes abnormally large when variable-length "
        "mode is enabled (`cu_seqlens != None`).\n\nAt the same time:\n- loss can still decrease,"
    ),
}


@pytest.mark.parametrize("name", NO_FRAGMENT_PASTES)
def test_words_of_another_kind_are_no_fragment(packaged_catalog, name):
    assert find_entries(NO_FRAGMENT_PASTES[name], packaged_catalog).matches == []


def test_a_short_chain_with_a_word_of_code_is_a_fragment(packaged_catalog):
    # three words, one of them code: a fragment still
    found = find_entries("specify retain_graph=True", packaged_catalog).matches
    assert [(m.entry.id, m.kind) for m in found] == [("backward-twice", "partial")]
