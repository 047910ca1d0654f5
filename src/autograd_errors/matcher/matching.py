"""Find the catalog entries a paste contains.

The answers, in one ranked list:

- exact: one of the entry's wordings occurs in the paste, whole, its fields captured;
- partial: a wording cut off at the end of a line (people often copy only the first sentence),
  or a distinctive fragment of a wording, exactly or nearly (:mod:`.fuzzy`);
- symptom: a silent pitfall, found by how users meet it (:mod:`.symptoms`): their words for
  it, or Python's error at a line that reads its culprit (or, when nothing else matched, that
  error told in a sentence without its class, or another program's words for the symptom:
  detectron2's NaN-loss check, a log's ``loss: nan``); never an exact match of a message;
- none: the closest entries are offered as near misses, kept apart from matches, and never
  presented as an answer; a report that quotes no message but describes a pitfall's symptom
  in its sentences gets the pages about what it describes, as such (``described``); a
  PyTorch error that is not an autograd error is named as such (:mod:`.not_autograd`) and
  never offered as an entry.

Exact matches rank above partial ones. Context lines (anomaly mode's "Error detected in X",
a wording with ``context = true`` in its record) are matches of their own only when the paste
holds no main error. With a match, the paste's traceback is read for the user's own line
(:mod:`.frames`).
"""

from __future__ import annotations

from autograd_errors.matcher.causes import choose
from autograd_errors.matcher.tracebacks import Located, Paste
from autograd_errors.messages.normalize import Skeleton, bisect_left, clean, skeleton
from autograd_errors.messages.templates import anchored

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    import autograd_errors.matcher.symptoms as symptoms_module
    from autograd_errors.catalog.model import Catalog, Entry, NotAutogradKind, Wording
    from autograd_errors.matcher.causes import CauseChoice
    from autograd_errors.matcher.frames import Frame
    from autograd_errors.messages.templates import TemplateMatch

#: At most this many near misses are offered.
NEAR_MISS_LIMIT = 3


class Match:
    """One entry found in a paste, with the wording it matched and the values it captured."""

    __slots__ = ("cause", "end", "entry", "fields", "kind", "located", "score", "start", "wording")

    def __init__(
        self,
        entry: Entry,
        wording: Wording,
        fields: dict[str, str],
        score: float,
        start: int = -1,
        end: int = -1,
        kind: str | None = None,
    ) -> None:
        self.entry = entry
        self.wording = wording
        self.fields = fields
        self.score = score  # 1.0 when the whole message is there
        # "exact", "partial", or "symptom": a pitfall found by how users meet it, not by a
        # message of torch's (its wording is the symptom, see matcher/symptoms.py).
        self.kind = kind or ("exact" if score >= 1 else "partial")
        self.start = start  # where in the paste's skeleton (-1 for a fragment found by words)
        self.end = end
        #: The frames of the exception this match is in (the user's line among them), and the
        #: common cause the answer leads with; :func:`find_entries` finds both.
        self.located = Located(None, [])
        self.cause: CauseChoice | None = None

    @classmethod
    def of(cls, entry: Entry, wording: Wording, found: TemplateMatch) -> Match:
        score = wording.template.score(found)
        return cls(entry, wording, found.fields, score, found.start, found.end)

    def __repr__(self) -> str:
        return f"Match({self.entry.id!r}, {self.wording.variant!r}, {self.fields!r})"

    @property
    def message(self) -> str:
        """The matched message, rebuilt from the wording with the captured values."""
        return self.wording.template.render(self.fields)

    def details(self, language: str = "en") -> list[str]:
        """The entry's sentences about captured values, and the hints that apply to them."""
        # In ``language``; English where a text is not translated yet. (The docstring is the
        # site's API page, translated in locales/: changing it would unsettle its translation.)
        values = with_derived_fields(self.fields)
        text = self.entry.localized(language, fallback=True)
        lines = []
        for sentence in text.details:
            try:
                lines.append(sentence.format_map(values))
            except KeyError:  # names a field this wording does not capture
                continue
        lines += [
            hint.text
            for hint in text.hints
            if values.get(hint.field, "").lower().startswith(hint.prefix.lower())
        ]
        return lines


