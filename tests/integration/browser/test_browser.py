"""The built site in a real browser (Debian's Chromium, driven by Selenium), served on
127.0.0.1: the paste page and the search page put the right entry first, pasted markup never
runs, downloads resolve."""

from __future__ import annotations

import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from helpers import ANOMALY_LINES_2_13, load_data
from realruns import recorded

from autograd_errors.catalog import load
from autograd_errors.matcher.matching import find_entries
from autograd_errors.rendering.strings import ui
from autograd_errors.rendering.terminal import Style
from autograd_errors.rendering.text import short_text

CATALOG = load(use_cache=False)
ERRORS = [entry for entry in CATALOG if not entry.is_pitfall]
PASTES = [p for p in load_data("real-pastes.json")["pastes"] if p["expected"]][:12]


def results(browser, url: str, selector: str = "[data-search-result]") -> list:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    done = "#autograd-results > *:not(.autograd-working), p.search-summary:not(:empty)"

    def finished(driver):
        if not driver.find_elements(By.CSS_SELECTOR, "#autograd-results, #search-results"):
            return driver.execute_script("return document.readyState") == "complete"
        return driver.find_elements(By.CSS_SELECTOR, done)

    WebDriverWait(browser, 30).until(finished)
    return browser.find_elements(By.CSS_SELECTOR, selector)


def explain_url(server: str, text: str) -> str:
    return f"{server}explain.html?q={urllib.parse.quote(text)}"


def search_url(server: str, text: str) -> str:
    return f"{server}search.html?q={urllib.parse.quote(text)}"


def message_of(entry) -> str:
    wording = entry.current
    return wording.example or wording.message


@pytest.mark.parametrize("entry_id", [e.id for e in ERRORS])
def test_paste_page_puts_each_entry_first(browser, server, entry_id):
    found = results(browser, explain_url(server, message_of(CATALOG[entry_id])))
    assert found, "no result"
    assert found[0].get_attribute("data-search-result") == entry_id
    link = found[0].find_element("css selector", "a")
    assert link.get_attribute("href") == server + CATALOG[entry_id].path


@pytest.mark.parametrize("entry_id", [e.id for e in ERRORS])
def test_search_page_puts_each_entry_first(browser, server, entry_id):
    found = results(browser, search_url(server, message_of(CATALOG[entry_id])))
    assert found[0].get_attribute("data-search-result") == entry_id
    assert found[0].find_element("css selector", "a").get_attribute("href") == (
        server + CATALOG[entry_id].path
    )


@pytest.mark.parametrize("paste", PASTES, ids=[p["expected"] for p in PASTES])
def test_real_tracebacks_on_both_pages(browser, server, paste):
    for url in (explain_url(server, paste["text"]), search_url(server, paste["text"])):
        found = results(browser, url)
        assert found[0].get_attribute("data-search-result") == paste["expected"], url


def test_fields_and_explanation_are_shown(browser, server):
    paste = (
        "RuntimeError: one of the variables needed for gradient computation has been "
        "modified by an inplace operation: [torch.cuda.HalfTensor [64, 128]], which is "
        "output 0 of ReluBackward0, is at version 2; expected version 1 instead."
    )
    (first, *_) = results(browser, explain_url(server, paste))
    text = first.text
    assert "A tensor saved for backward was modified in place" in text
    assert "shape\n[64, 128]" in text
    assert "The [64, 128] tensor (torch.cuda.HalfTensor), output 0 of ReluBackward0" in text
    assert "Why." in text
    assert "Fix:" in text


RUNS = {run["name"]: run["text"] for run in recorded()["runs"]}
#: The command line's lines that the paste page shows too: the user's line, the cause the answer
#: leads with and what supports it, its fix.
ANSWER_LABELS = ("answer.your_line", "answer.most_likely", "answer.most_common", "answer.seen")


def command_line_answer(text: str) -> list[str]:
    """The short answer's lines the page must show, as ``explain`` gives them, unfilled; the
    code under "Your line" as a line of its own."""
    found = find_entries(text, CATALOG)
    lines = short_text(found, "", Style(False), 100_000, found.frame).split("\n")
    labels = tuple(ui(key) for key in (*ANSWER_LABELS, "answer.fix"))
    kept = []
    for number, line in enumerate(lines):
        if line.strip().startswith(labels):
            kept.append(line.strip())
            if line.strip().startswith(ui("answer.your_line")):
                kept.append(lines[number + 1].strip())  # its code
    return kept


