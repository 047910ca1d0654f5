"""The rule registry, and its parity with everything that names a rule, stage by stage (as
rust's tidy checks its error codes):

1. every code is ``AE`` and three digits, in the range of the family that declares it
   (``docs/contributing.md``): AE0 the checker, AE1 ``false_fixes``, AE2 ``inplace``, AE3
   ``graphs``, AE4 ``modules``, AE5 ``training``, AE9 ``opinionated`` and off by default;
2. every rule names an entry of the catalog, and has its Chinese;
3. every rule has an eval file, and every eval file is a rule's (exemption: AE000, below);
4. every rule has a page ``docs/lint/<code>.md`` made by its directive, every page there is a
   rule's, and ``docs/lint.md`` lists them all;
5. every rule's flagged example fires exactly on its marked lines, its fine example nowhere.
"""

import re
import shutil

import pytest
from lint_cases import EVAL_FILES, REPO, expectations

from autograd_errors.lint import registry
from autograd_errors.lint.checker import check_source
from autograd_errors.lint.registry import CHINESE, RegistryError, rules, selected

RULES = rules()
DOCS = REPO / "docs"
FAMILIES = {
    "AE1": "false_fixes",
    "AE2": "inplace",
    "AE3": "graphs",
    "AE4": "modules",
    "AE5": "training",
    "AE9": "opinionated",
}
#: Rules without an eval file, and why.
NO_EVAL_FILE = {
    "AE000": "a file that does not parse would break ruff's run over tests/; "
    "tests/integration/lint/test_command.py writes such files at test time",
}


def test_codes_are_in_the_range_of_their_family():
    for code, rule in RULES.items():
        assert re.fullmatch(r"AE\d{3}", code)
        if rule.check is None:
            assert code == registry.PARSE_ERROR or rule.retired, code
            continue
        module = rule.check.__module__.rsplit(".", 1)[-1]
        assert FAMILIES[code[:3]] == module, f"{code} is declared in rules/{module}.py"


def test_only_the_opinionated_rules_are_off_by_default():
    for code, rule in RULES.items():
        assert rule.default == (not code.startswith("AE9")), code
        assert selected(code, None) == rule.default


def test_every_rule_names_an_entry_of_the_catalog(packaged_catalog):
    for code, rule in RULES.items():
        if code == registry.PARSE_ERROR:
            assert rule.entry is None
            continue
        assert rule.entry in packaged_catalog, f"{code}: no entry {rule.entry!r}"


def test_every_rule_is_translated():
    for code, rule in RULES.items():
        assert CHINESE in rule.texts, code
        chinese = rule.text(CHINESE)
        assert len(chinese.silent) == len(rule.text().silent), code
        assert chinese.message != rule.text().message


def test_every_rule_has_an_eval_file_and_every_eval_file_a_rule():
    files = {path.stem.upper() for path in EVAL_FILES.glob("*.py")}
    assert files == set(RULES) - set(NO_EVAL_FILE)
    for code in files:
        text = (EVAL_FILES / f"{code.lower()}.py").read_text(encoding="utf-8")
        assert {found for _, found in expectations(text)} == {code}, code


def test_every_rule_has_a_page_and_every_page_a_rule():
    pages = {path.stem.upper(): path for path in (DOCS / "lint").glob("*.md")}
    assert set(pages) == set(RULES)
    for code, path in pages.items():
        text = path.read_text(encoding="utf-8")
        assert f".. autograd-lint-rule:: {code}" in text, path
        assert text.startswith(f"# {code}: {RULES[code].text().title}\n"), path
    toctree = (DOCS / "lint.md").read_text(encoding="utf-8")
    for code in RULES:
        assert f"\nlint/{code.lower()}\n" in toctree, code


@pytest.mark.parametrize("code", sorted(set(RULES) - {registry.PARSE_ERROR}))
def test_the_examples_of_the_rule_page_fire_where_marked(code):
    rule = RULES[code]
    select = ["AE", code[:3]] if code.startswith("AE9") else None
    flagged = rule.flagged.strip("\n")
    marked = expectations(flagged)
    assert marked
    assert {found for _, found in marked} == {code}
    findings = check_source(flagged.encode(), "flagged.py", select=select)
    assert {(f.line, f.code) for f in findings} == marked
    fine = rule.fine.strip("\n")
    assert fine
    assert not expectations(fine)
    assert check_source(fine.encode(), "fine.py", select=select) == []


def test_messages_are_one_line_and_say_what_to_write_instead():
    for code, rule in RULES.items():
        for language in rule.texts:
            message = rule.text(language).message
            assert "\n" not in message, code
            assert len(message) < 400, code
    for code, rule in RULES.items():
        if code != registry.PARSE_ERROR:
            assert ";" in rule.text().message, f"{code}: what goes wrong; what to write instead"


# The registry refuses data and checks that disagree -------------------------------------------


def broken(tmp_path, edit):
    path = tmp_path / "rules.toml"
    shutil.copy(registry.DATA, path)
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return path


def test_a_code_without_a_check_is_refused(tmp_path):
    path = broken(tmp_path, lambda text: text.replace("[AE101]", "[AE199]", 1))
    with pytest.raises(RegistryError, match=r"AE199.*no check|AE101"):
        registry.load(str(path))


def test_a_check_without_data_is_refused(tmp_path):
    def drop(text):
        start = text.index("[AE503]")
        return text[:start] + text[text.index("[AE901]") :]

    with pytest.raises(RegistryError, match="AE503"):
        registry.load(str(broken(tmp_path, drop)))


def test_a_translation_with_other_placeholders_is_refused(tmp_path):
    path = broken(tmp_path, lambda text: text.replace("只消除了报错", "{other} 只消除了报错", 1))
    with pytest.raises(RegistryError, match="placeholders"):
        registry.load(str(path))


def test_an_unknown_key_is_refused(tmp_path):
    path = broken(tmp_path, lambda text: text.replace("[AE101]\n", "[AE101]\ncolour = 1\n", 1))
    with pytest.raises(RegistryError, match=r"AE101.*colour"):
        registry.load(str(path))


# Selecting codes as flake8 does --------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "select", "ignore", "reported"),
    [
        ("AE101", None, [], True),
        ("AE101", ["AE2"], [], False),
        ("AE101", ["AE"], ["AE1"], False),
        ("AE101", ["AE101"], ["AE1"], True),  # the longer prefix wins
        ("AE101", ["AE1"], ["AE1"], False),  # ignore wins a tie
        ("AE901", None, [], False),
        ("AE901", ["AE"], [], False),  # opinionated: AE is not enough
        ("AE901", ["AE9"], [], True),
        ("AE901", ["AE901"], [], True),
        ("AE000", None, ["AE0"], False),
    ],
)
def test_select_and_ignore(code, select, ignore, reported):
    assert selected(code, select, ignore) is reported
