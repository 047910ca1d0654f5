"""The catalog's records that are not entries (the errors that are not autograd's, the titles of
PyTorch's documentation pages), and a wording's ``context`` key."""

from __future__ import annotations

import pytest

from autograd_errors import catalog
from autograd_errors.catalog import schema
from autograd_errors.catalog.schema import CatalogError
from autograd_errors.rendering.urls import docs_label

CATALOG = catalog.load(use_cache=False)


def test_the_non_autograd_kinds_load_with_their_phrases_hints_and_pages():
    names = [kind.name for kind in CATALOG.not_autograd]
    assert "cuda-out-of-memory" in names
    assert len(names) == len(set(names))
    for kind in CATALOG.not_autograd:
        assert kind.phrases
        assert kind.url.startswith("https://pytorch.org/")
        assert kind.hint_in("en") == kind.hint
        assert kind.hint_in("fr") == kind.hint  # no such translation: English


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"name": "x", "phrases": [], "hint": "h", "url": "u"}, "phrases must be a list of lower"),
        ({"name": "x", "phrases": ["Out Of Memory"], "hint": "h", "url": "u"}, "lower-case"),
        ({"name": "x", "phrases": ["a"], "hint": "h"}, "missing url"),
        ({"name": "x", "phrases": ["a"], "hint": "h", "url": "u", "zh_CN": {"note": "n"}}, "hint"),
    ],
)
def test_a_broken_kind_is_refused_with_its_place(table, problem):
    with pytest.raises(CatalogError, match=r"^not-autograd\.toml: kind 1") as caught:
        schema.not_autograd_kinds({"kind": [table]})
    assert problem in str(caught.value)


def test_two_kinds_of_one_name_are_refused():
    kind = {"name": "x", "phrases": ["a"], "hint": "h", "url": "u"}
    with pytest.raises(CatalogError, match="kind 2: the name 'x' is taken"):
        schema.not_autograd_kinds({"kind": [kind, kind]})


def test_the_documentation_pages_name_the_links_of_the_entries():
    assert CATALOG.docs_pages["notes/autograd"] == "Autograd mechanics"
    url = "https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors"
    assert docs_label(url, CATALOG.docs_pages) == "Autograd mechanics: Saved tensors"
    assert docs_label("https://docs.pytorch.org/docs/stable/notes/cuda.html", {}) == "Cuda"
    with pytest.raises(CatalogError, match="every title must be a string"):
        schema.docs_pages({"notes/autograd": 1})


def test_context_wordings_are_a_key_of_their_record():
    context = sorted(
        (entry.id, wording.variant)
        for entry in CATALOG
        for wording in entry.wordings
        if wording.context
    )
    assert context == [
        ("anomaly-nan", "enabled-warning"),
        ("anomaly-nan", "error-detected"),
        ("anomaly-nan", "forward-traceback"),
        ("anomaly-nan", "no-forward-information"),
    ]


#: The smallest record of an error entry, its wording's table left open for more keys.
ERROR_ENTRY = (
    'title = "T"\nexception = "RuntimeError"\nsection = "s"\ncause = "C"\nfix = "F"\n'
    '[[wording]]\nvariant = "current"\nmessage = "a message long enough"\n'
    'source = "https://github.com/x"\n'
)


def test_a_context_key_must_be_true_or_false(tmp_path):
    record = tmp_path / "some-entry.toml"
    record.write_text(ERROR_ENTRY + 'context = "yes"\n', encoding="utf-8")
    with pytest.raises(CatalogError, match="context must be a bool"):
        catalog.load(str(tmp_path), use_cache=False)


PITFALL = 'kind = "pitfall"\ntitle = "T"\nsection = "pitfalls"\ncause = "C"\nfix = "F"\n'


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('program = "p"\nsource = "https://x.org/a"\n', "give its words .contains. or a pattern"),
        (
            'program = "p"\nsource = "https://x.org/a"\ncontains = ["words here"]\n'
            'pattern = "loss"\n',
            "give its words .contains. or a pattern",
        ),
        ('program = "p"\nsource = "x.org/a"\ncontains = ["words here"]\n', "source must be"),
        ('program = "p"\nsource = "https://x.org/a"\npattern = "loss(("\n', "pattern: "),
        ('source = "https://x.org/a"\ncontains = ["words here"]\n', "missing program"),
        (
            'program = "p"\nsource = "https://x.org/a"\ncontains = ["ab"]\n',
            "contains must be a list",
        ),
    ],
)
def test_a_broken_symptom_message_is_refused_with_its_place(tmp_path, table, problem):
    (tmp_path / "some-pitfall.toml").write_text(
        PITFALL + "[[symptom_message]]\n" + table, encoding="utf-8"
    )
    with pytest.raises(CatalogError, match=rf"^some-pitfall\.toml: symptom_message 1: {problem}"):
        catalog.load(str(tmp_path), use_cache=False)


def test_only_a_pitfall_has_other_programs_words(tmp_path):
    (tmp_path / "some-entry.toml").write_text(
        ERROR_ENTRY + '[[symptom_message]]\nprogram = "p"\nsource = "https://x.org/a"\n'
        'contains = ["words here"]\n',
        encoding="utf-8",
    )
    with pytest.raises(CatalogError, match="only a pitfall has another program's words"):
        catalog.load(str(tmp_path), use_cache=False)
