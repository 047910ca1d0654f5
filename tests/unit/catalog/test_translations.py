"""The catalog's translations (issue 16): the [zh_CN] tables, their checks, staleness, stamping.

The mechanics run on temporary copies of the records, with a throw-away translation of one
entry (tests/data/zh_CN/); that every real record is translated and stamped is a rule of
verification.consistency; ``translations status|stamp`` is tested in
tests/integration/cli/test_translations_command.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import DATA, append, load_data, translated_entries

from autograd_errors import catalog
from autograd_errors.catalog.translations import MissingTranslation
from autograd_errors.matcher.matching import find_entries

FIXTURE = DATA / "zh_CN" / "inplace-modified.toml"
REAL_PASTES = load_data("real-pastes.json")["pastes"]
#: A real paste (https://github.com/ziqi92/Modof/issues/5): a ReLU's output changed in place.
MODOF_PASTE = next(p["text"] for p in REAL_PASTES if p["source"].endswith("ziqi92/Modof/issues/5"))


@pytest.fixture
def entries(tmp_path: Path) -> Path:
    return translated_entries(tmp_path / "entries", FIXTURE)


def test_a_translation_gives_the_entry_in_chinese(entries):
    entry = catalog.load(str(entries), use_cache=False)["inplace-modified"]
    chinese = entry.localized("zh_CN")
    assert chinese.title == "为反向传播保存的张量被原地修改了"
    assert chinese.causes[0].id == "inplace-after-saving-op"  # ids stay English
    assert chinese.causes[0].fix.startswith("改成非原地写法")
    assert chinese.causes[0].sources == entry.causes[0].sources
    assert chinese.note("bare").startswith("在 https://github.com/pytorch/pytorch/pull/18523 之前")
    assert entry.localized("en").title == "A tensor saved for backward was modified in place"


def test_details_and_hints_are_filled_in_chinese_for_a_real_paste(entries):
    found = find_entries(MODOF_PASTE, catalog.load(str(entries), use_cache=False))
    assert [m.entry.id for m in found.matches] == ["inplace-modified"]
    details = found.matches[0].details("zh_CN")
    assert details[0] == (
        "[27, 32] 张量（torch.cuda.FloatTensor，ReluBackward0 的第 0 个输出）在 autograd 保存"
        "之后被原地修改了：它的版本是 1，autograd 期望的是 0。"
    )
    assert details[-1].startswith("ReLU 之后，常见的原因是 `nn.ReLU(inplace=True)`")


def test_an_untranslated_text_falls_back_to_english_only_when_allowed(entries):
    entry = catalog.load(str(entries), use_cache=False)["leaf-inplace"]
    with pytest.raises(MissingTranslation, match=r"leaf-inplace: title has no zh_CN translation"):
        _ = entry.localized("zh_CN").title
    assert entry.localized("zh_CN", fallback=True).title == entry.title


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('[zh_CN]\nsummary = "x"\n', "[zh_CN]: unknown key 'summary'"),
        ('[zh_CN.common_cause.no-such-cause]\ntext = "x"\n', "no common cause 'no-such-cause'"),
        ('[zh_CN.common_cause.manual-update]\nwhy = "x"\n', "unknown key 'why'"),
        ('[zh_CN.hint."op:Nothing"]\ntext = "x"\n', "the entry has no hint 'op:Nothing'"),
        ('[zh_CN.wording.no-such-variant]\nnote = "x"\n', "no wording with a note 'no-such"),
        ('[zh_CN]\ndetails = ["a"]\n', "details must be a list of 0 strings, as in English"),
        ('[zh_CN.source]\ntitel = "00000000"\n', "'titel' is not a text of this entry"),
    ],
)
def test_a_bad_translation_table_names_the_file(entries, table, problem):
    append(entries, "leaf-inplace", "\n" + table)
    with pytest.raises(catalog.CatalogError) as error:
        catalog.load(str(entries), use_cache=False)
    assert str(error.value).startswith("leaf-inplace.toml: [zh_CN")
    assert problem in str(error.value)


def test_braces_outside_the_details_are_text_not_placeholders(entries):
    # Only the details are format strings: code in a fix may change its braces' contents.
    cause = catalog.load(str(entries), use_cache=False)["detach-shares-storage"].causes[0]
    assert "{k: v.detach().clone()" in cause.fix
    record = entries / "detach-shares-storage.toml"
    english = record.read_text(encoding="utf-8").split("\n[zh_CN]", 1)[0]
    record.write_text(english, encoding="utf-8")  # its own translation replaced by this one:
    append(
        entries,
        "detach-shares-storage",
        f"\n[zh_CN.common_cause.{cause.id}]\n"
        'fix = "`best = copy.deepcopy(model.state_dict())`，或者 '
        '`{name: t.detach().clone() for name, t in model.state_dict().items()}`。"\n',
    )
    loaded = catalog.load(str(entries), use_cache=False)["detach-shares-storage"]
    assert loaded.localized("zh_CN", fallback=True).causes[0].fix.endswith(".items()}`。")


def test_a_translated_detail_must_keep_the_english_placeholders(entries):
    path = entries / "inplace-modified.toml"
    text = path.read_text(encoding="utf-8").replace("它的版本是 {version}", "它的版本是 {versoin}")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(catalog.CatalogError) as error:
        catalog.load(str(entries), use_cache=False)
    assert str(error.value).startswith("inplace-modified.toml: [zh_CN]: details.0: placeholders")
    assert "'versoin'" in str(error.value)


def test_the_cache_holds_the_translations(entries, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_ERRORS_CACHE_DIR", str(tmp_path / "cache"))
    first = catalog.load(str(entries))["inplace-modified"]
    assert list((tmp_path / "cache").iterdir())  # written
    cached = catalog.load(str(entries))["inplace-modified"]
    assert cached.localized("zh_CN").hints[0].text == first.localized("zh_CN").hints[0].text
    assert cached.localized("zh_CN").hints[0].text.startswith("ReLU 之后")


# The real catalog --------------------------------------------------------------------------------
