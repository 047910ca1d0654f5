"""The zh_CN site (issue 16), built as `make docs` builds it: the same paths under zh_CN/, the
catalog's text in Chinese, a language switcher on every page (clicked in real Chromium), the
Chinese search, the paste page's catalog in Chinese, and no directive text in the gettext
catalogs.

The build is the test run's one build of its copy of the project (tests/conftest.py), the
Chinese site after the English one, as `make docs` builds them; the completeness tests at the
end read the real catalogs and pages. The interface of every zh page, and what the paste page's
script writes there, holds no English word of the interface (issue 25)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import unicodedata
from pathlib import Path, PurePosixPath

import pytest
from babel.messages.pofile import read_po
from helpers import REPO, page_text, sphinx_build

from autograd_errors import catalog as catalog_module
from autograd_errors.matcher.matching import find_entries
from autograd_errors.rendering import strings

TRANSLATED_ENTRY = "inplace-modified"
PAGE = f"errors/inplace/{TRANSLATED_ENTRY}.html"
LOCALE = REPO / "locales" / "zh_CN" / "LC_MESSAGES"


@pytest.fixture(scope="session")
def translated(site_project: Path) -> catalog_module.Entry:
    """The entry whose Chinese text the tests read, as the project copy's record holds it."""
    record = site_project / "src" / "autograd_errors" / "entries" / f"{TRANSLATED_ENTRY}.toml"
    assert "\n[zh_CN]" in record.read_text(encoding="utf-8")
    return catalog_module.load(str(record.parent), use_cache=False)[TRANSLATED_ENTRY]


def pages(root: Path) -> list[Path]:
    """The site's pages (for the English site, not those of the Chinese one inside it)."""
    return sorted(
        path
        for path in root.rglob("*.html")
        if path.relative_to(root).parts[0] not in ("zh_CN", "_static", "_sources", "_images")
        and not path.relative_to(root).parts[0].startswith(".")
    )


def test_every_page_has_its_chinese_twin_at_the_same_path(site, zh_site):
    english = {p.relative_to(site) for p in pages(site)}
    chinese = {p.relative_to(zh_site) for p in pages(zh_site)}
    assert english == chinese
    assert Path(PAGE) in chinese


def test_an_entry_page_speaks_chinese_and_keeps_the_message(site, zh_site, translated):
    text = page_text(zh_site / PAGE)
    chinese = translated.localized("zh_CN")
    assert chinese.title in text
    assert f"{strings.ui('page.why', 'zh_CN')}。 {chinese.cause.replace('`', '')}" in text
    assert strings.ui("page.causes", "zh_CN") in text
    assert chinese.causes[0].text.split("：")[0] in text
    # The message torch printed, and the code, stay as they are.
    message = "one of the variables needed for gradient computation has been modified by an"
    assert message in text
    assert message in page_text(site / PAGE)
    assert translated.title in page_text(site / PAGE)
    assert translated.title not in text


def test_the_zh_pages_declare_their_language(zh_site):
    markup = (zh_site / PAGE).read_text(encoding="utf-8")
    assert re.search(r'<html[^>]* lang="zh-CN"', markup)


def switch_href(page: Path) -> str:
    markup = page.read_text(encoding="utf-8")
    anchor = re.search(r'<a class="nav-link" href="([^"]+)" hreflang="[^"]+"', markup)
    assert anchor, f"{page}: no language switcher"
    return html.unescape(anchor.group(1))


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_page_links_to_the_same_page_in_the_other_language(site, zh_site, language):
    root, other_root = (site, zh_site) if language == "en" else (zh_site, site)
    checked = 0
    for page in pages(root):
        relative = page.relative_to(root)
        href = switch_href(page)
        assert not href.startswith(("/", "http")), (page, href)  # relative: file:// and any host
        target = Path(os.path.normpath(page.parent / PurePosixPath(href)))
        assert target == other_root / relative, (page, href)
        assert target.is_file()
        checked += 1
    assert checked > 64


