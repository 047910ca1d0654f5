"""PyTorch errors users paste that are not autograd errors, and where to look instead.

They are recognised by a few words of their message (compared as :func:`fuzzy.words` gives
them: lower case, punctuation ignored), so that they are never offered as an autograd entry.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class Kind:
    """One kind of non-autograd error: the phrases that give it away, a hint and a page."""

    __slots__ = ("hint", "name", "phrases", "url")

    def __init__(self, name: str, phrases: Sequence[str], hint: str, url: str) -> None:
        self.name = name
        self.phrases = tuple(phrases)  # each as space-separated words
        self.hint = hint
        self.url = url


KINDS = (
    Kind(
        "cuda-out-of-memory",
        ("out of memory",),
        "CUDA ran out of memory: lower the batch size, keep no graphs alive (store "
        "`loss.item()`, not `loss`), free what you no longer need.",
        "https://pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory",
    ),
    Kind(
        "device-mismatch",
        ("expected all tensors to be on the same device",),
        "Tensors on different devices: move the model and every input to the same device "
        "(`.to(device)`).",
        "https://pytorch.org/docs/stable/notes/cuda.html",
    ),
    Kind(
        "shape-mismatch",
        ("mat1 and mat2 shapes cannot be multiplied",),
        "A matrix product with incompatible shapes, usually an `nn.Linear` whose "
        "`in_features` differs from the size of its input's last dimension.",
        "https://pytorch.org/docs/stable/generated/torch.nn.Linear.html",
    ),
    Kind(
        "size-mismatch",
        (
            "must match the size of tensor",
            "using a target size",
            "expected target size",
            "to match target batch_size",
            "stack expects each tensor to be equal size",
        ),
        "Tensor sizes that do not fit together (a broadcast, a loss's target, a batch): print "
        "the shapes just before the failing line.",
        "https://pytorch.org/docs/stable/notes/broadcasting.html",
    ),
    Kind(
        "dtype-mismatch",
        (
            "expected scalar type",
            "expected object of scalar type",
            "to have the same dtype",
            "mat1 and mat2 must have the same",
            "and weight type",
            "and bias type",
        ),
        "Tensors of different dtypes (or devices) in one operation: convert the inputs to the "
        "model's dtype (`x.float()`, `.to(dtype)`).",
        "https://pytorch.org/docs/stable/tensor_attributes.html#torch-dtype",
    ),
    Kind(
        "state-dict-mismatch",
        (
            "size mismatch for",
            "missing key s in state_dict",
            "unexpected key s in state_dict",
            "error s in loading state_dict",
        ),
        "The checkpoint does not fit the model: its keys or shapes differ (`strict=False` "
        "only skips missing keys).",
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html",
    ),
    Kind(
        "dataloader-worker",
        ("dataloader worker",),
        "A DataLoader worker process died (often killed for memory): try `num_workers=0` to "
        "see the real error, or give the workers more shared memory.",
        "https://pytorch.org/docs/stable/data.html#multi-process-data-loading",
    ),
    Kind(
        "device-side-assert",
        ("device side assert",),
        "A CUDA kernel's assertion failed, usually an index out of range (a label >= the number "
        "of classes); rerun with CUDA_LAUNCH_BLOCKING=1 to see where.",
        "https://pytorch.org/docs/stable/notes/cuda.html#asynchronous-execution",
    ),
)


def recognise(pasted_words: list[str]) -> Kind | None:
    """The non-autograd error the paste ends with, if any: the phrase found last wins."""
    text = " " + " ".join(pasted_words) + " "
    found: Kind | None = None
    last = -1
    for kind in KINDS:
        for phrase in kind.phrases:
            at = text.rfind(" " + phrase + " ")
            if at > last:
                found, last = kind, at
    return found
