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
# The traceback reader's paths (frames of every format, chains, ranks, warnings, launchers,
# cells) and the causes' signs (their code and files).
TRACEBACK_PIECES = [
    "\nTraceback (most recent call last):\n",
    '\n  File "/x/train.py", line 3, in <module>\n    loss.backward()\n    ^^^^\n',
    '\n  File "/usr/lib/python3.7/runpy.py", line 85, in _run_code\n    exec(code)\n',
    '\n  File "/venv/bin/torchrun", line 8, in <module>\n    sys.exit(main())\n',
    '\nFile "<string>", line 1\n',
    "\nFile ~/x.py:9, in f(x)\n      7 y = 1\n----> 9 y.backward()\n\n",
    "\nCell In[3], line 4\n      3 with torch.no_grad():\n----> 4 loss.backward()\n",
    "\n<ipython-input-3-ab12> in <module>\n---> 1 x += 1\n",
    "\n[/tmp/ipython-input-12.py](https://localhost:8080/#) in <cell line: 0>()\n----> 1 f()\n",
    "\n/x/t.py:3: UserWarning: ",
    "\n  x.grad\n",
    "\n[rank0]: ",
    "\n[default1]:[rank1]:   ",
    "\nThe above exception was the direct cause of the following exception:\n\n",
    "\nDuring handling of the above exception, another exception occurred:\n\n",
    "\nTraceback of forward call that caused the error:\n",
    "\nfrom user code:\n",
    "\n  | ",
    "\n  +-+---------------- 1 ----------------\n",
    "(...)",
    "----> ",
    "--> 12 ",
    *sorted(
        {
            piece
            for entry in CATALOG
            for cause in entry.causes
            for piece in (*cause.signs.code, *cause.signs.files)
        }
    ),
]
HOSTILE = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.sampled_from(FRAGMENTS).map(str.lower),
    st.sampled_from(WORDS).map(lambda word: word[1:] + word[:1]),
    st.sampled_from(WORDS).map(lambda word: f"`{word}`"),
    st.sampled_from(NOT_AUTOGRAD),
    st.sampled_from(TRACEBACK_PIECES),
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

# Tracebacks made of the reader's pieces around whole messages (every wording's example): the
# matches these find have frames to read and causes to choose.
EXAMPLES = sorted({w.example for entry in CATALOG for w in entry.wordings if w.example})
TRACEBACKS = st.lists(
    st.one_of(
        st.sampled_from(TRACEBACK_PIECES),
        st.sampled_from(EXAMPLES).map(lambda example: f"\n{example}\n"),
        st.sampled_from(FRAGMENTS),
        st.text(max_size=6),
    ),
    min_size=1,
    max_size=30,
).map("".join)
