"""Issue 14 in a real browser (Debian's Chromium, driven by Selenium): the answer first on the
paste page and on entry pages, at a desktop's 1400x900 and a phone's 400x800; a matrix whose
cells never overlap; the pasted text in the address's fragment; the feedback links; and an
axe-core 4 audit with no serious or critical violation on every page type.

Each layout check saves a screenshot in ``_build/screenshots/`` (build artifacts to look at)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import REPO, load_data

from autograd_errors.catalog import load

CATALOG = load(use_cache=False)
SCREENSHOTS = REPO / "_build" / "screenshots"
VIEWPORTS = {"desktop": (1400, 900), "phone": (400, 800)}
#: Entry pages with long answers, one a pitfall.
ENTRY_PAGES = ["inplace-modified", "custom-function-view-inplace", "grad-is-none"]
#: A whole traceback, as a user pasted it in a thread.
TRACEBACK = next(
    paste["text"]
    for paste in load_data("real-pastes.json")["pastes"]
    if paste["source"] == "https://github.com/dingmyu/davit/issues/6"
)
REPOSITORY = "https://github.com/autograd-errors/autograd-errors"


@contextmanager
def viewport(browser, name: str):
    """The page laid out for a window of that size (the device metrics Chromium emulates)."""
    width, height = VIEWPORTS[name]
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def load_page(browser, url: str, ready: str = "body", *, another_page: bool = False) -> None:
    """Open ``url`` and wait for ``ready`` (a CSS selector) to be in the page. A fragment-only
    change of address would not reload the page: the blank page in between makes it load,
    unless the caller knows ``url`` is another page than the one shown (``another_page``)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    if not another_page:
        browser.get("about:blank")
    browser.get(url)
    WebDriverWait(browser, 30).until(
        lambda driver: (
            driver.execute_script("return document.readyState") == "complete"
            and driver.find_elements(By.CSS_SELECTOR, ready)
        )
    )


def explained(browser, url: str) -> None:
    load_page(browser, url, "#autograd-results > :not(.autograd-working)")


def paste_url(server: str, text: str) -> str:
    return f"{server}explain.html#q={urllib.parse.quote(text)}"