def test_the_zh_paste_page_catalog_is_in_chinese(site, zh_site, translated):
    data = json.loads((zh_site / "_static" / "autograd-catalog.json").read_text("utf-8"))
    english = json.loads((site / "_static" / "autograd-catalog.json").read_text("utf-8"))
    assert data["language"] == "zh_CN"
    assert english["language"] == "en"
    written = (zh_site / "_static" / "autograd-strings.js").read_text("utf-8")
    assert written.startswith("window.AutogradStrings = {")
    assert json.loads(written.split(" = ", 1)[1].rstrip(";\n")) == strings.export_strings("zh_CN")
    english_strings = (site / "_static" / "autograd-strings.js").read_text("utf-8")
    assert '"noMatch": "No entry matches this text."' in english_strings
    entry = next(e for e in data["entries"] if e["id"] == TRANSLATED_ENTRY)
    assert entry["title"] == translated.localized("zh_CN").title
    assert entry["hints"][0]["text"] == translated.localized("zh_CN").hints[0].text
    assert entry["path"] == PAGE  # ids and paths stay English
    assert [w["variant"] for w in entry["wordings"]] == [w.variant for w in translated.wordings]
    # The matcher's settings are the same in both; the hints of the errors that are not
    # autograd's are in the site's language.
    hints = [kind.pop("hint") for kind in data["settings"]["not_autograd"]]
    english_hints = [kind.pop("hint") for kind in english["settings"]["not_autograd"]]
    assert data["settings"] == english["settings"]
    assert hints == [kind.hints["zh_CN"] for kind in catalog_module.load().not_autograd]
    assert english_hints == [kind.hint for kind in catalog_module.load().not_autograd]


def test_the_glossary_page_shows_every_term_in_both_sites(site, zh_site):
    from autograd_errors.sphinxext.languages import glossary_terms

    for root, heading in ((site, "Chinese"), (zh_site, "中文")):
        text = page_text(root / "glossary.html")
        assert heading in text
        for term in glossary_terms():
            assert term["zh"] in text
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="glossary.html"' in index


def search_index(root: Path) -> dict:
    text = (root / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def test_the_zh_search_finds_a_page_by_a_chinese_word(zh_site):
    index = search_index(zh_site)
    docs = index["docnames"]
    # jieba cuts the Chinese text into words: "常见原因" (the entry pages' heading) gives 原因,
    # a word of a section title (titleterms) there, of the text (terms) elsewhere.
    found: set[int] = set()
    for kind in ("terms", "titleterms"):
        hits = index[kind].get("原因", [])
        found.update(hits if isinstance(hits, list) else [hits])
    assert found, sorted(t for t in index["terms"] if not t.isascii())[:50]
    assert docs.index(PAGE.removesuffix(".html")) in found


def test_the_gettext_catalogs_hold_no_directive_text(site_project, site, translated, tmp_path):
    # In a copy: the readers' copy stays as built (the tests that rebuild the site restore
    # their project from it).
    project = tmp_path / "project"
    shutil.copytree(site_project, project, symlinks=True)
    result = sphinx_build(project, "-b", "gettext", "docs", "_build/gettext")
    assert result.returncode == 0, result.stdout + result.stderr
    locations, messages = set(), set()
    for pot in (project / "_build" / "gettext").rglob("*.pot"):
        with pot.open("rb") as handle:
            for message in read_po(handle):
                messages.add(str(message.id))
                locations.update(path for path, _ in message.locations)
    # Text parsed from a directive's own markup is located at the directive ("autograd-index",
    # "autograd-entry inplace-modified"), not at a file.
    directive_made = [w for w in locations if PurePosixPath(w).name.startswith("autograd-")]
    assert directive_made == []
    assert translated.title not in messages
    assert not [m for m in messages if translated.causes[0].text[:40] in m]
    assert "Leaves and `.grad`" in messages  # the hand-written prose is still there
    # Nothing that changes from one build to the next, such as a script's running time.
    assert not [m for m in messages if "running time" in m.lower()]


# In the browser ---------------------------------------------------------------------------------


@pytest.fixture
def wide_browser(browser):
    """The browser at a desktop width, where the theme shows the navbar (narrower, it moves
    the navbar's items into a collapsed sidebar)."""
    size = browser.get_window_size()
    browser.set_window_size(1400, 1000)
    yield browser
    browser.set_window_size(size["width"], size["height"])


def switcher(browser):
    from selenium.webdriver.common.by import By

    shown = [
        link
        for link in browser.find_elements(By.CSS_SELECTOR, "[data-autograd-language]")
        if link.is_displayed()
    ]
    assert len(shown) == 1
    return shown[0]


def test_the_switcher_goes_both_ways_in_chromium(wide_browser, server, zh_site):
    from selenium.webdriver.common.by import By

    driver = wide_browser
    driver.get(server + PAGE)
    link = switcher(driver)
    assert link.text == "中文"
    link.click()
    assert driver.current_url == server + "zh_CN/" + PAGE
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN"
    back = switcher(driver)
    assert back.text == "English"
    back.click()
    assert driver.current_url == server + PAGE
    # From file:// too: the links are relative.
    driver.get((zh_site / "index.html").as_uri())
    switcher(driver).click()
    assert driver.current_url == (zh_site.parent / "index.html").as_uri()
    switcher(driver).click()
    assert driver.current_url == (zh_site / "index.html").as_uri()


def test_searching_a_chinese_word_finds_a_page_in_chromium(browser, server, zh_site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server + "zh_CN/search.html?q=" + "张量")
    WebDriverWait(browser, 60).until(  # the summary is written once every result is listed
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "p.search-summary:not(:empty)")
    )
    found = {
        link.get_attribute("href")
        for link in browser.find_elements(By.CSS_SELECTOR, "#search-results ul li a")
    }
    assert server + "zh_CN/glossary.html" in {href.split("?")[0] for href in found}


