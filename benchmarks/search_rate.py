"""How often the site puts the right entry first for a pasted message, in a real browser.

Every wording of every entry is rendered with other values than its example (other shapes,
CUDA tensor types, other node names), then pasted the ways real pastes differ: bare, with the
exception prefix, inside traceback frames, wrapped at 80 columns. Each paste goes to the paste
page (explain.html?q=), to the site search (search.html?q=), and, for comparison, to Sphinx's
stock search, whose ranking function the site search page still carries, and to Pagefind when
the site has a Pagefind index (``pip install 'pagefind[bin]'; python -m pagefind --site DIR``).

Then, issue 11's measure: every wording of every entry, perturbed as people type and paste it
(a clause from the middle, a prefix cut at a word boundary, lower case, backticks around code,
missing spaces after punctuation, one typo, two words swapped), through the CLI's matcher and
both pages; a fragment that another entry's wording holds too (its rare words in the same order)
is counted apart, as no matcher can tell those entries apart. And the non-autograd errors of
tests/data/not-autograd.json: how many are shown as an autograd entry (goal: none).

    python benchmarks/search_rate.py [SITE_DIR] [--limit N] [--cli-only]

SITE_DIR is a built site (default _build/html: run `make docs` first). Needs Debian's chromium
and chromium-driver.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import random
import textwrap
import threading
import urllib.parse
from pathlib import Path

from autograd_errors import catalog
from autograd_errors.matcher import fuzzy
from autograd_errors.matcher.fuzzy import BOILERPLATE
from autograd_errors.matcher.matching import find_entries
from autograd_errors.messages.templates import Placeholder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

NOT_AUTOGRAD = json.loads(
    (Path(__file__).parent.parent / "tests" / "data" / "not-autograd.json").read_text("utf-8")
)["errors"]

VALUES = {
    "tensor_type": [
        "torch.cuda.HalfTensor",
        "torch.cuda.FloatTensor",
        "torch.DoubleTensor",
        "CPUBFloat16Type",
        "torch.FloatTensor",
    ],
    "python_type": ["int", "NoneType", "list", "torch.cuda.FloatTensor", "numpy.ndarray"],
    "node": [
        "ReluBackward0",
        "Relu",
        "MulBackward0",
        "AddmmBackward0",
        "SigmoidBackward",
        "CudnnConvolutionBackward0",
        "UnbindBackward0",
        "torch::autograd::CopySlices",
    ],
    "attribute": ["weight", "bias", "fc1", "running_mean", "encoder"],
    "op": ["add", "mul", "matmul", "cat"],
    "dtype": ["torch.int64", "torch.int32", "Long"],
    "device": ["cuda:0", "cpu", "cuda:1"],
    "location": ["/pytorch/aten/src/TH/generic/THTensorMath.cpp:956"],
}
FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/project/train.py", line 87, in <module>\n'
    "    loss.backward()\n"
    '  File "/opt/conda/lib/python3.10/site-packages/torch/_tensor.py", line 522, in backward\n'
    "    torch.autograd.backward(\n"
)


def value_for(placeholder: Placeholder, rng: random.Random) -> str:
    kind = placeholder.kind.name
    if kind == "shape":
        return (
            "["
            + ", ".join(str(rng.choice([1, 3, 16, 64, 128, 512])) for _ in range(rng.randint(1, 4)))
            + "]"
        )
    if kind in VALUES:
        return rng.choice(VALUES[kind])
    return str(rng.randint(0, 9))


def _clause(message: str) -> str:
    """A clause from the middle of the message: the second one of 4+ words, else the first.
    torch's generic check text is not a clause of the message (it identifies nothing)."""
    for boilerplate in BOILERPLATE:
        message = message.replace(boilerplate, " ")
    clauses, current = [], []
    for word in message.split():
        current.append(word)
        # A clause ends at punctuation after a word, not inside a value ("[64, 128]").
        if word[-1] in ".,;:" and word[-2:-1].isalpha():
            clauses.append(" ".join(current).strip(".,;:"))
            current = []
    if current:
        clauses.append(" ".join(current))
    long = [c for c in clauses if len(c.split()) >= 4] or clauses
    return long[1] if len(long) > 1 else long[0]


def _prefix(message: str) -> str:
    words = message.split()
    return " ".join(words[: max(5, min(8, len(words) - 1))])


def _backticks(message: str) -> str:
    words = message.split()
    code = [i for i, w in enumerate(words) if any(c in w for c in "._()-=") or w[:1].isdigit()]
    for i in code or [min(2, len(words) - 1)]:
        words[i] = f"`{words[i]}`"
    return " ".join(words)


def _missing_spaces(message: str) -> str:
    for mark in (". ", ", ", ": ", "; "):
        message = message.replace(mark, mark[0])
    return message


