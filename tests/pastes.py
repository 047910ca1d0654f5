"""Pastes generated from the catalog's own wordings, for the property tests: pieces of real
wordings (the costly case for a matcher: generated text gets far into the templates before
failing), the partial matcher's paths (words in lower case, typos, backticks), frames, the
errors that are not autograd's, and the characters that split messages."""

from __future__ import annotations

from hypothesis import strategies as st

from autograd_errors import catalog
from autograd_errors.matcher import fuzzy

CATALOG = catalog.load(use_cache=False)
# Pieces of real wordings make generated text get far into the templates before failing:
# the costly case for a matcher.
FRAGMENTS = sorted(
    {
        piece
        for entry in CATALOG
        for wording in entry.wordings
        for piece in wording.message.replace("{", " {").replace("}", "} ").split(" ")
        if piece
    }
)
# The partial matcher's paths: words in lower case, typos, backticks, frames, non-autograd errors.
WORDS = sorted({word for fragment in FRAGMENTS for word in fuzzy.words(fragment)})
NOT_AUTOGRAD = [phrase for kind in CATALOG.not_autograd for phrase in kind.phrases]
HOSTILE = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.sampled_from(FRAGMENTS).map(str.lower),
    st.sampled_from(WORDS).map(lambda word: word[1:] + word[:1]),
    st.sampled_from(WORDS).map(lambda word: f"`{word}`"),
    st.sampled_from(NOT_AUTOGRAD),
    st.just('\n  File "/x/train.py", line 3, in <module>\n    loss.backward()\n'),
    st.sampled_from(
        [
            "\n",
            " ",
            "> ",
            ">>> ",
            "\x1b[31m",
            "\x1b]",
            "\r",
            "...",
            "[",
            "]",
            "[64, ",
            "torch.cuda.",
            "Backward0",
            "'",
            "{",
            "}",
            "\u2026",
            "E   ",
        ]
    ),
    st.text(max_size=8),
)
PASTES = st.lists(HOSTILE, max_size=60).map(" ".join)
