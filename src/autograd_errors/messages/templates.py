"""Message templates: literal text with named placeholders, matched against a paste.

A template is written the way torch formats the message, with ``{name}`` or ``{name:kind}``
where torch inserts a value (``{{`` and ``}}`` stand for literal braces)::

    which is output {output_index} of {node}, is at version {version}; expected version
    {expected_version:version} instead.

Matching happens on the *skeleton* of a paste: its text with every whitespace character removed
(see :mod:`.normalize`). Whitespace-free matching is what makes a message match
whether a terminal wrapped it at a space, in the middle of a word, or not at all.

Every placeholder kind is a bounded set of characters, and the character that follows a
placeholder in its template is never in that set. So a placeholder is matched greedily, without
backtracking, and each attempt costs at most the template's length: matching is linear in the
paste. No regular expression is involved (importing :mod:`re` alone would double the start-up
time of ``explain``).
"""

from __future__ import annotations

import itertools

from autograd_errors.messages.normalize import ANONYMOUS_NAMESPACE, FINAL_STOPS, is_word_char

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from autograd_errors.messages.normalize import Skeleton

#: Fewest literal characters (whitespace excluded) a truncated paste must match to count.
MIN_TRUNCATED_CHARS = 30
#: How many places where a message may start are examined, per template, from the paste's end.
MAX_OCCURRENCES = 1000


def folded(literal: str) -> str | None:
    """A message's first word as users retype it, its capital lowered ("function
    NormBackward1 returned an invalid gradient ..."), or None: only a capitalised word
    (ASCII), not an acronym ("CUDA error", "DDP ...") nor a word after a placeholder."""
    if len(literal) > 1 and "A" <= literal[0] <= "Z" and "a" <= literal[1] <= "z":
        return literal[0].lower() + literal[1:]
    return None


def anchors(anchor: str) -> list[str]:
    """What a paste of the message holds: its ``anchor``, and the anchor :func:`folded`."""
    lowered = folded(anchor)
    return [anchor] if lowered is None else [anchor, lowered]


def anchored(anchor: str, text: str) -> bool:
    """Whether ``text`` holds a message's ``anchor``, or the anchor :func:`folded`."""
    return any(found in text for found in anchors(anchor))


#: Length of the literal prefix searched for first; at most MIN_TRUNCATED_CHARS, so that a paste
#: cut off early is still found.
ANCHOR_CHARS = 24

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_WORD = _LETTERS + _DIGITS + "_"


class TemplateError(ValueError):
    """A template that cannot be matched deterministically, or names an unknown kind."""


def _shape(raw: str) -> str:
    return "[" + ", ".join(part for part in raw[1:-1].split(",") if part) + "]"


def _identity(raw: str) -> str:
    return raw


def _dotted(raw: str) -> str:
    # A trailing full stop ends the sentence; it is not part of a type name.
    return raw.rstrip(".") or raw


def _node(raw: str) -> str:
    """A node's name as torch printed it: an unnamed namespace with its space again."""
    return raw.replace(ANONYMOUS_NAMESPACE[1], ANONYMOUS_NAMESPACE[0])


#: How a captured value is written back: the skeleton lost its spaces (``[64,128]``).
CANONICAL_FORMS: dict[str, Callable[[str], str]] = {
    "identity": _identity,
    "dotted": _dotted,
    "shape": _shape,
    "node": _node,
}