def _typo(message: str) -> str:
    words = message.split()
    i = max(range(len(words)), key=lambda n: (sum(c.isalpha() for c in words[n]), -n))
    word = words[i]
    at = len(word) // 2
    words[i] = word[: at - 1] + word[at] + word[at - 1] + word[at + 1 :]
    return " ".join(words)


def _swapped(message: str) -> str:
    words = message.split()
    if len(words) < 3:
        return message
    i = len(words) // 2
    words[i - 1], words[i] = words[i], words[i - 1]
    return " ".join(words)


#: How real queries differ from the message (issue 11): each applied to every wording.
PERTURBATIONS = {
    "clause": _clause,
    "prefix": _prefix,
    "lower case": str.lower,
    "backticks": _backticks,
    "missing spaces": _missing_spaces,
    "one typo": _typo,
    "swapped words": _swapped,
}


def perturbed(entries: catalog.Catalog, rng: random.Random) -> list[tuple[str, str, str]]:
    """(entry id, perturbation, text) for every wording of every entry."""
    found = []
    for entry in entries:
        for wording in entry.wordings:
            values = {p.name: value_for(p, rng) for p in wording.template.placeholders}
            message = wording.template.render(values)
            for name, perturb in PERTURBATIONS.items():
                found.append((entry.id, name, perturb(message)))
    return found


def pastes(entries: catalog.Catalog, rng: random.Random) -> list[tuple[str, str, str]]:
    """(entry id, form of the paste, text) for every wording of every entry."""
    found = []
    for entry in entries:
        for wording in entry.wordings:
            values = {p.name: value_for(p, rng) for p in wording.template.placeholders}
            message = f"{wording.exception}: {wording.template.render(values)}"
            found += [
                (entry.id, "bare", wording.template.render(values)),
                (entry.id, "prefixed", message),
                (entry.id, "traceback", FRAMES + message + "\n"),
                (entry.id, "wrapped", textwrap.fill(message, 80)),
            ]
    return found


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(site: Path) -> str:
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/"


def browser():  # noqa: ANN201 - a selenium driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def first_result(driver, url: str) -> str | None:  # noqa: ANN001
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    done = "#autograd-results > *:not(.autograd-working), p.search-summary:not(:empty)"
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, done))
    found = driver.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    return found[0].get_attribute("data-search-result") if found else None


PAGEFIND = """
const [root, query, done] = arguments;
import(root + "pagefind/pagefind.js")
  .then(async (pagefind) => {
    const found = await pagefind.search(query);
    done(found.results.length ? (await found.results[0].data()).url : null);
  })
  .catch((error) => done("error: " + error));
"""

STOCK = """
const [q, terms, excluded, highlight, objects] = Search._parseQuery(arguments[0]);
const results = Search._performSearch(q, terms, excluded, highlight, objects);
return results.length ? results[results.length - 1][0] : null;
"""


def shared_fragment(index: fuzzy.Index, entry_id: str, text: str) -> bool:
    """Whether another entry's wording holds the fragment's rare words, in the same order and
    next to each other: then no matcher can tell the entries apart, and none should pick one."""
    wanted = [w for w in fuzzy.words(text) if w in index.weights and not w.isdigit()]
    if not wanted:
        return True
    for (entry, _), sequence in zip(index.wordings, index.sequences, strict=True):
        if entry.id == entry_id:
            continue
        held = [word for word in sequence if word is not None]
        if any(held[i : i + len(wanted)] == wanted for i in range(len(held) - len(wanted) + 1)):
            return True
    return False


def cli_first(text: str, entries: catalog.Catalog) -> str | None:
    found = find_entries(text, entries)
    return found.matches[0].entry.id if found.matches else None


