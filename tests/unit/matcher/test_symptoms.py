"""Silent pitfalls found by how users meet them (matcher/symptoms.py): Python's error at a line
that reads ``.grad``, and the pitfall's own title or symptom words. The pastes are real, from the
threads named beside them."""

from __future__ import annotations

import pytest

from autograd_errors import catalog
from autograd_errors.matcher.matching import find_entries
from autograd_errors.matcher.symptoms import reads, sentences

CATALOG = catalog.load()

GRAD_IS_NONE_PASTES = {
    # https://github.com/wiseodd/generative-models/issues/26
    "reset_grad": (
        "Traceback (most recent call last):\n"
        '  File "infogan_pytorch.py", line 119, in <module>\n'
        "    reset_grad()\n"
        '  File "infogan_pytorch.py", line 86, in reset_grad\n'
        "    p.grad.data.zero_()\n"
        "AttributeError: 'NoneType' object has no attribute 'data'"
    ),
    # https://github.com/pkmr06/pytorch-smoothgrad/issues/5 (IPython shows lines below the arrow)
    "ipython": (
        "---> 47         x.grad.data.zero_()  # Reset the gradient to zero\n"
        "     48 \n"
        "     49         # print('x=', x)\n"
        "\n"
        "AttributeError: 'NoneType' object has no attribute 'data'"
    ),
    # https://github.com/learnables/learn2learn/issues/428
    "mul": (
        "Error message:  p.grad.data.mul_(1.0 / meta_batch_size)\n"
        "AttributeError: 'NoneType' object has no attribute 'data'"
    ),
    # https://github.com/huggingface/transformers/issues/43
    "loss_scale": (
        '  File "examples/run_squad.py", line 904, in main\n'
        "    param.grad.data = param.grad.data / args.loss_scale\n"
        "AttributeError: 'NoneType' object has no attribute 'data'"
    ),
    # https://github.com/jcjohnson/pytorch-examples/issues/7
    "zero": "    w1.grad.data.zero_()\nAttributeError: 'NoneType' object has no attribute 'data'",
    # A sentence that quotes the error after the line that raised it (written as
    # https://github.com/jcjohnson/pytorch-examples/pull/4 does, a blind sample's paste)
    "quoted": (
        "Calling p.grad.data.zero_() at the first step raises "
        "\"AttributeError: 'NoneType' object has no attribute 'data'\" for me."
    ),
    # the manual update of a tutorial: lr * w.grad with w.grad None
    "update": (
        '  File "fit.py", line 12, in <module>\n'
        "    w -= lr * w.grad\n"
        "TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'"
    ),
}


@pytest.mark.parametrize("name", GRAD_IS_NONE_PASTES)
def test_a_nonetype_error_at_a_line_reading_grad_is_grad_is_none(name):
    explanation = find_entries(GRAD_IS_NONE_PASTES[name], CATALOG)
    assert [m.entry.id for m in explanation.matches] == ["grad-is-none"]
    assert explanation.matches[0].kind == "symptom"


@pytest.mark.parametrize(
    "paste",
    [
        # https://github.com/utkuozbulak/pytorch-cnn-visualizations/issues/92: a hook's
        # attribute, not a .grad: the hook did not run, which is not this pitfall.
        "gradients_as_array = self.gradients.data.cpu().numpy()[0]\n"
        "AttributeError: 'NoneType' object has no attribute 'data'",
        # https://github.com/shepnerd/inpainting_gmcnn/issues/74: nothing of autograd's
        "self.result = self.sess.run(self.output, feed_dict={self.input_image_tf: image * 1.0,\n"
        "TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'",
        # quoted in a sentence after another attribute: not a .grad
        "Calling self.gradients.data.cpu() raises "
        "\"AttributeError: 'NoneType' object has no attribute 'data'\" for me.",
        # the same error without the line that raised it says nothing of .grad
        "AttributeError: 'NoneType' object has no attribute 'data'",
        # .grad_fn is not .grad
        "    fn = y.grad_fn.next_functions\n"
        "AttributeError: 'NoneType' object has no attribute 'next_functions'",
    ],
)
def test_the_same_error_elsewhere_is_not_grad_is_none(paste):
    ids = [m.entry.id for m in find_entries(paste, CATALOG).matches]
    assert "grad-is-none" not in ids