@pytest.mark.parametrize(
    "run",
    # Code in the user's line, code near it, a re-raised error, a notebook's cell (colours
    # and all), torchrun's ranks, and a paste with no sign of any cause ("Most common:").
    ["manual_sgd", "reinit_head", "wrapped", "cell_detach", "ddp_err", "eval_then_train"],
)
def test_the_paste_page_reads_the_traceback_as_the_command_line_does(browser, server, run):
    expected = command_line_answer(RUNS[run])
    assert expected[0].startswith("Your line:")  # the check below is not vacuous
    assert any(line.startswith(("Most likely:", "Most common:")) for line in expected)
    (first, *_) = results(browser, explain_url(server, RUNS[run]))
    shown = " ".join(first.text.split())
    for line in expected:  # the page shows ```code``` as code, without its backticks
        assert " ".join(line.replace("`", "").split()) in shown, line


def test_a_function_with_its_own_hint_gets_no_advice_about_other_functions(browser, server):
    # As the command line: no cause of derivative-not-implemented is about linalg_lstsq, and
    # its hint is the advice; the entry's fix (acosh, cdist) is not shown in its place.
    paste = "NotImplementedError: the derivative for 'linalg_lstsq' is not implemented."
    (first, *_) = results(browser, explain_url(server, paste))
    assert "torch.linalg.lstsq has had a backward since torch 1.11" in first.text
    assert first.get_attribute("data-cause") is None
    assert first.find_elements("css selector", "p.autograd-fix") == []
    advice = first.text.split("Why.", 1)[0]  # (why torch raises it names other functions)
    assert "cdist" not in advice
    assert "acosh" not in advice


def test_no_match_says_so_and_offers_the_site_search(browser, server):
    from selenium.webdriver.common.by import By

    paste = "RuntimeError: the moon is made of cheese, said the optimiser"
    assert results(browser, explain_url(server, paste)) == []
    assert "No entry matches this text." in browser.find_element(By.ID, "autograd-results").text
    link = urllib.parse.urlparse(
        browser.find_element(By.CSS_SELECTOR, "a.autograd-search-link").get_attribute("href")
    )
    assert link.path == "/search.html"
    assert urllib.parse.parse_qs(link.query)["q"] == [paste]


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        # another library's raise in PyTorch's words: the line that raised it, the entry as
        # PyTorch's own error
        (
            "raised_by",
            [
                "Raised at /home/user/run/minigrad/tensor.py:12 by a raise outside PyTorch",
                "PyTorch's own error in these words:",
            ],
        ),
        # anomaly mode's lines alone: the error beside them is missing, their entry a near miss
        (
            "context_only",
            [
                "Only anomaly mode's own lines here",
                "The entry that explains these lines (not the error beside them):",
            ],
        ),
        # a report in prose that quotes no message: the pages about what it describes
        (
            "described",
            [
                "This text quotes no error message",
                "Pages about what it describes (not a match):",
            ],
        ),
    ],
)
def test_what_is_no_match_says_why_and_offers_its_entries_as_such(browser, server, kind, said):
    """The paste page shows no match, says why, and lists the entries apart, as the CLI does
    (exit 1 there)."""
    from selenium.webdriver.common.by import By

    vector = next(v for v in load_data("matcher-vectors.json")["vectors"] if v.get(kind))
    assert results(browser, explain_url(server, vector["text"])) == []
    shown = browser.find_element(By.ID, "autograd-results").text
    assert shown.startswith("No entry matches this text.")
    for sentence in said:
        assert sentence in shown
    near = browser.find_elements(By.CSS_SELECTOR, "[data-near-miss]")
    assert [item.get_attribute("data-near-miss") for item in near] == vector["near_misses"]


def test_anomaly_lines_alone_still_name_the_users_forward_line(browser, server):
    """As the CLI: no match, and the line of the user's their forward traceback names."""
    from selenium.webdriver.common.by import By

    assert results(browser, explain_url(server, ANOMALY_LINES_2_13)) == []
    shown = browser.find_element(By.ID, "autograd-results").text
    assert (
        "The forward call of the backward function that failed, in your code: /tmp/t.py:13 "
        "y = torch.sigmoid(x)"
    ) in shown


@pytest.mark.parametrize(
    "payload",
    [
        '<img src=x onerror="window.pwned=1">',
        "<script>window.pwned=1</script>",
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
        'operation.<img src=x onerror="window.pwned=1">',
        '"><svg onload="window.pwned=1">',
    ],
)
@pytest.mark.parametrize("page", ["explain", "search"])
def test_pasted_markup_stays_inert(browser, server, payload, page):
    url = (explain_url if page == "explain" else search_url)(server, payload)
    results(browser, url, "body")
    assert browser.execute_script("return window.pwned === undefined")
    assert (
        browser.execute_script(
            "return document.querySelectorAll('#autograd-results img, #autograd-results svg,"
            " #search-results img, #search-results svg, #autograd-results script').length"
        )
        == 0
    )


