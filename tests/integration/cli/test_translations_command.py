"""``python -m autograd_errors translations status|stamp``, run as a subprocess on copies of the
records with a throw-away translation of one entry (tests/data/zh_CN/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import DATA, append, translated_entries

from autograd_errors.catalog.translations import source_hash

FIXTURE = DATA / "zh_CN" / "inplace-modified.toml"


@pytest.fixture
def entries(tmp_path: Path) -> Path:
    return translated_entries(tmp_path / "entries", FIXTURE)


def translations_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograd_errors", "translations", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_status_lists_missing_and_unstamped_translations(entries):
    result = translations_cli("status", "inplace-modified", "leaf-inplace", "--entries", entries)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert "zh_CN inplace-modified: stale title" in lines  # translated, never stamped
    assert "zh_CN leaf-inplace: missing title" in lines
    assert "zh_CN leaf-inplace: missing common_cause.manual-update.fix" in lines
    assert lines[-1] == f"{len(lines) - 1} texts to translate or to review, then stamp"


def test_changing_the_english_makes_the_translation_stale_and_stamping_fixes_it(entries):
    record = entries / "inplace-modified.toml"
    before_stamp = record.read_text(encoding="utf-8")
    stamp = translations_cli("stamp", "inplace-modified", "--entries", entries)
    assert (stamp.returncode, stamp.stdout) == (0, "stamped 1 of 1 entries\n"), stamp.stderr
    stamped = record.read_text(encoding="utf-8")
    assert stamped.startswith(before_stamp)  # only the [zh_CN.source] table is added
    table = stamped[len(before_stamp) :]
    assert table.startswith("\n[zh_CN.source]\n")
    title_hash = source_hash("A tensor saved for backward was modified in place")
    assert f'"title" = "{title_hash}"' in table
    status = translations_cli("status", "inplace-modified", "--entries", entries)
    assert (status.returncode, status.stdout) == (
        0,
        "1 entries: every translation is up to date\n",
    )

    # An English text changes: its translation, and only it, is stale.
    record.write_text(
        stamped.replace("by an inplace operation", "by an in-place operation").replace(
            "write `out = out + x`.", "write `out = out + x` instead."
        ),
        encoding="utf-8",
    )
    status = translations_cli("status", "inplace-modified", "--entries", entries)
    assert status.returncode == 1
    assert status.stdout.splitlines() == [
        "zh_CN inplace-modified: stale hint.op:Relu",
        "1 texts to translate or to review, then stamp",
    ]
    # Reflowing an English text (whitespace only) does not make it stale.
    reflowed = record.read_text(encoding="utf-8").replace(
        "for the backward pass: `sigmoid` and `relu` save their output, `mul`\nits",
        "for the backward pass:\n`sigmoid` and `relu` save their output, `mul` its",
    )
    assert reflowed != record.read_text(encoding="utf-8")
    record.write_text(reflowed, encoding="utf-8")
    assert translations_cli("status", "inplace-modified", "--entries", entries).stdout.splitlines()[
        0
    ] == ("zh_CN inplace-modified: stale hint.op:Relu")

    # Stamping again rewrites the table in place, and nothing else.
    before = record.read_text(encoding="utf-8")
    assert translations_cli("stamp", "--entries", entries).returncode == 0
    after = record.read_text(encoding="utf-8")
    head = before[: before.index("[zh_CN.source]")]
    assert after.startswith(head)
    assert after.count("[zh_CN.source]") == 1
    status = translations_cli("status", "inplace-modified", "--entries", entries)
    assert status.returncode == 0, status.stdout


def test_the_source_table_must_come_last(entries):
    assert translations_cli("stamp", "inplace-modified", "--entries", entries).returncode == 0
    append(entries, "inplace-modified", '\n[zh_CN.wording.bare]\nnote = "x"\n')
    result = translations_cli("stamp", "inplace-modified", "--entries", entries)
    assert result.returncode == 2
    assert result.stderr.startswith("autograd-errors translations: inplace-modified.toml:")


def test_translations_bad_usage_is_one_line(entries):
    result = translations_cli("stamp", "no-such-entry", "--entries", entries)
    assert (result.returncode, result.stderr) == (
        2,
        "autograd-errors: translations: no entry 'no-such-entry'\n",
    )
    result = translations_cli("publish", "--entries", entries)
    assert result.returncode == 2
    assert result.stderr.startswith("autograd-errors: translations: unknown action 'publish'")