def rates(
    cases: list[tuple[str, str, str]],
    entries: catalog.Catalog,
    surfaces: dict[str, Callable[[str], str | None]],
) -> None:
    """Print, per perturbation and surface, how often the right entry comes first."""
    index = fuzzy.index_of(entries)
    kinds = list(dict.fromkeys(kind for _, kind, _ in cases))
    hits = {(kind, name): 0 for kind in kinds for name in surfaces}
    listed = dict.fromkeys(hits, 0)
    distinct = dict.fromkeys(kinds, 0)
    shared = dict.fromkeys(kinds, 0)
    misses: list[str] = []
    for entry_id, kind, text in cases:
        is_shared = shared_fragment(index, entry_id, text)
        shared[kind] += is_shared
        distinct[kind] += not is_shared
        for name, first in surfaces.items():
            found = first(text)
            if is_shared:
                # A shared fragment: the right entry must be among those listed.
                ids = [m.entry.id for m in find_entries(text, entries).matches]
                listed[(kind, name)] += entry_id in ids if name == "CLI" else found in ids
            elif found == entry_id:
                hits[(kind, name)] += 1
            else:
                misses.append(f"{name:12} {kind:15} {entry_id}: {text[:70]!r} -> {found}")
    print(f"{'perturbation':16}{'distinct':>9}" + "".join(f"{name:>14}" for name in surfaces))
    for kind in kinds:
        row = "".join(
            f"{hits[(kind, name)] / distinct[kind]:14.1%}" if distinct[kind] else f"{'-':>14}"
            for name in surfaces
        )
        print(f"{kind:16}{distinct[kind]:9}{row}")
    total_shared = sum(shared.values())
    print(f"Shared fragments (several entries hold them; counted apart): {total_shared}")
    if total_shared:
        among = "".join(
            f"{sum(listed[(kind, name)] for kind in kinds) / total_shared:14.1%}"
            for name in surfaces
        )
        print(f"{'  right entry among those listed':25}{among}")
    for miss in misses[:15]:
        print("  missed:", miss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="_build/html")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pastes")
    parser.add_argument("--cli-only", action="store_true", help="no browser: the CLI's matcher")
    args = parser.parse_args()
    entries = catalog.load()
    cases = pastes(entries, random.Random(13))
    perturbations = perturbed(entries, random.Random(11))
    errors = [error["text"] for error in NOT_AUTOGRAD]
    if args.limit:
        cases, perturbations = cases[: args.limit], perturbations[: args.limit]
    surfaces: dict[str, Callable[[str], str | None]] = {
        "CLI": functools.partial(cli_first, entries=entries)
    }
    if args.cli_only:
        report_perturbed(perturbations, errors, entries, surfaces)
        return
    server = serve(Path(args.site))
    driver = browser()
    driver.set_script_timeout(30)
    quote = urllib.parse.quote
    surfaces["paste page"] = lambda text: first_result(
        driver, f"{server}explain.html?q={quote(text)}"
    )
    surfaces["site search"] = lambda text: first_result(
        driver, f"{server}search.html?q={quote(text)}"
    )
    try:
        report_perturbed(perturbations, errors, entries, surfaces)
        report_forms(cases, entries, driver, server, Path(args.site))
    finally:
        driver.quit()


def report_perturbed(
    perturbations: list[tuple[str, str, str]],
    errors: list[str],
    entries: catalog.Catalog,
    surfaces: dict[str, Callable[[str], str | None]],
) -> None:
    print(
        f"{len(perturbations)} queries: every wording of every entry ({len(entries)} entries), "
        f"as people type and paste it (issue 11); right entry first, per perturbation:"
    )
    rates(perturbations, entries, surfaces)
    print()
    print(f"{len(errors)} non-autograd errors (tests/data/not-autograd.json) shown as an entry:")
    for name, first in surfaces.items():
        landed = sum(first(text) is not None for text in errors)
        print(f"  {name:12} {landed} of {len(errors)}")
    print()


def report_forms(
    cases: list[tuple[str, str, str]],
    entries: catalog.Catalog,
    driver: Any,
    server: str,
    site: Path,
) -> None:
    hits = {"paste page": 0, "site search": 0, "stock Sphinx search": 0}
    pagefind = (site / "pagefind" / "pagefind.js").exists()
    if pagefind:
        hits["Pagefind"] = 0
    misses: list[str] = []
    driver.get(server + "search.html")
    for entry_id, form, text in cases:
        query = urllib.parse.quote(text)
        if first_result(driver, f"{server}explain.html?q={query}") == entry_id:
            hits["paste page"] += 1
        else:
            misses.append(f"paste page  {entry_id} ({form})")
        if first_result(driver, f"{server}search.html?q={query}") == entry_id:
            hits["site search"] += 1
        else:
            misses.append(f"site search {entry_id} ({form})")
        stock = driver.execute_script(STOCK, text)
        if stock == entries[entry_id].path.removesuffix(".html"):
            hits["stock Sphinx search"] += 1
        if pagefind:
            url = driver.execute_async_script(PAGEFIND, server, text)
            if url and url.endswith("/" + entries[entry_id].path):
                hits["Pagefind"] += 1
    print(f"{len(cases)} pastes ({len(entries)} entries, every wording, 4 forms each)")
    print(
        "Caveat: these pastes are rendered from the matcher's own templates, so the paste page "
        "and the site search finding them is close to guaranteed; the figures show that nothing "
        "on the way (cleaning, the export, the pages) loses them, not how well real pastes do."
    )
    for page, count in hits.items():
        print(f"{page:20} right entry first: {count:4} ({count / len(cases):6.1%})")
    for miss in misses[:20]:
        print("  missed:", miss)


if __name__ == "__main__":
    main()