def test_home_page_box_leads_to_the_explanation(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server + "index.html")
    box = browser.find_element(By.ID, "autograd-paste-home")
    box.send_keys("TypeError: Variable data has to be a tensor, but got int")
    box.find_element(By.XPATH, "./ancestor::form//button").click()
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    )
    # In the fragment, which never reaches the server (test_site_layout.py has the rest).
    assert browser.current_url.startswith(server + "explain.html#q=")
    found = browser.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    assert found[0].get_attribute("data-search-result") == "data-not-tensor"


@pytest.mark.parametrize(
    ("query", "page", "within"),
    # The error whose message alone says the word first ("Specify retain_graph=True ..."); the
    # pages whose titles name the word near the top: AE102 ("retain_graph=True on the last
    # backward"), and the pitfall of detach()'s shared memory (five messages say "detach").
    [
        ("retain_graph", "backward-twice", 1),
        ("retain_graph", "ae102", 5),
        ("detach", "detach-shares-storage", 5),
    ],
)
def test_word_searches_still_work(browser, server, query, page, within):
    from selenium.webdriver.common.by import By

    results(browser, search_url(server, query), "ul.search li")
    links = [
        a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "ul.search li a")
    ]
    # A result may be a section of the page (Sphinx links it with its anchor).
    pages = list(dict.fromkeys(link.partition("#")[0] for link in links))
    assert any(link.endswith(f"/{page}.html") for link in pages[:within]), pages[:5]