class Kind:
    """What one kind of placeholder can hold: up to ``max_len`` characters of ``charset``.

    A *delimited* kind is ``[`` + its characters + ``]`` (a shape such as ``[64, 128]``).
    """

    __slots__ = ("canonical", "charset", "delimited", "max_len", "name")

    def __init__(
        self,
        name: str,
        charset: str,
        max_len: int,
        canonical: str = "identity",
        delimited: bool = False,
    ) -> None:
        self.name = name
        self.charset = charset
        self.max_len = max_len
        self.canonical = canonical  # a key of CANONICAL_FORMS
        self.delimited = delimited

    def canonicalize(self, raw: str) -> str:
        return CANONICAL_FORMS[self.canonical](raw)

    def match(self, text: str, pos: int) -> int:
        """End of this kind's value starting at ``pos``, or ``pos`` if there is none."""
        if self.delimited:
            if not text.startswith("[", pos):
                return pos
            window = text[pos + 1 : pos + 2 + self.max_len]
            inside = len(window) - len(window.lstrip(self.charset))
            return pos + inside + 2 if window[inside : inside + 1] == "]" else pos
        window = text[pos : pos + self.max_len]
        return pos + len(window) - len(window.lstrip(self.charset))

    def match_backwards(self, text: str, end: int, floor: int) -> int:
        """Start of this kind's value ending at ``end``, not before ``floor``."""
        window = text[max(floor, end - self.max_len) : end]
        return end - (len(window) - len(window.rstrip(self.charset)))


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("tensor_type", _WORD + ".", 80, "dotted"),
        Kind("python_type", _WORD + ".<>", 120, "dotted"),
        Kind("dtype", _WORD + ".", 60, "dotted"),
        Kind("op", _WORD + ".", 100, "dotted"),
        Kind("shape", _DIGITS + ",", 200, "shape", delimited=True),
        Kind("node", _WORD + ":<>()", 120, "node"),
        Kind("attribute", _WORD, 100),
        Kind("device", _WORD + ":", 40),
        Kind("location", _WORD + "./\\:-+~@", 300),
        Kind("index", _DIGITS, 9),
        Kind("output_index", _DIGITS, 9),
        Kind("version", _DIGITS, 12),
        Kind("ndim", _DIGITS, 4),
        Kind("count", _DIGITS, 9),
        Kind("size", _DIGITS, 12),
    )
}


class Placeholder:
    __slots__ = ("ends_at_break", "kind", "name", "spaced")

    def __init__(self, name: str, kind: Kind) -> None:
        self.name = name
        self.kind = kind
        self.spaced = False  # followed by whitespace, or by nothing, in the template
        # The value ends where the paste's word does. Only where it must: last in the template,
        # or spaced from a word it could run into ("output 0 of {node} is a view"); elsewhere a
        # value a terminal wrapped ("torch.cuda.Float\nTensor") is still read whole.
        self.ends_at_break = False

    def __repr__(self) -> str:
        return f"Placeholder({self.name!r}, {self.kind.name!r})"


class TemplateMatch:
    """Where a template matched in a skeleton, and what its placeholders held."""

    __slots__ = ("complete", "end", "fields", "matched_chars", "start", "unstopped")

    def __init__(
        self,
        start: int,
        end: int,
        fields: dict[str, str],
        matched_chars: int,
        complete: bool,
        unstopped: bool = False,
    ) -> None:
        self.start = start
        self.end = end
        self.fields = fields
        self.matched_chars = matched_chars  # literal characters matched, whitespace excluded
        self.complete = complete
        self.unstopped = unstopped  # complete, but for the final full stop the paste left out