TOLD_PASTES = {
    # https://github.com/ssnl/dataset-distillation/issues/61: told on the line of the code
    "same_line": (
        "I am testing your repo and I got this error.\n\n I got an error in d.grad.add_(g). It "
        "says 'NoneType' object has no attribute 'add_'. I printed the type of 'd', it is "
        "obviously a Tensor type."
    ),
    # https://github.com/yunjey/pytorch-tutorial/issues/133: the code quoted on the line above,
    # the error in the user's case and without its quotes
    "line_above": (
        "When the python program run to the code of visualizing the parameter of the model : "
        '"value.grad.data.cpu().numpy()", \nerror raises : Nonetype Object has no attribute '
        "'data'"
    ),
}


#: Other programs' words for a NaN loss (the entry's [[symptom_message]] tables), from real
#: threads.
NAN_LOSS_MESSAGES = {
    # https://github.com/facebookresearch/detectron2/issues/508
    "detectron2": (
        "When I trained my datasets for object detection, I got the following error\uff1a\n"
        "FloatingPointError: Loss became infinite or NaN at iteration=27!\n"
        "loss_dict = {'loss_cls': tensor(nan, device='cuda:0', grad_fn=), 'loss_box_reg': "
        "tensor(0.2576, device='cuda:0', grad_fn=)}"
    ),
    # https://github.com/pytorch/vision/issues/1994
    "torchvision": (
        "Loss is nan, stopping training\n"
        "{'loss_classifier': tensor(0.9080, device='cuda:1', grad_fn=<NllLossBackward>), "
        "'loss_box_reg': tensor(nan, device='cuda:1', grad_fn=<DivBackward0>)}"
    ),
    # https://github.com/clovaai/deep-text-recognition-benchmark/issues/66: a training log
    "log": (
        "train the model\uff0cbut get the nan loss\n\n"
        "[38/300000] lr: 0.1 0.1 single_train_elapsed_time: 0.22594 train_loss: nan\n"
        "[39/300000] lr: 0.1 0.1 single_train_elapsed_time: 0.23453 train_loss: nan"
    ),
    # https://github.com/ikostrikov/pytorch-flows/issues/4
    "average": (
        "Train Epoch: 0 [800000/852174 (94%)]\tLoss: -2.554942\n\n"
        "Validation set: Average loss: nan\n"
    ),
    # https://github.com/leeyeehoo/csrnet-pytorch/issues/24: no colon
    "no_colon": "Epoch: [0][1170/1200]\tTime 0.709 (0.417)\tData 0.020 (0.017)\tLoss nan (nan)",
    # https://github.com/ymcui/chinese-llama-alpaca/issues/823: a dict's key
    "dict": "{'eval_loss': nan, 'eval_runtime': 236.5281, 'eval_samples_per_second': 8.202,",
    # https://github.com/verl-project/verl/issues/498: the loss first, the gradient norm after
    "loss_first": (
        "step:1 - critic/kl:-0.000 - critic/vf_loss:nan - critic/vf_clipfrac:0.000 - "
        "critic/vpred_mean:nan - critic/grad_norm:nan - actor/grad_norm:9.819"
    ),
}

#: A training log's NaN gradient norm: the NaN-gradient pitfall, from real threads.
NAN_GRADIENT_LOGS = {
    # https://github.com/bigscience-workshop/megatron-deepspeed/issues/396
    "megatron": (
        " iteration     5426/  250000 | learning rate: 2.999E-04 | global batch size:     8 | "
        "loss scale: 1.0 | grad norm: nan | actual seqlen:  2048 |"
    ),
    # https://github.com/om-ai-lab/vlm-r1/issues/346: the gradient norm first
    "grad_first": "{'loss': 1.4681, 'grad_norm': nan, 'learning_rate': 6.22e-10, 'epoch': 0.0}",
}


@pytest.mark.parametrize(
    ("paste", "entry_id"),
    [pytest.param(text, "grad-is-none", id=f"told-{name}") for name, text in TOLD_PASTES.items()]
    + [pytest.param(text, "nan-loss", id=name) for name, text in NAN_LOSS_MESSAGES.items()]
    + [
        pytest.param(text, "nan-gradient-silent", id=name)
        for name, text in NAN_GRADIENT_LOGS.items()
    ],
)
def test_told_errors_and_other_programs_words_find_their_pitfall(paste, entry_id):
    """A NoneType error told without its class beside a .grad; another program's report of a
    NaN loss."""
    explanation = find_entries(paste, CATALOG)
    assert [m.entry.id for m in explanation.matches] == [entry_id]
    assert explanation.matches[0].kind == "symptom"


