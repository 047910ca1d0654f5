"""Time ``explain`` on 1 MB pastes built to make a matcher work hard.

Each input repeats something that gets a template far before failing, or that a naive
normaliser handles character by character. The issue asks for "well under a second" each.

    python benchmarks/hostile_inputs.py [--megabytes N]
"""

from __future__ import annotations

import argparse
import time

from autograd_errors import catalog
from autograd_errors.matcher.matching import find_entries

INPLACE = (
    "one of the variables needed for gradient computation has been modified by an "
    "inplace operation: [torch.FloatTensor ["
)
CASES = {
    "a real message, repeated": "RuntimeError: a leaf Variable that requires grad is being used "
    "in an in-place operation.\n",
    "a template prefix that fails late": INPLACE + "3]], which is output 0 of Sigmoid, is at\n",
    "placeholder characters after a prefix": INPLACE + "torch." * 20,
    "anchors with nothing after them": "Function '",
    "a shape that never closes": INPLACE + "torch.FloatTensor [" + "1," * 50,
    "only line ends": "\n",
    "quote markers on every line": "> \n",
    "escape codes": "\x1b[31m",
    "lone escapes": "\x1b",
    "words of one letter": "a ",
    "one long word": "x",
    "truncated messages at line ends": "Trying to backward through the graph a second time\n",
    # The partial matcher's paths (no exact match, so every paste reaches them):
    "rare words, shuffled": "modified view inplace being output unbind freed retain_graph ",
    "one typo, repeated": "varaibles ",
    "a clause, lower case, repeated": "saved intermediate values of the graph are freed ",
    "a non-autograd phrase, repeated": "cuda out of memory ",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=1.0)
    size = int(parser.parse_args().megabytes * 1_000_000)
    entries = catalog.load()
    print(f"{'input':42} {'seconds':>8} {'matches':>8}")
    for name, unit in CASES.items():
        text = (unit * (size // len(unit) + 1))[:size]
        start = time.perf_counter()
        found = find_entries(text, entries)
        elapsed = time.perf_counter() - start
        print(f"{name:42} {elapsed:8.3f} {len(found.matches):8}")


if __name__ == "__main__":
    main()