class NearMiss:
    """An entry whose wording resembles the paste without matching it. Not an answer.

    ``similarity``: the share of its wording's rare words the paste holds, weighed by rarity
    (1.0 for a page a description is about: its phrase is whole in a sentence)."""

    __slots__ = ("entry", "similarity")

    def __init__(self, entry: Entry, similarity: float) -> None:
        self.entry = entry
        self.similarity = similarity


class Explanation:
    """What a paste contains: matches, exact ones first, final exception first, and the user's
    own line (``frame``); without them, the non-autograd error it holds (``not_autograd``), or
    else near misses; ``raised_by``: the line of another library that raised the message in
    PyTorch's words (its entry is then a near miss, not an answer); ``context_only``: the
    paste holds only lines torch prints beside an error (anomaly mode's), not the error, so
    that their entry is a near miss, not an answer (``frame``: the user's line in their
    forward traceback); ``described``: the paste quotes no message,
    and the near misses are the pitfalls its sentences describe."""

    __slots__ = (
        "context_only",
        "described",
        "frame",
        "matches",
        "near_misses",
        "not_autograd",
        "raised_by",
        "text",
    )

    def __init__(
        self,
        matches: list[Match],
        near_misses: list[NearMiss],
        not_autograd: NotAutogradKind | None = None,
        text: str = "",
        frame: Frame | None = None,
        raised_by: Frame | None = None,
        context_only: bool = False,
        described: bool = False,
    ) -> None:
        self.matches = matches
        self.near_misses = near_misses
        self.not_autograd = not_autograd
        self.text = text  # the paste
        # the user's own line in its traceback, when something matched; with anomaly mode's
        # lines alone, the line of theirs its forward traceback names
        self.frame = frame
        self.raised_by = raised_by
        self.context_only = context_only
        self.described = described

    @property
    def cause(self) -> CauseChoice | None:
        """The common cause the answer leads with: the first match's (None: no match, or no
        cause fits)."""
        return self.matches[0].cause if self.matches else None

    def diagnosed(self, cause_id: str | None, culprits: list[Frame]) -> None:
        """Lead with the cause a diagnosis found, its culprit lines as the evidence (a cause
        the entry does not have, or none, leaves the choice made from the paste)."""
        from autograd_errors.matcher.causes import Evidence

        if not self.matches or cause_id is None:
            return
        first = self.matches[0]
        if not any(cause.id == cause_id for cause in first.entry.causes):
            return
        evidence = [Evidence("diagnosis", cause_id, frame) for frame in culprits]
        first.cause = choose(first.entry, first.wording, {}, [], [], evidence, cause_id)

    def __repr__(self) -> str:
        if self.matches:
            found = ", ".join(
                f"{m.entry.id} (exact)"
                if m.kind == "exact"
                else f"{m.entry.id} (partial, {round(m.score * 100)}%)"
                for m in self.matches
            )
        elif self.not_autograd is not None:
            found = f"not an autograd error ({self.not_autograd.name})"
        elif self.near_misses:
            found = "no match; near: " + ", ".join(miss.entry.id for miss in self.near_misses)
        else:
            found = "no match"
        return f"<Explanation: {found}>"

    @property
    def shared(self) -> bool:
        """Whether the partial matches share a fragment, none of them a confident winner."""
        return len(self.matches) > 1 and all(m.kind == "partial" for m in self.matches)


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


def find_entries(
    text: str, catalog: Catalog, cells: Mapping[str, int] | None = None
) -> Explanation:
    """Match ``text`` against every wording in ``catalog``; for each match, find the frames of
    the exception it is in (the user's own line among them) and the common cause they support
    (:mod:`.tracebacks`, :mod:`.causes`). ``cells``: a running kernel's names for its cells'
    files (``/tmp/ipykernel_1/2.py``: cell 3)."""
    cleaned = clean(text)
    sk = Skeleton.of(cleaned)
    explanation = _ranked(cleaned, sk, catalog)
    explanation.text = text
    if explanation.matches:
        paste = Paste(cleaned)
        for match in explanation.matches:
            match.located = paste.locate(_starts(match, sk), cells)
            frames = match.located
            values = with_derived_fields(match.fields)
            match.cause = choose(
                match.entry, match.wording, values, frames.frames, frames.all_frames
            )
        copied = [match for match in explanation.matches if match.located.raiser is not None]
        if copied:  # another library's raise of PyTorch's words: not PyTorch's error
            kept = [match for match in explanation.matches if match.located.raiser is None]
            if not kept:
                explanation.near_misses = [
                    NearMiss(match.entry, match.score) for match in copied[:NEAR_MISS_LIMIT]
                ]
                explanation.raised_by = copied[0].located.raiser
            explanation.matches = kept
        explanation.frame = explanation.matches[0].located.frame if explanation.matches else None
    return explanation