@pytest.mark.parametrize(
    ("paste", "entry_id"),
    [
        # told beside a hook's attribute, not a .grad
        (
            "I call self.gradients.data.cpu() and it says 'NoneType' object has no attribute "
            "'data'",
            "grad-is-none",
        ),
        # told, and .grad read three paragraphs earlier: nothing ties them
        (
            "p.grad.data.zero_() works.\n\nThen other things.\n\nMore text here.\n"
            "Later the loader says 'NoneType' object has no attribute 'shape'",
            "grad-is-none",
        ),
        # a paste that names an exception class is read by its error lines alone: its error
        # is the last one, another
        (
            "Earlier p.grad.data.zero_() said 'NoneType' object has no attribute 'data'\n"
            "ValueError: too many values to unpack (expected 2)",
            "grad-is-none",
        ),
        # https://github.com/Algolzw/image-restoration-sde/issues/145: no NaN at all
        ("Training loss continued normally without explosion or NaN values.", "nan-loss"),
        # a log line's loss is a number; another value is NaN
        ("epoch 3 loss: 0.25 grad_norm: nan", "nan-loss"),
        ("loss: nanoseconds per step: 12", "nan-loss"),
        # a log line beside an exception: the error is what went wrong, not the NaN
        (
            "epoch 3 loss: nan\nValueError: Input contains NaN, infinity or a value too large",
            "nan-loss",
        ),
    ],
)
def test_told_errors_and_log_lines_need_their_evidence(paste, entry_id):
    """A told NoneType error needs a .grad read beside it; a log line, a NaN loss in a paste
    that names no exception."""
    ids = [m.entry.id for m in find_entries(paste, CATALOG).matches]
    assert entry_id not in ids


def test_a_nan_loss_described_gets_its_page_before_the_nan_gradients():
    # https://github.com/open-mmlab/mmdetection/issues/6297: "nan loss" and "nan during
    # training" match alike; the sentence's other words are the NaN loss's
    explanation = find_entries(
        "Hello. I am training FasterRCNN with my customized dataset, and nan loss occurs when "
        "training.\nI wonder how I can find the solution to the problem? Maybe it is about "
        "dataset",
        CATALOG,
    )
    assert explanation.described
    assert [miss.entry.id for miss in explanation.near_misses][:2] == [
        "nan-loss",
        "nan-gradient-silent",
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("p.grad.data.zero_()", True),
        ("lr * w.grad", True),
        ("g = model.fc.weight.grad[0]", True),
        ("y.grad_fn.next_functions", False),
        ("self.gradients.data", False),
        ("x = grad.data", False),
    ],
)
def test_a_line_reads_grad_only_as_an_attribute(line, expected):
    assert reads(line, ".grad") is expected


@pytest.mark.parametrize(
    ("paste", "entry_id"),
    [
        (".grad is None after backward()", "grad-is-none"),
        ("Why is my param.grad None after loss.backward()?", "grad-is-none"),
        ("NaN gradients", "nan-gradient-silent"),
        ("loss becomes nan after a few epochs", "nan-loss"),
        ("gradients accumulate across iterations", "grad-accumulates"),
        ("GPU memory keeps increasing every iteration", "running-loss-keeps-graph"),
    ],
)
def test_a_pitfalls_title_or_symptom_words_find_it(paste, entry_id):
    explanation = find_entries(paste, CATALOG)
    assert [m.entry.id for m in explanation.matches] == [entry_id]
    assert explanation.matches[0].kind == "symptom"


