"""One file checked: parsed, every selected rule run on it, ``# noqa`` applied, the findings in
flake8's order. A file that does not parse gives one finding, :data:`~.registry.PARSE_ERROR`."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from autograd_errors.lint.facts import Facts
from autograd_errors.lint.registry import ENGLISH, PARSE_ERROR, Rule, active, rules, selected

#: flake8's inline suppression: a comment "noqa" (every code), or "noqa" followed by a colon
#: and codes or prefixes (AE101,AE2), in any case.
NOQA = re.compile(r"#\s*noqa(?::\s?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)


@dataclass(frozen=True, order=True)
class Finding:
    """A rule's finding: where (``col`` counts characters from 1, as flake8 prints it), which
    rule, its message, and the catalog entry it prevents."""

    path: str
    line: int
    col: int
    code: str
    message: str
    entry: str | None

    def text(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
            "entry": self.entry,
        }


def parse_error(
    path: str, error: SyntaxError | ValueError | RecursionError, language: str
) -> Finding:
    """The one finding of a file that cannot be read as Python."""
    if isinstance(error, SyntaxError):
        line, col = error.lineno or 1, error.offset or 1
        reason = f"{type(error).__name__}: {error.msg}"
    elif isinstance(error, RecursionError):
        line, col, reason = 1, 1, "nested too deeply to parse"
    else:
        line, col, reason = 1, 1, str(error)
    parse = rules()[PARSE_ERROR]
    return Finding(
        path, line, max(col, 1), PARSE_ERROR, parse.message({"error": reason}, language), None
    )


def run_rules(
    tree: ast.Module,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    registry: dict[str, Rule] | None = None,
) -> list[tuple[Rule, int, int, dict[str, str]]]:
    """``(rule, line, col_offset, fields)`` of every selected rule's hits, ``col_offset`` as
    :mod:`ast` counts it (UTF-8 bytes from 0)."""
    facts = Facts(tree)
    hits = []
    seen = set()
    for item in active(registry):
        if not selected(item.code, select, ignore):
            continue
        assert item.check is not None
        for hit in item.check(facts):
            line = getattr(hit.node, "lineno", 1)
            col = getattr(hit.node, "col_offset", 0)
            if (item.code, line, col) not in seen:
                seen.add((item.code, line, col))
                hits.append((item, line, col, hit.fields))
    return hits


def check_source(
    source: bytes,
    path: str,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    language: str = ENGLISH,
) -> list[Finding]:
    """The findings of one file's bytes (its encoding declared as Python reads it)."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        if not selected(PARSE_ERROR, select, ignore):
            return []
        if isinstance(error, MemoryError):
            error = RecursionError()
        return [parse_error(path, error, language)]
    try:
        hits = run_rules(tree, select, ignore)
    except RecursionError as error:  # a chain of thousands of attributes
        return [parse_error(path, error, language)] if selected(PARSE_ERROR, select, ignore) else []
    if not hits:
        return []
    lines = source.splitlines()
    encoding = _encoding(source)
    suppressed = suppressions(source) if b"noqa" in source.lower() else {}
    findings = []
    for item, line, col, fields in hits:
        codes = suppressed.get(line, ())
        if EVERY in codes or any(item.code.startswith(code) for code in codes):
            continue
        text = lines[line - 1] if 0 < line <= len(lines) else b""
        column = len(text[:col].decode(encoding, "replace")) + 1
        message = item.message(fields, language)
        findings.append(Finding(path, line, column, item.code, message, item.entry))
    return sorted(findings)


def _encoding(source: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return "utf-8"


#: What a bare ``noqa`` comment suppresses: every code.
EVERY = "*"


def _noqa(comment: str) -> tuple[str, ...]:
    """The codes a comment suppresses: none, :data:`EVERY`, or the codes it lists."""
    match = NOQA.search(comment)
    if match is None:
        return ()
    codes = match.group("codes")
    if codes is None:
        return (EVERY,)
    return tuple(code.upper() for code in re.split(r"[,\s]+", codes) if code)


def suppressions(source: bytes) -> dict[int, tuple[str, ...]]:
    """Line -> the codes (or prefixes) its ``# noqa`` suppresses, :data:`EVERY` for a bare one.
    As in flake8, a comment applies to every line of the logical line it ends (a call spread
    over several lines)."""
    found: dict[int, tuple[str, ...]] = {}

    def add(rows: range, codes: tuple[str, ...]) -> None:
        for row in rows:
            found[row] = (*found.get(row, ()), *codes)

    try:
        start: int | None = None
        pending: list[tuple[str, ...]] = []
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            if token.type in (tokenize.ENCODING, tokenize.INDENT, tokenize.DEDENT):
                continue
            if token.type == tokenize.COMMENT:
                codes = _noqa(token.string)
                if codes and start is None:
                    add(range(token.start[0], token.start[0] + 1), codes)
                elif codes:
                    pending.append(codes)
                continue
            if token.type == tokenize.NL and start is None:
                continue
            if start is None:
                start = token.start[0]
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                for codes in pending:
                    add(range(start, token.end[0] + 1), codes)
                start, pending = None, []
    except (tokenize.TokenError, SyntaxError):
        for row, text in enumerate(source.decode("utf-8", "replace").splitlines(), 1):
            codes = _noqa(text)
            if codes:
                add(range(row, row + 1), codes)
    return found
