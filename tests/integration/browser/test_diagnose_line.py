"""The paste page says when ``run --diagnose`` would name the line (issue 23), in a real
browser: for an entry a diagnosis traces, a line with the command and a link to "Diagnose your
script"; for another, none."""

from __future__ import annotations

import urllib.parse

from autograd_errors.catalog import load
from autograd_errors.diagnosis import diagnosable_entries

CATALOG = load(use_cache=False)
INPLACE = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by "
    "an inplace operation: [torch.FloatTensor [4, 4]], which is output 0 of SigmoidBackward0, "
    "is at version 1; expected version 0 instead."
)


def first_result(browser, server: str, paste: str):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{server}explain.html?q={urllib.parse.quote(paste)}")
    WebDriverWait(browser, 30).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    )
    return browser.find_elements(By.CSS_SELECTOR, "[data-search-result]")[0]


def test_a_traced_entry_gets_the_diagnose_line_and_its_link(browser, server):
    from selenium.webdriver.common.by import By

    assert "inplace-modified" in diagnosable_entries()
    result = first_result(browser, server, INPLACE)
    assert result.get_attribute("data-search-result") == "inplace-modified"
    (line,) = result.find_elements(By.CSS_SELECTOR, "p.autograd-diagnose")
    assert "python -m autograd_errors run --diagnose train.py" in line.text
    link = line.find_element(By.CSS_SELECTOR, "a.autograd-diagnose-link")
    assert link.text == "Diagnose your script"
    assert link.get_attribute("href") == f"{server}diagnose.html"


def test_an_entry_no_probe_traces_gets_no_such_line(browser, server):
    from selenium.webdriver.common.by import By

    untraced = next(
        entry
        for entry in CATALOG
        if not entry.is_pitfall and not entry.retired and entry.id not in diagnosable_entries()
    )
    message = untraced.current.example or untraced.current.message
    result = first_result(browser, server, f"{untraced.current.exception}: {message}")
    assert result.get_attribute("data-search-result") == untraced.id
    assert result.find_elements(By.CSS_SELECTOR, "p.autograd-diagnose") == []