@pytest.mark.parametrize(
    "paste",
    [
        "How do I compute the Hessian of a network with respect to its inputs?",
        "the loss does not decrease",
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
        # Messages of torch's that no entry explains, in a pitfall's words: no description
        # (torch/optim/_adafactor.py, torch/distributed/fsdp/_fully_shard/_fsdp_param.py,
        # torch/csrc/autograd/python_engine.cpp: data/inventory/messages.json).
        "AssertionError: grad should not be None",
        "AssertionError: Expects unsharded_param.grad to not be None",
        "RuntimeError: element 1 of gradients tuple is not a Tensor or None",
        # a long text that mentions the words among many others is no symptom match (its
        # sentence describes one: the page about it is offered, test_described_reports below)
        "I train a GAN on CelebA with a batch of 64 and the grad is None for the generator's "
        "first layer only when I use spectral norm with two discriminators and mixed precision",
    ],
)
def test_other_questions_are_no_symptom(paste):
    assert not [m for m in find_entries(paste, CATALOG).matches if m.kind == "symptom"]


def test_a_symptom_never_hides_a_message_of_torchs():
    paste = (
        "grad is None\n"
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    )
    explanation = find_entries(paste, CATALOG)
    assert explanation.matches[0].kind == "exact"


# Reports in prose that quote no message (blind samples' pastes, benchmarks/data, no longer
# blind): the pages about what they describe, never a match.
DESCRIBED_REPORTS = [
    (  # https://github.com/ZF4444/MMAL-Net/issues/8
        "In my case, when I use `backward()` on maximum score its gradients are None.",
        "grad-is-none",
    ),
    (  # https://github.com/dbolya/yolact/issues/459
        "grad value is none! after calling  Backward( ) for an output variable",
        "grad-is-none",
    ),
    (  # sample 2: "Why use your network to train halfway, and the gradient becomes nan"
        "Why use your network to train halfway, and the gradient becomes nan,thanks for your reply",
        "nan-gradient-silent",
    ),
    (  # https://github.com/pytorch/pytorch/issues/121416
        "I run into `nan` in gradients where there should not be, when using the `SmoothL1Loss`, "
        "the `MSELoss` or the `HuberLoss` on masked tensors.",
        "nan-gradient-silent",
    ),
    (  # https://github.com/mperezcarrasco/PyTorch-DAGMM/issues/4: three words among the phrase's
        "Loss is not reducing and gradients are coming up as None.",
        "grad-is-none",
    ),
    (  # https://github.com/facebookresearch/pytorch3d/issues/1386 (its title, then prose)
        "Missing gradients when transforming rendered mesh\n\nI am trying to use PyTorch3D as a "
        "differentiable renderer for a spatial reasoning task.",
        "grad-is-none",
    ),
    (  # https://github.com/alisiahkoohi/Langevin-dynamics/issues/1
        "Didn't zero the gradient in the optimizer\n\nIn class LangevinDynamics(object), you "
        "never run `self.optim.zero_grad()`. Is this on purpose?",
        "grad-accumulates",
    ),
]


@pytest.mark.parametrize(("paste", "entry_id"), DESCRIBED_REPORTS)
def test_described_reports_get_the_page_about_them_not_a_match(paste, entry_id):
    explanation = find_entries(paste, CATALOG)
    assert explanation.matches == []
    assert explanation.described is True
    assert [miss.entry.id for miss in explanation.near_misses] == [entry_id]


@pytest.mark.parametrize(
    "paste",
    [
        # a blind sample's report (sample 3): the phrase negated just before it
        "I have been trained up to 50 epoch. The training loss does not decrease around 1.6. "
        "The training is going well without NaN loss value.",
        # negated among the phrase's words
        "After backward() the grad is not None, but the weights never change.",
        # a sentence's end between the phrase's words: "loss" and "nan" in two sentences
        "The loss is 0.3. Nan appears in the input data, not in the model.",
        # the phrase's words too far apart
        "The gradient of the discriminator on the real images and fake ones is None of my concern.",
        # an exception line: a message of torch's no entry explains, not a description
        "AssertionError: grad should not be None\nthe grad is None after backward",
    ],
)
def test_negated_split_or_scattered_phrases_describe_nothing(paste):
    explanation = find_entries(paste, CATALOG)
    assert explanation.described is False
    assert not [m for m in explanation.matches if m.kind == "symptom"]


def test_a_description_reads_sentences_not_dotted_names():
    # "p.grad" and "loss.backward()" are no sentence ends; "0.3. " is one
    assert sentences("The p.grad is None after loss.backward() runs. Loss is 0.3. Then") == [
        "The p.grad is None after loss.backward() runs",
        " Loss is 0.3",
        " Then",
    ]