class Template:
    """One wording of a message, compiled for matching."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.parts: tuple[str | Placeholder, ...] = tuple(_parts(self.tokens, text))
        _check_deterministic(self.parts, text)
        literals = [p for p in self.parts if isinstance(p, str)]
        if not literals:
            raise TemplateError(f"template has no literal text: {text!r}")
        self.literal_chars = sum(len(p) for p in literals)
        self._anchor_at = next(i for i, p in enumerate(self.parts) if isinstance(p, str))
        if self._anchor_at > 1:
            raise TemplateError(f"two placeholders in a row in {text!r}")
        first_literal: str = self.parts[self._anchor_at]  # type: ignore[assignment]
        self.anchor = first_literal[:ANCHOR_CHARS]
        if len(self.anchor) < 6:
            raise TemplateError(f"template must start with 6+ literal characters: {text!r}")
        # The message's start with its capital lowered, matched as the message: a user's copy
        # lowercased it, and the wording inside it ("invalid gradient at index ...", another
        # entry's) must not win for it.
        self._folded = folded(first_literal) if self._anchor_at == 0 else None

    @property
    def placeholders(self) -> tuple[Placeholder, ...]:
        return tuple(p for p in self.parts if isinstance(p, Placeholder))

    def render(self, fields: dict[str, str]) -> str:
        """The message with captured values filled in; missing ones keep their ``{name}``."""
        return "".join(
            fields.get(token.name, "{" + token.name + "}")
            if isinstance(token, Placeholder)
            else token
            for token in self.tokens
        )

    def score(self, found: TemplateMatch) -> float:
        """Share of this template's text the paste holds: 1.0 when complete."""
        if found.complete:
            return 1.0
        # Rounded half up, as the browser's Math.round: round() rounds 0.8125 to 0.812.
        return int(found.matched_chars / self.literal_chars * 1000 + 0.5) / 1000

    def find(self, skeleton: Skeleton) -> list[TemplateMatch]:
        """Where this template matches, completely or as a truncated paste, last first.

        Only the last MAX_OCCURRENCES places the message starts are examined: a paste's latest
        occurrence of a message is the one that counts, and the cap keeps a hostile paste
        (the same prefix a million times) from costing more than a real one.
        """
        found: list[TemplateMatch] = []
        text = skeleton.text
        starts = self._starts(text, self.anchor)
        if self._folded is not None:
            starts = sorted(starts + self._starts(text, self._folded[:ANCHOR_CHARS]), reverse=True)
        for at in starts[:MAX_OCCURRENCES]:
            match = self._match_at(skeleton, at)
            if match is not None:
                found.append(match)
        return found

    @staticmethod
    def _starts(text: str, anchor: str) -> list[int]:
        """Where ``anchor`` occurs in ``text``, last first, MAX_OCCURRENCES at most."""
        starts: list[int] = []
        at = text.rfind(anchor)
        while at != -1 and len(starts) < MAX_OCCURRENCES:
            starts.append(at)
            at = text.rfind(anchor, 0, at + len(anchor) - 1)
        return starts

    def _match_at(self, skeleton: Skeleton, anchor_start: int) -> TemplateMatch | None:
        text = skeleton.text
        if self._anchor_at == 0 and not skeleton.starts_word(anchor_start):
            return None  # "Function" inside "LinearFunctionBackward" starts no message
        fields: dict[str, str] = {}
        start = anchor_start
        if self._anchor_at == 1:
            leading: Placeholder = self.parts[0]  # type: ignore[assignment]
            # The value is the word before the anchor: it starts at that word's break.
            start = leading.kind.match_backwards(
                text, anchor_start, skeleton.previous_break(anchor_start - 1)
            )
            if start == anchor_start:
                return None
            fields[leading.name] = leading.kind.canonicalize(text[start:anchor_start])
        pos = anchor_start
        matched = 0
        for index in range(self._anchor_at, len(self.parts)):
            part = self.parts[index]
            if index == 0 and self._folded is not None and text.startswith(self._folded[0], pos):
                # The message's start as the user lowered it: its capital is no character
                # matched, so that a wording that starts in lower case ranks above it.
                part, matched = self._folded, -1
            if isinstance(part, str):
                if text.startswith(part, pos):
                    pos += len(part)
                    matched += len(part)
                    continue
                common = _common_prefix(text, pos, part)
                if index == len(self.parts) - 1 and _only_final_stop(part[common:]):
                    # The message without its full stop: quoted, in backticks, in a sentence.
                    end = pos + common
                    return TemplateMatch(start, end, fields, matched + common, True, True)
                stop = pos + common
                if stop < len(text) and text[stop] in FINAL_STOPS and is_word_char(part[common]):
                    # A full stop of the paste's inside a word of the message's
                    # ("torch.utils.checkpoint.checkpoint." of "checkpoint_sequential"): the
                    # paste says another word, it did not end this one: only a sentence of the
                    # message's own, ended before, may end the cut.
                    stop = skeleton.last_sentence_end(pos, max(pos, stop - 1))
                elif not skeleton.ends_line(stop):
                    # The message's first sentences whole, then the user's on the same line
                    # ("... ready only once. Without checkpointing, ..."): cut after them.
                    stop = skeleton.last_sentence_end(pos, stop)
                return self._truncated(skeleton, start, stop, matched + stop - pos, fields)
            end = part.kind.match(text, pos)
            if part.ends_at_break and not part.kind.delimited:
                end = min(end, skeleton.next_break(pos + 1))
            if end == pos:
                return self._truncated(skeleton, start, pos, matched, fields)
            fields[part.name] = part.kind.canonicalize(text[pos:end])
            pos = end
        return TemplateMatch(start, pos, fields, matched, complete=True)

    def _truncated(
        self, skeleton: Skeleton, start: int, stop: int, matched: int, fields: dict[str, str]
    ) -> TemplateMatch | None:
        """A paste that ends part-way through the message: still a match if long enough."""
        if matched < MIN_TRUNCATED_CHARS or not (
            skeleton.ends_line(stop) or skeleton.ends_sentence(stop)
        ):
            return None
        return TemplateMatch(start, stop, fields, matched, complete=False)