def test_the_zh_paste_page_answers_in_chinese_in_chromium(browser, server, zh_site, translated):
    from urllib.parse import quote

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server + "zh_CN/explain.html#q=" + quote(translated.current.example))
    (result,) = WebDriverWait(browser, 60).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "div.autograd-result")
    )
    chinese = translated.localized("zh_CN")
    heading = result.find_element(By.TAG_NAME, "h2").text
    assert heading == f"{chinese.title} {translated.id}"
    fix = result.find_element(By.CSS_SELECTOR, "p.autograd-fix").text
    assert fix.startswith(strings.ui("answer.fix", "zh_CN").strip())
    # The fix of the cause the answer leads with (the most common one for a bare message), as
    # the command line gives it; the entry's own fix when it has no common cause.
    found = find_entries(translated.current.example, catalog_module.Catalog([translated]))
    choice = found.matches[0].cause
    expected = choice.cause(chinese.causes).fix if choice is not None else chinese.fix
    assert fix.endswith(expected.replace("`", "")[-20:])
    message = result.find_element(By.CSS_SELECTOR, "pre.autograd-message").text
    assert message == translated.current.example  # torch's message stays as torch printed it


# Completeness of the real translations ----------------------------------------------------------
# These fail until the translators' branches are merged and `make translations` has been run.


@pytest.mark.parametrize(
    "po_file", sorted(LOCALE.rglob("*.po")), ids=lambda path: str(path.relative_to(LOCALE))
)
def test_every_prose_message_is_translated(po_file):
    with po_file.open("rb") as handle:
        messages = [m for m in read_po(handle) if m.id]
    untranslated = [str(m.id)[:60] for m in messages if not m.string]
    fuzzy = [str(m.id)[:60] for m in messages if m.fuzzy]
    assert (untranslated, fuzzy) == ([], [])
    assert messages, "only obsolete messages: regenerate with `make translations`"


def cjk(text: str) -> int:
    return sum(unicodedata.east_asian_width(char) == "W" for char in text)


def test_the_zh_build_has_no_untranslated_paragraph(zh_site):
    """Every paragraph, heading, list item and cell of a zh page's article that reads as an
    English sentence (four plain words or more) holds Chinese. Code, identifiers (``no-grad-fn``,
    ``autograd_errors.explain(text)``) and the glossary's English column are not sentences."""
    untranslated = []
    for page in pages(zh_site):
        markup = page.read_text(encoding="utf-8")
        article = re.search(r"<article[^>]*>(.*)</article>", markup, re.S)
        if article is None:
            continue
        body = re.sub(r"<(pre|code|script|style)\b.*?</\1>", "", article.group(1), flags=re.S)
        body = re.sub(r'<table class="[^"]*autograd-glossary.*?</table>', "", body, flags=re.S)
        # A whole element (to its own closing tag): a sentence may open with an English
        # message in <em>, as torch printed it, and go on in Chinese.
        # An API signature (<dt class="sig ...">) is code.
        for _, attributes, block in re.findall(
            r"<(p|h[1-6]|li|dt|td)\b([^>]*)>(.*?)</\1>", body, re.S
        ):
            if 'class="sig' in attributes:
                continue
            text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", block)).split())
            words = [w for w in text.split() if re.fullmatch(r"[A-Za-z]{3,}[,.;:!?]?", w)]
            if len(words) >= 4 and not cjk(text):
                untranslated.append(f"{page.relative_to(zh_site)}: {text[:70]}")
    assert untranslated == []


# The interface in Chinese (issue 25) --------------------------------------------------------------


def theme_words() -> set[str]:
    """The site theme's own English words (pydata-sphinx-theme's message catalog template)."""
    import pydata_sphinx_theme

    pot = Path(pydata_sphinx_theme.__file__).parent / "locale" / "sphinx.pot"
    with pot.open("rb") as handle:
        words = {str(m.id) for m in read_po(handle) if m.id and isinstance(m.id, str)}
    # A template of the theme's, not the page's words: "Copyright {copyright}" and the like.
    return {re.sub(r"%\(\w+\)s", "", word).strip(" .©") for word in words} - {""}


