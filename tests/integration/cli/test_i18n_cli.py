"""The command in Chinese (issue 16): --lang, the locale variables, Chinese text wrapped by
columns, JSON with English keys, links to the zh_CN site; and the UI strings.

The commands run on a copy of the package whose inplace-modified record carries the throw-away
translation of tests/data/zh_CN (the real translations are the translators'), on real pastes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import DATA, REPO, load_data, use_fixture_translation

from autograd_errors.catalog import load as load_catalog

REAL_PASTES = load_data("real-pastes.json")["pastes"]
#: https://github.com/ziqi92/Modof/issues/5, verbatim: a ReLU's output changed in place.
MODOF_PASTE = next(p["text"] for p in REAL_PASTES if p["source"].endswith("ziqi92/Modof/issues/5"))
ZH_PAGE = (
    "https://autograd-errors.readthedocs.io/en/latest/zh_CN/errors/inplace/inplace-modified.html"
)
TITLE = "为反向传播保存的张量被原地修改了"


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package, with the throw-away translation of inplace-modified."""
    root = tmp_path_factory.mktemp("package")
    shutil.copytree(
        REPO / "src" / "autograd_errors",
        root / "autograd_errors",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    record = root / "autograd_errors" / "entries" / "inplace-modified.toml"
    use_fixture_translation(record, DATA / "zh_CN" / "inplace-modified.toml")
    return root


def run(
    package: Path, cli_env: dict[str, str], *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in cli_env.items()
        if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE", "COLUMNS")
    }
    return subprocess.run(
        [sys.executable, "-m", "autograd_errors", *args],
        capture_output=True,
        encoding="utf-8",
        env={**clean, "PYTHONPATH": str(package), "COLUMNS": "80", **env},
        timeout=60,
        check=False,
    )


def squeezed(text: str) -> str:
    """``text`` without whitespace: what wrapping cannot change."""
    return "".join(text.split())


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_explain_lang_zh_answers_a_real_paste_in_chinese(package, cli_env):
    result = run(package, cli_env, "explain", "--lang", "zh", MODOF_PASTE)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{TITLE}  (inplace-modified)"
    assert all(columns(line) <= 78 for line in lines if not line.strip().startswith("详见")), lines
    flat = squeezed(result.stdout)
    assert (
        squeezed(
            "[27, 32] 张量（torch.cuda.FloatTensor，ReluBackward0 的第 0 个输出）"
            "在 autograd 保存之后被原地修改了：它的版本是 1，autograd 期望的是 0。"
        )
        in flat
    )
    assert squeezed("ReLU 之后，常见的原因是 `nn.ReLU(inplace=True)`") in flat  # op=Relu's hint
    assert "最常见的原因：对某个操作保存的张量做了原地操作" in flat
    assert "修复：改成非原地写法" in flat
    assert f"  详见：{ZH_PAGE}" in lines
    assert lines[-1] == "  加上 --verbose 可查看所有常见原因、torch 报错的原因以及匹配到的措辞。"


def test_chinese_lines_break_between_characters_and_not_before_punctuation(package, cli_env):
    result = run(package, cli_env, "explain", "--verbose", "--lang", "zh", MODOF_PASTE)
    lines = result.stdout.splitlines()
    assert "  常见原因（最常见的在前）" in lines
    assert "  原因" in lines
    assert "  修复" in lines
    why = lines[lines.index("  原因") + 1 : lines.index("  修复")]
    assert len(why) > 2
    assert all(line.startswith("    ") for line in why)
    assert all(columns(line) <= 78 for line in why), why
    assert max(columns(line) for line in why) >= 74  # filled, not cut at the first space
    assert not any(line.strip()[0] in "，。、；：）" for line in why), why


def test_the_locale_variables_choose_the_language_in_posix_order(package, cli_env):
    def title(**env: str) -> str:
        result = run(package, cli_env, "show", "inplace-modified", **env)
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()[0].split("  ")[0]

    english = "A tensor saved for backward was modified in place"
    assert title(LANG="zh_CN.UTF-8") == TITLE
    assert title(LANG="zh_SG.UTF-8") == TITLE
    assert title(LANG="en_US.UTF-8") == english
    assert title() == english
    assert title(LC_MESSAGES="zh_CN.UTF-8", LANG="en_US.UTF-8") == TITLE
    assert title(LC_ALL="C", LC_MESSAGES="zh_CN.UTF-8") == english
    assert title(LC_ALL="zh_CN.UTF-8", LANG="C") == TITLE
    assert title(LC_ALL="", LANG="zh_CN.UTF-8") == TITLE  # empty means unset
    # --lang wins over the environment.
    result = run(package, cli_env, "show", "--lang", "en", "inplace-modified", LANG="zh_CN.UTF-8")
    assert result.stdout.startswith(english)
    result = run(package, cli_env, "show", "--lang=zh_CN", "inplace-modified", LANG="C")
    assert result.stdout.startswith(TITLE)


def test_a_bad_lang_value_is_one_line_and_exit_2(package, cli_env):
    for args in (["--lang", "fr"], ["--lang=de"], ["--lang"]):
        result = run(package, cli_env, "explain", *args, MODOF_PASTE)
        assert result.returncode == 2
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1, result.stderr
    assert run(package, cli_env, "list", "--lang", "fr").stderr == (
        "autograd-errors: --lang must be en or zh, not 'fr'\n"
    )


def test_json_keeps_ids_and_keys_in_english_with_chinese_text(package, cli_env):
    result = run(package, cli_env, "explain", "--json", "--lang", "zh", MODOF_PASTE)
    english = run(package, cli_env, "explain", "--json", MODOF_PASTE)
    zh, en = json.loads(result.stdout), json.loads(english.stdout)
    assert zh.keys() == en.keys()
    match, match_en = zh["matches"][0], en["matches"][0]
    assert match.keys() == match_en.keys()
    assert (match["id"], match["variant"], match["fields"]) == (
        match_en["id"],
        match_en["variant"],
        match_en["fields"],
    )
    assert match["title"] == TITLE
    assert match["url"] == ZH_PAGE
    assert match["path"] == match_en["path"] == "errors/inplace/inplace-modified.html"
    assert [c["id"] for c in match["causes"]] == [c["id"] for c in match_en["causes"]]
    causes = {cause["id"]: cause for cause in match["causes"]}
    assert (
        causes["loop-writes-buffer"]["fix"] == "把每一步收集到列表里，最后用 `torch.stack` 拼起来。"
    )
    assert match["in_your_paste"][-1].startswith("ReLU 之后")
    shown = run(package, cli_env, "show", "--json", "--lang", "zh", "inplace-modified")
    bare = json.loads(shown.stdout)["wordings"][-1]
    assert bare["note"].startswith("在 https://github.com/pytorch/pytorch/pull/18523")
    assert bare["releases"] == "torch 0.4.0 至 1.0.1"


def test_list_lang_zh_uses_the_chinese_titles_where_they_exist(package, cli_env):
    result = run(package, cli_env, "list", "--lang", "zh")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert rows["inplace-modified"].endswith(f"RuntimeError  {TITLE}".replace("  ", " " * 9))
    pitfall = rows["grad-is-none"]
    assert "  （陷阱）  " in pitfall  # a pitfall, in Chinese
    pitfall_title = (
        load_catalog(str(package / "autograd_errors" / "entries"), use_cache=False)["grad-is-none"]
        .localized("zh_CN")
        .title
    )
    assert pitfall.endswith(pitfall_title)
    # The titles line up on screen: the wide characters of （陷阱） count two columns each.
    title_column = columns(pitfall[: -len(pitfall_title)])
    assert title_column == columns(rows["inplace-modified"][: -len(TITLE)])
