"""Find the catalog entries a paste contains.

A paste matches an entry when one of the entry's wordings occurs in it, completely or cut off at
the end of a line (people often copy only the first sentence). Text that no wording covers
matches nothing: the closest entries are offered as near misses, kept apart from matches, and
never presented as an answer.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from autograd_errors.normalize import clean, skeleton

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog import Catalog, Entry, Wording
    from autograd_errors.templates import TemplateMatch

#: A near miss shares at least this fraction of an entry's words with the paste.
NEAR_MISS_SIMILARITY = 0.6
NEAR_MISS_TAIL = 20_000
PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"


class Match:
    """One entry found in a paste, with the wording it matched and the values it captured."""

    __slots__ = ("end", "entry", "fields", "score", "start", "wording")

    def __init__(self, entry: Entry, wording: Wording, found: TemplateMatch) -> None:
        self.entry = entry
        self.wording = wording
        self.fields = found.fields
        self.score = wording.template.score(found)  # 1.0 when the whole message is there
        self.start = found.start
        self.end = found.end

    def __repr__(self) -> str:
        return f"Match({self.entry.id!r}, {self.wording.variant!r}, {self.fields!r})"

    @property
    def message(self) -> str:
        """The matched message, rebuilt from the wording with the captured values."""
        return self.wording.template.render(self.fields)

    def details(self) -> list[str]:
        """The entry's sentences about captured values, and the hints that apply to them."""
        values = with_derived_fields(self.fields)
        lines = []
        for sentence in self.entry.details:
            try:
                lines.append(sentence.format_map(values))
            except KeyError:  # names a field this wording does not capture
                continue
        lines += [
            hint.text
            for hint in self.entry.hints
            if values.get(hint.field, "").lower().startswith(hint.prefix.lower())
        ]
        return lines


class NearMiss:
    """An entry whose wording resembles the paste without matching it. Not an answer."""

    __slots__ = ("entry", "similarity")

    def __init__(self, entry: Entry, similarity: float) -> None:
        self.entry = entry
        self.similarity = similarity


class Explanation:
    """What a paste contains: matches, final exception first; near misses only without them."""

    __slots__ = ("matches", "near_misses")

    def __init__(self, matches: list[Match], near_misses: list[NearMiss]) -> None:
        self.matches = matches
        self.near_misses = near_misses


def with_derived_fields(fields: dict[str, str]) -> dict[str, str]:
    """Captured fields plus ``op``: the operation behind an autograd node name."""
    values = dict(fields)
    node = fields.get("node")
    if node and "op" not in values:
        name = node.rsplit("::", 1)[-1]
        base = name.rstrip("0123456789")
        values["op"] = (
            base[: -len("Backward")] if base.endswith("Backward") and base != "Backward" else name
        )
    return values


def explain(text: str, catalog: Catalog) -> Explanation:
    """Match ``text`` against every wording in ``catalog``."""
    matches = find_matches(text, catalog)
    return Explanation(matches, [] if matches else near_misses(text, catalog))


def find_matches(text: str, catalog: Catalog) -> list[Match]:
    """Every entry present in ``text``: the final exception first, then earlier exceptions,
    then warnings (last first). Warnings come after exceptions even when the paste shows them
    later, as when a terminal interleaves stderr and stdout."""
    sk = skeleton(text)
    candidates = [
        (found, entry, wording)
        for entry in catalog
        for wording in entry.wordings
        if wording.anchor in sk.text
        for found in wording.template.find(sk)
    ]
    # Where wordings overlap, the one explaining more of the text wins: "a view of a leaf
    # Variable ..." contains "a leaf Variable ...", and is the more specific entry.
    candidates.sort(key=lambda c: (c[0].matched_chars, c[0].complete), reverse=True)
    taken: list[tuple[int, int]] = []
    latest: dict[str, Match] = {}
    for found, entry, wording in candidates:
        if _overlaps(taken, found.start, found.end):
            continue
        insort(taken, (found.start, found.end))
        previous = latest.get(entry.id)
        if previous is None or found.end > previous.end:
            latest[entry.id] = Match(entry, wording, found)
    return sorted(latest.values(), key=lambda m: (_is_exception(m), m.end), reverse=True)


def _is_exception(match: Match) -> bool:
    return not match.wording.exception.endswith("Warning")


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    i = bisect_left(taken, (start, end))
    if i < len(taken) and taken[i][0] < end:
        return True
    return i > 0 and taken[i - 1][1] > start


def near_misses(text: str, catalog: Catalog, limit: int = 3) -> list[NearMiss]:
    """Entries sharing most of their wording's words with the end of the paste."""
    words = _words(clean(text[-NEAR_MISS_TAIL:]))
    if not words:
        return []
    found = []
    for entry in catalog:
        if not entry.wordings:
            continue  # a pitfall has no message to resemble
        best = max(_similarity(wording.template.tokens, words) for wording in entry.wordings)
        if best >= NEAR_MISS_SIMILARITY:
            found.append(NearMiss(entry, round(best, 2)))
    found.sort(key=lambda miss: miss.similarity, reverse=True)
    return found[:limit]


def _words(text: str) -> set[str]:
    stripped = (word.strip(PUNCTUATION).lower() for word in text.split())
    return {word for word in stripped if len(word) > 2}


def _similarity(tokens: tuple[object, ...], words: set[str]) -> float:
    own = _words(" ".join(token for token in tokens if isinstance(token, str)))
    return len(own & words) / len(own) if own else 0.0