def _starts(match: Match, sk: Skeleton) -> list[int]:
    """Where the match's wording starts in the paste, up to the match itself, in order: the
    first of them in the match's chain of exceptions is where it was raised."""
    if match.start < 0:
        return []
    found = {f.start for f in match.wording.template.find(sk) if f.start <= match.start}
    return sorted(found | {match.start})


def _ranked(cleaned: str, sk: Skeleton, catalog: Catalog) -> Explanation:
    exact = _find_in(sk, catalog)
    if any(m.kind == "exact" and not _is_context(m) for m in exact):
        # Exact matches rank above cut-off ones; each group keeps its final-exception-first order.
        return Explanation(sorted(exact, key=lambda m: m.kind != "exact"), [])
    # Only a paste without an exact match pays for importing the partial matcher.
    import autograd_errors.matcher.fuzzy as fuzzy
    import autograd_errors.matcher.not_autograd as not_autograd
    import autograd_errors.matcher.symptoms as symptoms

    pasted, lines = fuzzy.line_words(fuzzy.message_lines(cleaned))
    elsewhere = not_autograd.recognise(pasted[-fuzzy.MAX_WORDS :], catalog.not_autograd)
    if elsewhere is not None:
        return Explanation([], [], elsewhere)
    met = symptoms.by_error(cleaned, catalog)
    if met is not None:
        return Explanation([_symptom_match(met)], [])
    # A message cut off at a line end matched its wording's start, with its fields: it stands
    # for its entry, above the entries only a fragment of the paste's words points to (a
    # sentence several messages end with). The ranking is the fragments': a start several
    # entries share ranks those of them the fragments found, or, if they found none, them all.
    cut = {m.entry.id: m for m in exact if not _is_context(m)}
    ranked = [cut.pop(m.entry.id, m) for m in partial_matches(pasted, lines, catalog)]
    main = [m for m in ranked if not _is_context(m)]
    if any(m.start >= 0 for m in main):
        main = [m for m in main if m.start >= 0]
    else:
        main += cut.values()
    if main and not exact and fuzzy.foreign_exception(cleaned):
        # PyTorch's words, reworded, after a bare "Error:", a class Python never prints (a
        # JavaScript port's): the closest entries, not an answer. Its words cut off at a line's
        # end are PyTorch's own: an app that prints "Error: {e}" (ComfyUI) shows them so.
        return Explanation([], [NearMiss(m.entry, m.score) for m in main[:NEAR_MISS_LIMIT]])
    if main:
        return Explanation(main, [])
    if exact or ranked:
        # Anomaly mode's lines alone ("Error detected in AddmmBackward0"): printed beside any
        # error of the backward pass, they do not say which; the error's own message does.
        near: dict[str, NearMiss] = {}
        for match in exact or ranked:
            near.setdefault(match.entry.id, NearMiss(match.entry, match.score))
        # Their forward traceback still names the user's line whose backward failed: the
        # last of their lines reports it (the notice that anomaly mode is on comes first).
        placed = max(
            (m for m in exact or ranked if m.start >= 0), key=lambda m: m.start, default=None
        )
        frame = None if placed is None else Paste(cleaned).locate(_starts(placed, sk)).frame
        return Explanation(
            [], list(near.values())[:NEAR_MISS_LIMIT], frame=frame, context_only=True
        )
    told = symptoms.by_told_error(cleaned, catalog) or symptoms.by_message(cleaned, catalog)
    if told is not None:
        return Explanation([_symptom_match(told)], [])
    met_words = symptoms.by_words(cleaned, catalog)
    if met_words:
        return Explanation([_symptom_match(symptom) for symptom in met_words], [])
    # A longer report in prose: the pages about what its sentences describe, not an answer.
    pages = symptoms.described(cleaned, catalog)[:NEAR_MISS_LIMIT]
    if pages:
        about = [NearMiss(symptom.entry, 1.0) for symptom in pages]  # a phrase whole in it
        return Explanation([], about, described=True)
    return Explanation([], near_misses_of(pasted, catalog))