def _only_final_stop(rest: str) -> bool:
    """Whether what a paste left out of a template's end is only its closing punctuation."""
    return bool(rest) and not rest.strip(FINAL_STOPS)


def _common_prefix(text: str, pos: int, literal: str) -> int:
    """Length of the longest prefix of ``literal`` found at ``text[pos:]`` (by bisection)."""
    low, high = 0, min(len(literal), len(text) - pos)
    while low < high:
        middle = (low + high + 1) // 2
        if text.startswith(literal[:middle], pos):
            low = middle
        else:
            high = middle - 1
    return low


def _tokens(text: str) -> tuple[str | Placeholder, ...]:
    """The template as literal runs (whitespace kept) and placeholders."""
    tokens: list[str | Placeholder] = []
    literal: list[str] = []
    pos = 0
    while pos < len(text):
        # Jump from brace to brace: templates are parsed at every start of ``explain``.
        braces = [i for i in (text.find("{", pos), text.find("}", pos)) if i != -1]
        if not braces:
            literal.append(text[pos:])
            break
        brace = min(braces)
        literal.append(text[pos:brace])
        pos = brace
        if text.startswith(("{{", "}}"), pos):
            literal.append(text[pos])
            pos += 2
            continue
        if text[pos] == "}":
            raise TemplateError(f"unbalanced '}}' at {pos} in {text!r}")
        close = text.find("}", pos)
        if close == -1:
            raise TemplateError(f"unbalanced '{{' at {pos} in {text!r}")
        name, _, kind_name = text[pos + 1 : close].partition(":")
        kind_name = kind_name or name
        if not name or not all(c in _WORD for c in name):
            raise TemplateError(f"bad placeholder name {name!r} in {text!r}")
        if kind_name not in KINDS:
            raise TemplateError(
                f"unknown placeholder kind {kind_name!r} in {text!r} "
                f"(kinds: {', '.join(sorted(KINDS))})"
            )
        if "".join(literal):
            tokens.append("".join(literal))
        literal = []
        tokens.append(Placeholder(name, KINDS[kind_name]))
        pos = close + 1
    if "".join(literal):
        tokens.append("".join(literal))
    for token, following in zip(tokens, [*tokens[1:], None], strict=True):
        if isinstance(token, Placeholder):
            token.spaced = following is None or (
                isinstance(following, str) and following[:1].isspace()
            )
    return tuple(tokens)


def _parts(tokens: tuple[str | Placeholder, ...], text: str) -> list[str | Placeholder]:
    """The template's parts for matching: whitespace-free literals and placeholders."""
    parts: list[str | Placeholder] = []
    for token in tokens:
        if isinstance(token, Placeholder):
            parts.append(token)
            continue
        literal = "".join(token.split())
        if not literal:
            continue
        if parts and isinstance(parts[-1], str):
            parts[-1] += literal
        else:
            parts.append(literal)
    names = [p.name for p in parts if isinstance(p, Placeholder)]
    if len(names) != len(set(names)):
        raise TemplateError(f"a placeholder name is used twice in {text!r}")
    for part, following in zip(parts, [*parts[1:], None], strict=True):
        if isinstance(part, Placeholder) and not part.kind.delimited:
            runs_into = isinstance(following, str) and following[0] in part.kind.charset
            part.ends_at_break = following is None or (part.spaced and runs_into)
    return parts


def _check_deterministic(parts: tuple[str | Placeholder, ...], text: str) -> None:
    for before, after in itertools.pairwise(parts):
        if not isinstance(before, Placeholder):
            continue
        if isinstance(after, Placeholder) and not after.kind.delimited:
            raise TemplateError(f"two placeholders in a row in {text!r}")
        following = "[" if isinstance(after, Placeholder) else after[0]
        if before.ends_at_break or before.kind.delimited:
            continue
        if following in before.kind.charset:
            raise TemplateError(
                f"{{{before.name}}} is followed by {following!r}, which it could also hold: "
                f"matching would be ambiguous in {text!r}"
            )