@pytest.mark.parametrize("entry_id", [e.id for e in CATALOG][:: max(1, len(CATALOG) // 8)])
def test_download_links_resolve(browser, server, entry_id):
    from selenium.webdriver.common.by import By

    browser.get(server + CATALOG[entry_id].path)
    downloads = [
        a.get_attribute("href")
        for a in browser.find_elements(By.CSS_SELECTOR, "a.reference.download")
    ]
    assert {Path(urllib.parse.urlparse(h).path).suffix for h in downloads} >= {".py", ".ipynb"}
    for href in downloads:
        with urllib.request.urlopen(href) as response:
            assert response.status == 200
            assert response.read(), href


def test_the_gallery_zips_resolve(browser, server):
    from selenium.webdriver.common.by import By

    browser.get(server + "errors/index.html")
    zips = [
        a.get_attribute("href")
        for a in browser.find_elements(By.CSS_SELECTOR, "a.reference.download")
        if a.get_attribute("href").endswith(".zip")
    ]
    assert len(zips) == 2
    for href in zips:
        with urllib.request.urlopen(href) as response:
            assert response.read(4) == b"PK\x03\x04"


@pytest.mark.parametrize(
    "page",
    [
        "index.html",
        "explain.html?q=x",
        "search.html?q=detach",
        # Formulas: MathML written at build time, no MathJax from a CDN.
        "errors/higher-order/derivative-not-implemented.html",
        "errors/higher-order/once-differentiable-double-backward.html",
    ],
)
def test_pages_load_nothing_from_other_hosts(browser, server, page):
    """No CDN: every resource a page loads comes from the site itself."""
    results(browser, server + page, "body")
    resources = browser.execute_script(
        "return performance.getEntriesByType('resource').map(entry => entry.name)"
    )
    assert resources
    assert [url for url in resources if not url.startswith(server)] == []


def test_long_unrecognised_queries_rank_the_most_relevant_page_first(browser, server):
    # Not an error message: nothing matches, so the pages are ranked word by word, best first.
    query = (
        "how do I add a new entry: the record in entries, the gallery script in its section "
        "folder, the _order.txt file and the README.txt of a new section"
    )
    pages = results(browser, search_url(server, query), "li.autograd-page-result a")
    assert pages, "no page ranked"
    assert pages[0].get_attribute("href").endswith("/contributing.html")


# Issue 11: partial matches, shared fragments, non-autograd errors and near misses, shown the
# same way on the paste page and in the site search.
PARTIAL = [
    ("Saved intermediate values of the graph are freed", "backward-twice"),
    ("one of the varaibles needed for gradient computation has been modified", "inplace-modified"),
    ("element 0 of tensor does not requires grad", "no-grad-fn"),
    (
        "a leaf Variable that requires grad is being used in an `in-place` operation",
        "leaf-inplace",
    ),
    ("runtimeerror: trying to backward through the graph a second time, but", "backward-twice"),
]


@pytest.mark.parametrize(("paste", "entry_id"), PARTIAL, ids=[p[1] for p in PARTIAL])
@pytest.mark.parametrize("page", ["explain", "search"])
def test_partial_matches_on_both_pages(browser, server, page, paste, entry_id):
    url = (explain_url if page == "explain" else search_url)(server, paste)
    found = results(browser, url)
    assert found[0].get_attribute("data-search-result") == entry_id
    assert found[0].get_attribute("data-match") == "partial"
    assert "Matched part of the wording (" in found[0].text


SYMPTOMS = [
    # https://github.com/wiseodd/generative-models/issues/26
    (
        '  File "infogan_pytorch.py", line 86, in reset_grad\n    p.grad.data.zero_()\n'
        "AttributeError: 'NoneType' object has no attribute 'data'",
        "grad-is-none",
    ),
    (".grad is None after backward()", "grad-is-none"),
    ("NaN gradients", "nan-gradient-silent"),
]


@pytest.mark.parametrize(("paste", "entry_id"), SYMPTOMS)
@pytest.mark.parametrize("page", ["explain", "search"])
def test_a_pitfall_is_found_by_its_symptom_on_both_pages(browser, server, page, paste, entry_id):
    url = (explain_url if page == "explain" else search_url)(server, paste)
    found = results(browser, url)
    assert found[0].get_attribute("data-search-result") == entry_id
    assert found[0].get_attribute("data-match") == "symptom"
    assert "Found by its symptom (" in found[0].text
    assert "Wording '" not in found[0].text  # a pitfall raises no message: no wording shown


@pytest.mark.parametrize("page", ["explain", "search"])
def test_a_shared_fragment_lists_its_entries_without_a_winner(browser, server, page):
    from selenium.webdriver.common.by import By

    paste = "is a view and is being modified inplace"
    url = (explain_url if page == "explain" else search_url)(server, paste)
    found = [item.get_attribute("data-search-result") for item in results(browser, url)]
    assert found == [
        "multi-output-view-inplace",
        "custom-function-view-inplace",
        "backward-hook-view-inplace",
    ]
    summary = "p.autograd-summary" if page == "explain" else "p.search-summary"
    assert browser.find_element(By.CSS_SELECTOR, summary).text.startswith(
        "3 entries share this part of a message; none stands out."
    )


@pytest.mark.parametrize(
    ("paste", "kind"),
    [
        ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", "cuda-out-of-memory"),
        (
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x3 and 4x1)",
            "shape-mismatch",
        ),
        ("RuntimeError: expected scalar type Float but found Double", "dtype-mismatch"),
    ],
)
@pytest.mark.parametrize("page", ["explain", "search"])
def test_non_autograd_errors_are_named_never_an_entry(browser, server, page, paste, kind):
    from selenium.webdriver.common.by import By

    url = (explain_url if page == "explain" else search_url)(server, paste)
    assert results(browser, url) == []
    (line,) = browser.find_elements(By.CSS_SELECTOR, "p.autograd-not-autograd")
    assert line.get_attribute("data-not-autograd") == kind
    assert line.text.startswith(f"Not an autograd error ({kind}): ")
    assert (
        line.find_element(By.TAG_NAME, "a").get_attribute("href").startswith("https://pytorch.org/")
    )


@pytest.mark.parametrize("page", ["explain", "search"])
def test_near_misses_on_both_pages(browser, server, page):
    paste = "gradient require doesn't that tensor a on hook a register cannot"
    url = (explain_url if page == "explain" else search_url)(server, paste)
    assert results(browser, url) == []
    near = results(browser, url, "[data-near-miss]")
    assert [item.get_attribute("data-near-miss") for item in near][:1] == ["hook-no-grad"]


@pytest.mark.parametrize("word", ["constructor", "__proto__"])
def test_object_property_names_in_a_long_query_rank_no_phantom_page(browser, server, word):
    # Long enough (more than 8 words besides stop words) to be ranked word by word.
    query = f"moon made green cheese said optimiser training network yesterday evening {word}"
    pages = results(browser, search_url(server, query), "li.autograd-page-result a")
    links = [page.get_attribute("href") for page in pages]
    assert links, "the long query was not ranked word by word"
    assert not any(link.endswith("/undefined.html") for link in links), links


def test_sphinx_search_does_not_run_on_the_paste_page(browser, server):
    browser.get_log("browser")  # forget earlier pages' messages
    found = results(browser, explain_url(server, LEAF_MESSAGE))
    assert found[0].get_attribute("data-search-result") == "leaf-inplace"
    errors = [entry["message"] for entry in browser.get_log("browser")]
    assert [message for message in errors if "searchtools" in message] == []


LEAF_MESSAGE = (
    "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
)


def test_formulas_are_mathml_drawn_by_the_browser(browser, server):
    from selenium.webdriver.common.by import By

    results(browser, server + "errors/higher-order/derivative-not-implemented.html", "body")
    formulas = browser.find_elements(By.CSS_SELECTOR, "math")
    assert len(formulas) >= 5
    assert all(f.size["width"] > 0 for f in formulas)  # laid out, not left as TeX source
    assert "\\sqrt" not in browser.find_element(By.TAG_NAME, "body").text