def _symptom_match(symptom: symptoms_module.Symptom) -> Match:
    return Match(symptom.entry, symptom.wording, {}, 0.0, kind="symptom")


def _is_context(match: Match) -> bool:
    return match.wording.context


def partial_matches(pasted: list[str], lines: list[int], catalog: Catalog) -> list[Match]:
    """Entries a fragment of the paste belongs to: the best, and those sharing its fragment.
    ``lines``: the line of each paste word."""
    import autograd_errors.matcher.fuzzy as fuzzy

    best: dict[str, fuzzy.Fragment] = {}
    fragments = fuzzy.fragments(pasted, lines, catalog)
    # A context line gives way to the main error it accompanies, but not to a faint echo of
    # another wording in its own words: the main fragment must score half as much at least.
    main = [f for f in fragments if not f.wording.context]
    if main and main[0].score * 2 >= fragments[0].score:
        fragments = main
    for fragment in fragments:
        best.setdefault(fragment.entry.id, fragment)  # strongest first
    ranked = list(best.values())
    if not ranked:
        return []
    top = ranked[0].score
    shared = [f for f in ranked if f.score * 100 >= top * fuzzy.SHARED_PERCENT]
    return [Match(f.entry, f.wording, {}, f.coverage) for f in shared[: fuzzy.MAX_PARTIAL]]


def near_misses_of(pasted: list[str], catalog: Catalog) -> list[NearMiss]:
    import autograd_errors.matcher.fuzzy as fuzzy

    return [
        NearMiss(entry, share)
        for entry, share in fuzzy.near_misses(pasted, catalog)[:NEAR_MISS_LIMIT]
    ]


def find_matches(text: str, catalog: Catalog) -> list[Match]:
    """Every entry present in ``text``: the final exception first, then earlier exceptions,
    then warnings (last first). Warnings come after exceptions even when the paste shows them
    later, as when a terminal interleaves stderr and stdout."""
    return _find_in(skeleton(text), catalog)


def _find_in(sk: Skeleton, catalog: Catalog) -> list[Match]:
    candidates = [
        (found, entry, wording)
        for entry in catalog.anchored_in(sk.text)
        for wording in entry.wordings
        if anchored(wording.anchor, sk.text)
        for found in wording.template.find(sk)
    ]
    # Where wordings overlap, the one explaining more of the text wins: "a view of a leaf
    # Variable ..." contains "a leaf Variable ...", and is the more specific entry.
    # A wording matched to its last character beats one whose full stop the paste left out.
    candidates.sort(
        key=lambda c: (c[0].matched_chars, c[0].complete, not c[0].unstopped), reverse=True
    )
    starts: list[int] = []  # the spans taken, in order (they never overlap)
    ends: list[int] = []
    # A message cut off where the wordings of several entries still agree (the same span, as
    # many characters matched) is each of theirs.
    cut_spans: set[tuple[int, int, int]] = set()
    latest: dict[str, Match] = {}
    for found, entry, wording in candidates:
        span = (found.start, found.end, found.matched_chars)
        if found.complete or span not in cut_spans:
            i = bisect_left(starts, found.start)
            if (i < len(starts) and starts[i] < found.end) or (i and ends[i - 1] > found.start):
                continue  # overlaps the next span taken, or the one before
            starts.insert(i, found.start)
            ends.insert(i, found.end)
            if not found.complete:
                cut_spans.add(span)
        previous = latest.get(entry.id)
        # The latest occurrence stands for its entry, but a whole message beats one cut off:
        # Python echoes a warning's source line after it, its text cut at the line's end.
        if previous is None or (found.complete, found.end) > (
            previous.kind == "exact",
            previous.end,
        ):
            latest[entry.id] = Match.of(entry, wording, found)
    matches = sorted(latest.values(), key=lambda m: (_is_exception(m), m.end), reverse=True)
    if any(not _is_context(m) for m in matches):
        matches = [m for m in matches if not _is_context(m)]
    return matches


def _is_exception(match: Match) -> bool:
    return not match.wording.exception.endswith("Warning")