def screenshot(browser, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def rect(browser, selector: str) -> dict[str, float]:
    """Where the first element ``selector`` finds is, in the viewport's coordinates."""
    found = browser.execute_script(
        "const node = document.querySelector(arguments[0]);"
        "if (!node) return null;"
        "const r = node.getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};",
        selector,
    )
    assert found is not None, f"nothing matches {selector}"
    return found


def assert_in_first_viewport(browser, selector: str) -> None:
    box = rect(browser, selector)
    height = browser.execute_script("return window.innerHeight")
    assert box["top"] >= 0, f"{selector} at {box}"
    assert box["bottom"] <= height, f"{selector} at {box}, below the first {height} px"


def horizontal_overflow(browser) -> list[str]:
    """What sticks out of the page sideways: empty when the page fits its width."""
    return browser.execute_script(
        """
        const width = document.documentElement.clientWidth;
        if (document.documentElement.scrollWidth <= width) return [];
        return [...document.querySelectorAll("body *")]
          .filter((node) => node.getBoundingClientRect().right > width + 0.5)
          .slice(0, 10)
          .map((node) => `${node.tagName.toLowerCase()}.${node.className}`);
        """
    )


# ---- the paste page -------------------------------------------------------------------------


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_pasted_traceback_is_answered_first(browser, server, size):
    with viewport(browser, size):
        browser.get_log("browser")  # forget earlier pages' messages
        explained(browser, paste_url(server, TRACEBACK))
        screenshot(browser, f"paste-traceback-{size}")
        # The fragment is the paste, not an anchor: no script stumbles on it.
        assert [m for m in browser.get_log("browser") if m["source"] == "javascript"] == []
        first = browser.find_element("css selector", "[data-search-result]")
        assert first.get_attribute("data-search-result") == "inplace-modified"
        if size == "desktop":
            assert_in_first_viewport(browser, "[data-search-result] .autograd-fix")
        assert horizontal_overflow(browser) == []
        # The box shrank to a few lines, and the advice comes before the values read.
        box = rect(browser, "#autograd-paste")
        assert box["bottom"] - box["top"] < 120
        # Issue 25: the box stays in view, the answer right under it; no side column.
        assert box["top"] >= 0
        assert_in_first_viewport(browser, "[data-search-result] h2")
        assert rect(browser, "[data-search-result]")["top"] - box["bottom"] < 80
        assert no_side_column(browser)
        order = browser.execute_script(
            "return [...document.querySelectorAll('[data-search-result] > *')]"
            ".map((node) => node.className || node.tagName.toLowerCase())"
        )
        assert order.index("autograd-fix") < order.index("autograd-fields")


def no_side_column(browser) -> bool:
    """No navigation column beside the paste page's content: the theme's primary sidebar is
    not laid out, and the paste box takes most of the width (at 1400 px, an empty "Section
    Navigation" column took a quarter of it)."""
    sidebar = browser.execute_script(
        "const bar = document.querySelector('.bd-sidebar-primary');"
        "if (!bar) return 0; const style = getComputedStyle(bar);"
        "return style.display === 'none' || style.visibility === 'hidden' ? 0"
        " : bar.getBoundingClientRect().width * (bar.getBoundingClientRect().left >= 0);"
    )
    width = browser.execute_script("return document.documentElement.clientWidth")
    box = rect(browser, "#autograd-paste")
    return width < 700 or (sidebar == 0 and box["right"] - box["left"] > 0.6 * width)


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("language", ["", "zh_CN/"])
def test_the_paste_page_without_a_paste_has_no_empty_column(
    browser, server, size, language, request
):
    built_in(language, request)
    with viewport(browser, size):
        load_page(browser, f"{server}{language}explain.html", "#autograd-paste")
        screenshot(browser, f"paste-empty-{language[:2] or 'en'}-{size}")
        assert no_side_column(browser)
        shown = browser.execute_script("return document.body.innerText")
        assert "Section Navigation" not in shown
        assert "Collapse Sidebar" not in shown


@pytest.mark.parametrize("page", ["explain.html", "index.html"])
def test_ctrl_enter_in_a_paste_box_explains(browser, server, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    load_page(browser, server + page, "form.autograd-paste textarea")
    box = browser.find_element(By.CSS_SELECTOR, "form.autograd-paste textarea")
    box.send_keys("TypeError: Variable data has to be a tensor, but got int")
    box.send_keys(Keys.CONTROL, Keys.ENTER)
    WebDriverWait(browser, 30).until(
        lambda driver: driver.find_elements(
            By.CSS_SELECTOR, "#autograd-results [data-search-result]"
        )
    )
    assert urllib.parse.urlparse(browser.current_url).path == "/explain.html"
    found = browser.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    assert found[0].get_attribute("data-search-result") == "data-not-tensor"
    # Enter alone is a new line in the box, as in any text area.
    load_page(browser, server + page, "form.autograd-paste textarea")
    box = browser.find_element(By.CSS_SELECTOR, "form.autograd-paste textarea")
    box.send_keys("line one", Keys.ENTER, "line two")
    assert box.get_attribute("value") == "line one\nline two"
    assert browser.find_elements(By.CSS_SELECTOR, "#autograd-results [data-search-result]") == []


def test_the_paste_lives_in_the_fragment(browser, server):
    from selenium.webdriver.common.by import By

    load_page(browser, server + "explain.html", "#autograd-paste")
    box = browser.find_element(By.ID, "autograd-paste")
    box.send_keys("TypeError: Variable data has to be a tensor, but got int")
    box.find_element(By.XPATH, "./ancestor::form//button").click()
    explained(browser, browser.current_url)
    url = urllib.parse.urlparse(browser.current_url)
    assert (url.path, url.query) == ("/explain.html", "")
    assert urllib.parse.parse_qs(url.fragment)["q"] == [
        "TypeError: Variable data has to be a tensor, but got int"
    ]
    found = browser.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    assert found[0].get_attribute("data-search-result") == "data-not-tensor"


def test_an_old_query_address_is_answered_and_moved_to_the_fragment(browser, server):
    from selenium.webdriver.common.by import By

    message = (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    )
    explained(browser, f"{server}explain.html?q={urllib.parse.quote(message)}")
    url = urllib.parse.urlparse(browser.current_url)
    assert url.query == ""
    assert urllib.parse.parse_qs(url.fragment)["q"] == [message]
    found = browser.find_elements(By.CSS_SELECTOR, "[data-search-result]")
    assert found[0].get_attribute("data-search-result") == "leaf-inplace"


def issue_form(browser, selector: str) -> tuple[str, dict[str, list[str]]]:
    href = browser.find_element("css selector", selector).get_attribute("href")
    url = urllib.parse.urlparse(href)
    return f"{url.scheme}://{url.netloc}{url.path}", urllib.parse.parse_qs(url.query)


def test_the_paste_page_offers_a_filled_in_issue(browser, server):
    explained(browser, paste_url(server, TRACEBACK))
    where, fields = issue_form(browser, "#autograd-results p.autograd-feedback a")
    assert where == f"{REPOSITORY}/issues/new"
    assert fields["title"] == ["Wrong match: inplace-modified"]
    (body,) = fields["body"]
    assert TRACEBACK.strip() in body
    assert "The page showed: inplace-modified" in body


def test_the_paste_page_offers_an_issue_for_a_missing_entry(browser, server):
    paste = "RuntimeError: the moon is made of cheese, said the optimiser"
    explained(browser, paste_url(server, paste))
    where, fields = issue_form(browser, "#autograd-results p.autograd-feedback a")
    assert where == f"{REPOSITORY}/issues/new"
    assert fields["title"] == [f"Missing entry: {paste}"]
    assert "The page showed: no entry" in fields["body"][0]


@pytest.mark.parametrize("language", ["", "zh_CN/"])
def test_an_emoji_cut_in_two_by_the_issue_link_still_shows_the_answer(
    browser, server, language, request
):
    """S9: the feedback link keeps the last 2000 characters (UTF-16 units) of the paste; a cut
    through an emoji's surrogate pair once hid the answer behind "URI malformed"."""
    built_in(language, request)
    message = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    paste = "🔥" * 3000 + "\n" + message
    if (len(paste.encode("utf-16-le")) // 2 - 2000) % 2 == 0:
        paste = "x" + paste  # the cut falls between the two halves of an emoji
    browser.get_log("browser")
    explained(browser, f"{server}{language}explain.html#q={urllib.parse.quote(paste)}")
    found = browser.find_elements("css selector", "[data-search-result]")
    assert [node.get_attribute("data-search-result") for node in found] == ["no-grad-fn"]
    _, fields = issue_form(browser, "#autograd-results p.autograd-feedback a")
    (body,) = fields["body"]
    assert message in body
    assert "\ufffd" not in body
    # A no-match paste whose title is cut at character 100, inside an emoji.
    explained(browser, paste_url(server, "x" * 99 + "🔥 unknown failure text"))
    _, fields = issue_form(browser, "#autograd-results p.autograd-feedback a")
    assert fields["title"] == ["Missing entry: " + "x" * 99]
    assert [m for m in browser.get_log("browser") if m["source"] == "javascript"] == []


def test_a_long_paste_is_cut_to_its_tail_in_the_issue(browser, server):
    paste = "x = 1\n" * 1000 + TRACEBACK
    explained(browser, paste_url(server, paste))
    _, fields = issue_form(browser, "#autograd-results p.autograd-feedback a")
    (body,) = fields["body"]
    assert body.startswith("Pasted on the paste page (its last 2000 characters):")
    assert TRACEBACK.strip() in body
    assert len(body) < 2400


# ---- opened as files (file://, the site straight from _build/html) -----------------------


def built_in(language: str, request: pytest.FixtureRequest) -> None:
    """The Chinese pages are built by their own fixture: asked for here, so that the zh_CN
    case does not depend on another test having built them first (run alone, it met a 404)."""
    if language:
        request.getfixturevalue("zh_site")


def uncaught(browser) -> list[str]:
    return [m["message"] for m in browser.get_log("browser") if "Uncaught" in m["message"]]


@pytest.mark.parametrize("language", ["", "zh_CN/"])
def test_the_paste_page_works_opened_as_a_file(browser, site, language, request):
    """S10: over file:// a page may not fetch; the catalog comes as a script instead."""
    built_in(language, request)
    message = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    browser.get_log("browser")
    url = (site / language / "explain.html").as_uri() + "#q=" + urllib.parse.quote(message)
    explained(browser, url)
    found = browser.find_elements("css selector", "[data-search-result]")
    assert [node.get_attribute("data-search-result") for node in found] == ["no-grad-fn"]
    assert uncaught(browser) == []


@pytest.mark.parametrize(
    "query",
    [
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        "gradient",
    ],
)
def test_the_search_page_opened_as_a_file_logs_no_uncaught_error(browser, site, query):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")
    load_page(browser, (site / "search.html").as_uri() + "?q=" + urllib.parse.quote(query))
    WebDriverWait(browser, 60).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "#search-results li")
    )
    browser.execute_script("return new Promise((done) => setTimeout(done, 1500))")
    assert uncaught(browser) == []
    assert len(browser.find_elements(By.CSS_SELECTOR, "#search-results li")) >= 1


# ---- entry pages ----------------------------------------------------------------------------


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("entry_id", ENTRY_PAGES)
def test_an_entry_page_answers_in_its_first_screen(browser, server, entry_id, size):
    entry = CATALOG[entry_id]
    with viewport(browser, size):
        load_page(browser, server + entry.path, "h1")
        screenshot(browser, f"entry-{entry_id}-{size}")
        heading = browser.find_element("css selector", "h1")
        assert heading.text.startswith(entry.title)
        assert heading.find_element("css selector", ".autograd-id").text == entry_id
        if size == "desktop":
            message = "div.autograd-message" if not entry.is_pitfall else "div.autograd-pitfall"
            for part in (message, "p.autograd-why", "p.autograd-fix"):
                assert_in_first_viewport(browser, part)
        assert horizontal_overflow(browser) == []
        assert "Go to the end" not in browser.find_element("css selector", "article").text


def test_every_entry_page_begins_its_fix_in_the_first_screen(browser, server):
    """All of it on the three pages above; on every page, at least its first two lines (a few
    entries explain at a length that pushes the fix's end below 900 px)."""
    late = {}
    with viewport(browser, "desktop"):
        for entry in CATALOG:
            load_page(browser, server + entry.path, "p.autograd-fix", another_page=True)
            top, line = browser.execute_script(
                "const fix = document.querySelector('p.autograd-fix');"
                "return [fix.getBoundingClientRect().top,"
                " parseFloat(getComputedStyle(fix).lineHeight)]"
            )
            if top + 2 * line > VIEWPORTS["desktop"][1]:
                late[entry.id] = top
    assert late == {}


def test_an_entry_page_offers_a_filled_in_issue(browser, server):
    entry = CATALOG["inplace-modified"]
    load_page(browser, server + entry.path, "p.autograd-feedback a")
    assert browser.find_element("css selector", "p.autograd-feedback").text.startswith(
        "Wrong match or missing entry?"
    )
    where, fields = issue_form(browser, "p.autograd-feedback a")
    assert where == f"{REPOSITORY}/issues/new"
    assert fields["title"] == ["Wrong match or missing entry: inplace-modified"]
    page = f"https://autograd-errors.readthedocs.io/en/latest/{entry.path}"
    assert fields["body"][0].startswith(f"Entry: inplace-modified ({page})\n")


def test_navigation_lists_titles(browser, server):
    entry = CATALOG["inplace-modified"]
    load_page(browser, server + entry.path, "nav.bd-docs-nav")
    navigation = [
        link.get_attribute("textContent").strip()
        for link in browser.find_elements("css selector", "nav.bd-docs-nav a")
    ]
    assert entry.title in navigation
    assert CATALOG["leaf-inplace"].title in navigation
    assert not set(CATALOG.ids) & set(navigation)


# ---- the home page and the matrix -------------------------------------------------------------


@pytest.mark.parametrize("size", VIEWPORTS)
def test_the_home_page_lists_one_line_per_message(browser, server, size):
    with viewport(browser, size):
        load_page(browser, server + "index.html", "ul.autograd-index")
        screenshot(browser, f"home-{size}")
        lines = browser.execute_script(
            """
            return [...document.querySelectorAll("div.autograd-index-message")].map((line) => ({
              height: line.getBoundingClientRect().height,
              lineHeight: parseFloat(getComputedStyle(line).lineHeight),
              title: line.title,
              text: line.textContent,
            }));
            """
        )
        messages = sorted(
            f"{entry.exception}: {entry.current.template.render({})}"
            for entry in CATALOG
            if not entry.is_pitfall
        )
        assert sorted(line["text"] for line in lines) == messages
        for line in lines:
            assert line["height"] <= line["lineHeight"] * 1.5, line
            assert line["title"] == line["text"]
        assert horizontal_overflow(browser) == []


MATRIX_CELLS = """
const cells = [...document.querySelectorAll("table.autograd-matrix th, table.autograd-matrix td")];
return cells.map((cell) => {
  const r = cell.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
          overflows: cell.scrollWidth > cell.clientWidth + 1, text: cell.textContent.trim()};
});
"""

# Where the browser broke a cell's text into lines: the characters before each break.
LINE_BREAKS = """
const breaks = [];
for (const cell of document.querySelectorAll(
    "table.autograd-matrix th, table.autograd-matrix td")) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  let previous = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      if (!box || !node.data[i].trim()) continue;
      if (previous && box.top > previous.top + 2) {
        breaks.push({cell: cell.textContent.trim(), before: previous.char});
      }
      previous = {top: box.top, char: node.data[i]};
    }
  }
}
return breaks;
"""


@pytest.mark.parametrize("size", VIEWPORTS)
def test_the_matrix_is_a_readable_grid(browser, server, size):
    with viewport(browser, size):
        load_page(browser, server + "matrix.html", "table.autograd-matrix")
        screenshot(browser, f"matrix-{size}")
        cells = browser.execute_script(MATRIX_CELLS)
        assert len(cells) > 100
        assert [cell["text"] for cell in cells if cell["overflows"]] == []
        overlaps = [
            (a["text"], b["text"])
            for i, a in enumerate(cells)
            for b in cells[i + 1 :]
            if min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
        ]
        assert overlaps == []
        # Names break between words only: after a hyphen or a space, never inside a word.
        breaks = browser.execute_script(LINE_BREAKS)
        assert [b for b in breaks if b["before"] not in "-\u2013"] == []
        assert horizontal_overflow(browser) == []
        # The grid scrolls in its own box, and the entries' column stays in view.
        scrolled = browser.execute_script(
            """
            const table = document.querySelector("table.autograd-matrix");
            const box = table.parentElement;
            const first = table.querySelector("tbody td");
            const before = first.getBoundingClientRect().left;
            box.scrollLeft = box.scrollWidth;
            return {wide: box.scrollWidth > box.clientWidth, moved: box.scrollLeft,
                    shift: first.getBoundingClientRect().left - before};
            """
        )
        if size == "phone":
            assert scrolled["wide"]
            assert scrolled["moved"] > 0
        else:  # the whole grid at once
            assert not scrolled["wide"]
        assert abs(scrolled["shift"]) <= 1


def test_the_matrix_legend_names_every_label(browser, server):
    load_page(browser, server + "matrix.html", "table.autograd-matrix")
    legend = browser.execute_script(
        "return [...document.querySelectorAll('dl.autograd-matrix-legend dt')]"
        ".map((term) => term.textContent.trim())"
    )
    labels = browser.execute_script(
        "return [...new Set([...document.querySelectorAll('table.autograd-matrix td abbr')]"
        ".map((abbr) => abbr.textContent.trim()))]"
    )
    assert "C" in labels
    assert sorted(labels) == sorted(legend)


# ---- accessibility ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def axe_source(pytestconfig) -> str:
    """axe-core 4, fetched from npm at test time into pytest's cache (the site never loads it)."""
    cache = Path(pytestconfig.cache.mkdir("axe-core"))
    script = cache / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(
                "the accessibility audit needs npm to fetch axe-core 4 from the npm registry: "
                "apt-get install npm"
            )
        packed = subprocess.run(
            [npm, "pack", "axe-core@4", "--json", "--pack-destination", str(cache)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if packed.returncode != 0:
            pytest.fail(f"npm pack axe-core@4 failed:\n{packed.stderr}")
        tarball = cache / json.loads(packed.stdout)[0]["filename"]
        with tarfile.open(tarball) as archive:
            member = archive.extractfile("package/axe.min.js")
            assert member is not None
            script.write_bytes(member.read())
        tarball.unlink()
    return script.read_text(encoding="utf-8")


AUDITED = {
    "home": ("index.html", "ul.autograd-index"),
    "entry": (CATALOG["inplace-modified"].path, "p.autograd-fix"),
    "pitfall": (CATALOG["grad-is-none"].path, "p.autograd-fix"),
    "paste": (f"explain.html#q={urllib.parse.quote(TRACEBACK)}", "[data-search-result]"),
    "search": (
        "search.html?q="
        + urllib.parse.quote(
            "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
            "operation."
        ),
        "[data-search-result]",
    ),
    "matrix": ("matrix.html", "table.autograd-matrix"),
}


# Every rule, the experimental ones too; the theme's navigation is laid out only on a wide
# screen, the phone's menu only on a narrow one: both are audited.
AXE_RUN = """
const done = arguments[arguments.length - 1];
const experimental = axe.getRules(["experimental"]).map((rule) => [rule.ruleId, {enabled: true}]);
axe.run(document, {resultTypes: ["violations"], rules: Object.fromEntries(experimental)})
  .then((found) => done(found.violations.map((v) => ({
    rule: v.id, impact: v.impact,
    where: v.nodes.slice(0, 5).map((node) => node.target.join(" ")),
  }))))
  .catch((error) => done([{rule: "axe failed", impact: "critical", where: [String(error)]}]));
"""


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("page", AUDITED)
def test_no_serious_accessibility_violation(browser, server, axe_source, page, size):
    path, ready = AUDITED[page]
    with viewport(browser, size):
        load_page(browser, server + path, ready)
        browser.execute_script(axe_source)
        assert browser.execute_script("return axe.version").startswith("4.")
        browser.set_script_timeout(120)
        violations = browser.execute_async_script(AXE_RUN)
    serious = [
        v
        for v in violations
        if v["impact"] in ("serious", "critical") or v["rule"] == "heading-order"
    ]
    assert serious == [], json.dumps(serious, indent=1)
