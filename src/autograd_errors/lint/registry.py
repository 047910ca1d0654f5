"""The one rule registry: the rules' data (``rules.toml``: code, catalog entry, title, message,
why, when it stays silent, examples, in English and Chinese) joined to their checks.

A check declares the code it emits with :func:`.declare.rule`; :func:`rules` loads the data,
imports the rule families (which registers their checks) and refuses a code without a check, a
check without data, a key it does not know, or a message whose ``{placeholders}`` differ
between languages. Codes are ``AE`` and three digits, in the ranges ``docs/contributing.md``
writes down (``AE0`` the checker itself, ``AE1``-``AE8`` families, ``AE9`` opinionated rules,
off by default), which ``tests/unit/lint/test_registry.py`` checks against the families' modules.
Codes are never reused: a rule that is removed keeps its table with ``retired = "why"``, and
no check.
"""

from __future__ import annotations

import os
import re
import string
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from autograd_errors.lint.declare import Check, checks

ENGLISH, CHINESE = "en", "zh_CN"
LANGUAGES = (ENGLISH, CHINESE)
DATA = os.path.join(os.path.dirname(__file__), "rules.toml")
CODE = re.compile(r"AE[0-9]{3}")
PREFIX = re.compile(r"AE[0-9]{0,3}")
#: The checker's own code: a file that could not be parsed (or decoded).
PARSE_ERROR = "AE000"
#: Codes from this prefix on are opinionated: reported only when selected explicitly.
OPINIONATED = "AE9"

_TEXT_KEYS = ("title", "message", "why", "silent")
_KEYS = {"name", "entry", "flagged", "fine", "retired", "zh_CN", *_TEXT_KEYS}


class RegistryError(Exception):
    """The rules' data and their checks disagree: a defect of the package, not of the input."""


@dataclass(frozen=True)
class Text:
    title: str
    message: str
    why: str
    silent: tuple[str, ...]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    entry: str | None
    texts: dict[str, Text]
    flagged: str
    fine: str
    check: Check | None
    retired: str | None = None

    @property
    def default(self) -> bool:
        """Reported unless ignored: every rule but the opinionated ones."""
        return not self.code.startswith(OPINIONATED)

    def text(self, language: str = ENGLISH) -> Text:
        return self.texts.get(language) or self.texts[ENGLISH]

    def message(self, fields: dict[str, str], language: str = ENGLISH) -> str:
        return self.text(language).message.format(**fields)

    @property
    def page(self) -> str:
        """The rule's page on the site, from its root: ``lint/ae101``."""
        return f"lint/{self.code.lower()}"


def _load_toml(path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _text(code: str, table: dict[str, Any], language: str) -> Text:
    missing = [key for key in _TEXT_KEYS if key not in table]
    if missing:
        raise RegistryError(f"rules.toml [{code}] ({language}): no {', '.join(missing)}")
    silent = table["silent"]
    if not isinstance(silent, list) or not all(isinstance(item, str) for item in silent):
        raise RegistryError(f"rules.toml [{code}]: silent must be a list of sentences")
    return Text(
        " ".join(table["title"].split()),
        " ".join(table["message"].split()),
        " ".join(table["why"].split()),
        tuple(" ".join(item.split()) for item in silent),
    )


def load(path: str = DATA) -> dict[str, Rule]:
    """Every rule, by code, in code order."""
    from autograd_errors.lint import rules as _families  # noqa: F401 - registers the checks

    data = _load_toml(path)
    loaded: dict[str, Rule] = {}
    for code in sorted(data):
        table = data[code]
        if not CODE.fullmatch(code):
            raise RegistryError(f"rules.toml: {code!r} is not a code (AE and three digits)")
        unknown = set(table) - _KEYS
        if unknown:
            raise RegistryError(f"rules.toml [{code}]: unknown keys {sorted(unknown)}")
        texts = {ENGLISH: _text(code, table, ENGLISH)}
        if "zh_CN" in table:
            texts[CHINESE] = _text(code, table["zh_CN"], CHINESE)
            english, chinese = texts[ENGLISH].message, texts[CHINESE].message
            if _placeholders(english) != _placeholders(chinese):
                raise RegistryError(f"rules.toml [{code}]: the messages' placeholders differ")
        check = checks.get(code)
        retired = table.get("retired")
        if check is None and code != PARSE_ERROR and retired is None:
            raise RegistryError(f"rules.toml [{code}]: no check declares this code")
        if check is not None and retired is not None:
            raise RegistryError(f"rules.toml [{code}]: a retired code still has a check")
        loaded[code] = Rule(
            code=code,
            name=table.get("name", ""),
            entry=table.get("entry"),
            texts=texts,
            flagged=table.get("flagged", ""),
            fine=table.get("fine", ""),
            check=check,
            retired=retired,
        )
    orphans = sorted(set(checks) - set(loaded))
    if orphans:
        raise RegistryError(f"checks declare codes rules.toml lacks: {', '.join(orphans)}")
    return loaded


_rules: dict[str, Rule] | None = None


def rules() -> dict[str, Rule]:
    """The registry, loaded once per process."""
    global _rules
    if _rules is None:
        _rules = load()
    return _rules


def active(registry: dict[str, Rule] | None = None) -> Iterator[Rule]:
    """The rules that have a check (not retired, not the parse error)."""
    for item in (registry or rules()).values():
        if item.check is not None:
            yield item


def _longest(code: str, prefixes: Sequence[str]) -> int:
    return max((len(prefix) for prefix in prefixes if code.startswith(prefix)), default=0)


def selected(code: str, select: Sequence[str] | None, ignore: Sequence[str] = ()) -> bool:
    """Whether ``code`` is reported, as flake8 decides: the longest matching prefix of
    ``select`` and of ``ignore`` wins, ``ignore`` on a tie. Without ``select``, every rule but
    the opinionated ones; an opinionated rule needs a prefix of at least ``AE9``."""
    if select is None:
        select = ["AE"]
        if code.startswith(OPINIONATED):
            return False
    chosen = _longest(code, select)
    if code.startswith(OPINIONATED) and chosen < len(OPINIONATED):
        return False
    return chosen > 0 and chosen > _longest(code, ignore)


def parse_codes(value: str) -> str:
    """``--select``/``--ignore``'s value checked: comma-separated rule codes or prefixes,
    upper-cased and joined again; a ValueError says what is wrong."""
    given = [code.strip().upper() for code in value.split(",") if code.strip()]
    if not given:
        raise ValueError("needs codes, such as AE101 or AE1")
    known = rules()
    for code in given:
        if not PREFIX.fullmatch(code) or not any(c.startswith(code) for c in known):
            raise ValueError(f"{code!r} is no rule code or prefix (codes: AE000 to AE9xx)")
    return ",".join(given)