def interface_of(markup: str) -> str:
    """A page's interface as a reader meets it: its text outside the article's prose (the
    header, the navigation, the sidebars, the footer), the forms inside it, and the words
    people hear or see on controls (aria-label, title, placeholder, alt); one per line. Code,
    scripts, the page's own prose (the test above's) and what is marked English on purpose
    (the link to the English page) are left out."""
    body = re.sub(r"<(script|style|pre|code|kbd|textarea)\b.*?</\1>", " ", markup, flags=re.S)
    body = re.sub(r"<!--.*?-->", " ", body, flags=re.S)
    # The link to the English page speaks English on purpose (lang="en": "Read this page...").
    body = re.sub(r'<a\b[^>]*\blang="en"[^>]*>.*?</a>', " ", body, flags=re.S)
    article = re.search(r"<article[^>]*>.*?</article>", body, re.S)
    if article:
        forms = " ".join(re.findall(r"<form\b.*?</form>", article.group(), re.S))
        body = body[: article.start()] + forms + body[article.end() :]
    head = re.search(r"<head>.*?</head>", body, re.S)
    if head:
        body = body[: head.start()] + body[head.end() :]
    said = re.findall(r'\b(?:aria-label|title|placeholder|alt)="([^"]*)"', body)
    text = re.sub(r"<[^>]+>", "\n", body)
    lines = [*said, *text.splitlines()]
    return "\n".join(" ".join(html.unescape(line).split()) for line in lines if line.strip())


def test_no_zh_page_shows_an_english_interface_word(zh_site):
    from helpers import english_left

    theme = theme_words()
    found = {}
    for page in pages(zh_site):
        interface = interface_of(page.read_text(encoding="utf-8"))
        left = english_left(interface) + [
            word for word in theme if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", interface)
        ]
        if left:
            found[str(page.relative_to(zh_site))] = sorted(set(left))
    assert found == {}


def test_the_detector_sees_the_english_interface_of_the_english_site(site):
    """The test above can fail: on the English pages it finds the words the zh pages lack."""
    interface = interface_of((site / "explain.html").read_text(encoding="utf-8"))
    for word in ("Error message or traceback", "Explain", "More", "Color mode"):
        assert word in interface
    assert "Search the docs ..." in interface


def test_the_zh_forms_and_theme_speak_chinese(zh_site):
    paste = (zh_site / "explain.html").read_text(encoding="utf-8")
    assert '<label for="autograd-paste">报错信息或回溯信息（traceback）</label>' in paste
    assert '<button type="submit">解释</button>' in paste
    home = (zh_site / "index.html").read_text(encoding="utf-8")
    assert '<label for="autograd-paste-home">粘贴你的报错</label>' in home
    tour = interface_of((zh_site / "tour.html").read_text(encoding="utf-8"))
    for word in ("更多", "搜索文档……", "收起侧边栏", "颜色模式", "2026，autograd-errors 贡献者"):
        assert word in tour, word


OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"


@pytest.mark.parametrize(
    "paste",
    [
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
        OOM,
        "RuntimeError: the moon is made of cheese, said the optimiser",
        "grad is none",  # the near misses
    ],
)
def test_the_zh_paste_page_answers_without_english(browser, server, zh_site, paste):
    """What the page's script writes (the answer, "not an autograd error", no match, the
    feedback line) is Chinese but for torch's words and code."""
    from urllib.parse import quote

    from helpers import english_left
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get("about:blank")
    browser.get(server + "zh_CN/explain.html#q=" + quote(paste))
    WebDriverWait(browser, 60).until(
        lambda driver: driver.find_elements(
            By.CSS_SELECTOR, "#autograd-results > :not(.autograd-working)"
        )
    )
    shown = browser.execute_script(
        "const copy = document.getElementById('autograd-results').cloneNode(true);"
        "copy.querySelectorAll('pre, code, .autograd-id, a.autograd-elsewhere-link,"
        " [data-near-miss] .autograd-id').forEach((node) => node.remove());"
        "return copy.innerText;"
    )
    assert shown.strip()
    assert english_left(shown, messages=(paste,)) == [], shown


def test_a_not_autograd_hint_shows_its_code_as_code_in_both_languages(browser, server, zh_site):
    """The hints' `backticks` are code on the page, as in the entries' text."""
    from urllib.parse import quote

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    for language, words in (("", "store"), ("zh_CN/", "保存")):
        browser.get("about:blank")
        browser.get(f"{server}{language}explain.html#q={quote(OOM)}")
        (line,) = WebDriverWait(browser, 60).until(
            lambda driver: driver.find_elements(By.CSS_SELECTOR, "p.autograd-not-autograd")
        )
        codes = [node.text for node in line.find_elements(By.TAG_NAME, "code")]
        assert codes == ["loss.item()", "loss"]
        assert "`" not in line.text
        assert words in line.text
