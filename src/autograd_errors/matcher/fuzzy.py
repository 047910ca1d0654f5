"""Partial matches: a fragment of a wording, or a wording slightly off, found by its rare words.

Real queries are often not a whole message: a clause from the middle, a GitHub title cut at its
length limit, a message typed from memory, a typo, markdown around the code, lower case. The
exact matcher (:mod:`autograd_errors.messages.templates`) finds none of these; this module
does, on words:

- **Words.** Runs of ASCII letters, digits and ``_``, lower-cased, ``_`` trimmed at their ends.
  Everything else separates words, so case, backticks, ``*``, ``_``, ``>``, quotes and missing or
  doubled spaces around punctuation change nothing.
- **Rarity.** A word weighs ``round(100 * ln(N / df))``: ``N`` entries with wordings, ``df`` of
  them use the word. Words that more than a third of the entries use ("the", "of", "grad")
  weigh nothing: they are neither anchors nor evidence. A fragment several entries share scores
  the same for each, so it ranks them without a confident winner; it never picks one at random.
- **Typos.** A word of 5+ letters one deletion, insertion, substitution or swap away from a
  catalog word also counts, at three quarters of its weight (a symmetric-deletion index: each
  word looks up its own deletions, so the cost is the word's length, not the vocabulary's).
- **Alignment.** Each rare word of the paste is an anchor: it names the wordings and positions
  where it occurs. Anchors are chained in order, per wording, by a dynamic programme that only
  looks back a bounded window (MAX_PASTE_GAP words of the paste, MAX_WORDING_GAP words of the
  wording). Skipping a wording's word costs half its weight (a missing or swapped word); extra
  paste words cost INSERT_COST each, beyond what the placeholders between may hold.
- **Evidence.** A chain is a partial match only when it explains its lines: the weight it
  chained against the weight of the words there it does not hold (EVIDENCE_PERCENT; less for a
  long chain). Three rare words inside another message ("Boolean value of Tensor with more than
  one value is ambiguous") are no answer; a fragment typed alone, or a message reworded, is.
  What surrounds a message on its line is not read: the path before ``UserWarning:``, torch's
  ``(Triggered internally at ...)``; nor Python's traceback headers. Text many unrelated
  messages say (BOILERPLATE: torch's "please file an issue", Python's "got an unexpected keyword
  argument") is no evidence either way.

Why it is linear in the paste: only the last MAX_LINES lines are read for words (a split and a
byte translation, both linear); only the last MAX_RAW_WORDS words are kept and the last MAX_WORDS
aligned; a word costs its length in lookups (words longer than TYPO_MAX_LENGTH are not looked up
for typos); each anchor names at most the catalog's occurrences of that word (a constant of the
catalog), and each chain step looks back over a bounded window, with the cost of a gap read from
prefix sums; the evidence of a chain reads its lines' words once, each costed once per paste. So
the work is at most proportional to the paste's length, and bounded by a constant beyond
MAX_RAW_WORDS words.
"""

from __future__ import annotations

import itertools

from autograd_errors.messages.normalize import is_word_char

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from autograd_errors.catalog.model import Catalog, Entry, Wording

#: What torch wraps around a check that has no message of its own (``TORCH_CHECK(cond)`` prints
#: "Expected <cond> to be true, but got false.  (Could this error message be improved? ...)"):
#: many unrelated errors say it, so its words are no evidence of any entry; the condition is.
BOILERPLATE = (
    "to be true, but got false.",
    "(Could this error message be improved?  If so, please report an enhancement request to "
    "PyTorch.)",
    # Said by dozens of torch's messages of every kind (data/inventory/messages.json): where
    # to report, where the documentation is, that a feature will go.
    "please file an issue",
    "https://github.com/pytorch/pytorch/issues",
    "https://pytorch.org/docs/stable",
    "will be removed in a future version",
    "will be removed in future versions",
    # Python's own, for any function's arguments.
    "got an unexpected keyword argument",
)
#: Only the paste's last lines and words are read: the final exception ends a traceback.
MAX_LINES = 2000
MAX_RAW_WORDS = 4000
MAX_WORDS = 1000
#: Words used by more than this share of the entries weigh nothing.
COMMON_SHARE = 3
#: A typo'd word counts this share (numerator / 4) of its weight.
TYPO_QUARTERS = 3
#: Shortest and longest word looked up for typos.
TYPO_MIN_LENGTH = 5
TYPO_MAX_LENGTH = 64
#: How far back a chain may reach, in paste words and in wording words.
MAX_PASTE_GAP = 12
MAX_WORDING_GAP = 8
#: Paste words a placeholder may hold ("[torch.cuda.HalfTensor [64, 128]]" is five).
PLACEHOLDER_WORDS = 6
#: Cost of a paste word inside a chain that the wording does not hold.
INSERT_COST = 40
#: A partial match needs this score, and this many anchors.
MIN_SCORE = 700
MIN_ANCHORS = 3
#: A chain of fewer anchors is a phrase any prose may hold ("At the same time:" is three rare
#: words of volatile-removed's "... at the same time!"), unless one of its words is code: a
#: name with an underscore or a digit ("specify retain_graph=True").
PLAIN_CHAIN_ANCHORS = 4
#: ... and this share (per cent) of the weight of its lines' words: the wording's words it
#: chains, against the words there it does not explain (see :func:`evidence`). A share of rare
#: words convinces, not a few of them inside another message. A long chain (STRONG_SCORE)
#: convinces with less: a reworded message keeps most of its rare words, in order.
EVIDENCE_PERCENT = 75
STRONG_SCORE = 3000
STRONG_EVIDENCE_PERCENT = 50
#: A chain of this many anchors from its wording's first word is a message's start: the rest of
#: its line, the user's own words, is not read against it.
PREFIX_ANCHORS = 5
#: A chain holding less than this share (per cent) of its wording's weight is a sliver of a long
#: message: it convinces only as all the evidence on its lines, no word there left unexplained
#: ("Saved intermediate values of the graph are freed" typed alone), not as a phrase another
#: message shares (torchvision's "double backwards on deform_conv2d not supported", 10% of
#: derivative-not-implemented's cuDNN-RNN wording, "... Double backwards is not supported ...").
SLIVER_PERCENT = 15
#: Entries scoring at least this share (per cent) of the best share its fragment with it (an
#: entry whose wording names another node than the paste, "Output 0 of BackwardHookFunction",
#: scores some 85%: below the others, still listed).
SHARED_PERCENT = 80
#: At most this many partial matches are reported.
MAX_PARTIAL = 5
#: A near miss holds at least this share (per cent) of its wording's weight, and this weight,
#: per cent of the rarest word's (``unknown_weight``): a short wording is not close for two of
#: its words. Relative, as the weights grow with the catalog: "tensors must be" is three common
#: words of mat2-not-matrix's "Tensors must be 2-D" whatever the catalog's size.
NEAR_MISS_PERCENT = 45
NEAR_MISS_RARE_PERCENT = 140

_WORD_BYTES = bytes(
    c if chr(c).isascii() and (chr(c).isalnum() or c == 0x5F) else 0x20 for c in range(256)
)


def words(text: str) -> list[str]:
    """The last MAX_RAW_WORDS words of ``text``, as this module compares them."""
    ascii_text = text.encode("ascii", "replace").translate(_WORD_BYTES).lower().decode("ascii")
    return [
        word for word in (raw.strip("_") for raw in ascii_text.split()[-MAX_RAW_WORDS:]) if word
    ]


#: Lines Python prints around the frames of a traceback: no message's words.
TRACEBACK_LINES = (
    "Traceback (most recent call last):",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
#: Where torch's C++ warnings name their source: what follows on the line is a path.
TRIGGERED = "(Triggered internally at"
#: The endings of the exception and warning classes that prefix a message (``RuntimeError:``).
EXCEPTION_ENDINGS = ("Error", "Warning", "Exception")


def message_lines(cleaned: str) -> str:
    """A cleaned paste without what is not a message: traceback frames (``File "..."`` lines
    and the code line indented under each; IPython's frame lines and the numbered code under
    them, ``---> 32 outputs = model(**inputs)``), Python's traceback headers, what precedes a
    message's exception class on its line (``/site-packages/torch/nn/modules/module.py:795:``),
    and torch's ``(Triggered internally at ...)``. Their paths and code ("in <module>",
    "modules/module.py") are not what the user asks about, and would give a short wording's
    words away."""
    from autograd_errors.matcher.frames import arrow_line, context_line, header

    kept: list[str] = []
    after_frame = False
    in_ipython_frame = False  # IPython's frames: a header, then numbered lines of code
    for line in cleaned.split("\n")[-MAX_LINES:]:
        stripped = line.lstrip()
        if stripped.startswith('File "'):
            after_frame = True
            continue
        if after_frame and stripped and line[:1] in (" ", "\t"):
            after_frame = False
            continue
        after_frame = False
        if in_ipython_frame and (
            not stripped or arrow_line(stripped) is not None or context_line(stripped) is not None
        ):
            continue
        found = header(stripped)
        in_ipython_frame = found is not None and found[2] in ("ipython", "arrow")
        if in_ipython_frame or stripped.rstrip() in TRACEBACK_LINES:
            continue
        kept.append(_message_part(line))
    return "\n".join(kept)


#: The exception class JavaScript throws and prints (``Error: ...``): no Python program's, nor
#: torch's, whose classes end with it (``RuntimeError``).
FOREIGN_EXCEPTION = "Error:"


def foreign_exception(cleaned: str) -> bool:
    """Whether the paste names :data:`FOREIGN_EXCEPTION`'s class alone before a colon and no
    Python class at all (``RuntimeError:``, ``UserWarning:``): a Python log that also prints
    "Error: ..." is still Python's."""
    bare = False
    for _, name in _names_before_colons(cleaned):
        if name == FOREIGN_EXCEPTION[:-1]:
            bare = True
        elif _is_exception_class(name):
            return False
    return bare


def _message_part(line: str) -> str:
    """The line from its first exception class on (``RuntimeError: ...``), without torch's
    ``(Triggered internally at ...)``."""
    triggered = line.find(TRIGGERED)
    if triggered != -1:
        line = line[:triggered]
    for colon, name in _names_before_colons(line):
        if _is_exception_class(name):
            return line[colon + 1 :]
    return line


def _names_before_colons(text: str) -> Iterator[tuple[int, str]]:
    """Each colon of ``text`` and the name just before it, its last dotted part
    (``torch.OutOfMemoryError:`` gives ``OutOfMemoryError``)."""
    colon = text.find(":")
    while colon != -1:
        start = colon
        while start > 0 and (is_word_char(text[start - 1]) or text[start - 1] == "."):
            start -= 1
        yield colon, text[start:colon].rsplit(".", 1)[-1]
        colon = text.find(":", colon + 1)


def _is_exception_class(name: str) -> bool:
    return name[:1].isupper() and name.endswith(EXCEPTION_ENDINGS) and name.isascii()


#: Quotes and backticks end a span of a line as a line end does: a message quoted in a sentence
#: ('I got the error "Optimizer got an empty parameter list".') is read apart from the words
#: around it, which are the user's, not evidence against it.
QUOTES = '"`\u201c\u201d'
_QUOTE_BREAKS = str.maketrans(dict.fromkeys(QUOTES, "\n"))


def line_words(text: str) -> tuple[list[str], list[int]]:
    """The last MAX_RAW_WORDS words of ``text``, as :func:`words` gives them, and the number
    of the span each is in: its line, or the part of it between two quotes (:data:`QUOTES`)."""
    found: list[str] = []
    lines: list[int] = []
    for number, line in enumerate(text.translate(_QUOTE_BREAKS).split("\n")):
        for word in words(line):
            found.append(word)
            lines.append(number)
    return found[-MAX_RAW_WORDS:], lines[-MAX_RAW_WORDS:]


def _deletions(word: str) -> list[str]:
    return [word[:i] + word[i + 1 :] for i in range(len(word))]


class Index:
    """The catalog's wordings as sequences of weighted words, and where each word occurs.

    ``sequences[k]`` is wording ``k``'s words in order, a placeholder as ``None``, words that
    weigh nothing left out. ``export.py`` ships these to the browser's matcher as they are.
    """

    __slots__ = (
        "boilerplate",
        "by_deletion",
        "common",
        "holes_before",
        "occurrences",
        "sequences",
        "unknown_weight",
        "weight_before",
        "weights",
        "wording_words",
        "wordings",
    )

    def __init__(self, catalog: Catalog) -> None:
        import math  # an extension module: its import is kept off the exact path

        self.wordings: list[tuple[Entry, Wording]] = [
            (entry, wording) for entry in catalog for wording in entry.wordings
        ]
        raw: list[list[str | None]] = []
        used_by: dict[str, set[str]] = {}
        boilerplate = self.boilerplate = [list(words(text)) for text in BOILERPLATE]
        for entry, wording in self.wordings:
            sequence: list[str | None] = []
            for token in wording.template.tokens:
                if isinstance(token, str):
                    sequence += words(token)
                else:
                    sequence.append(None)
            sequence = _without_boilerplate(sequence, boilerplate)
            raw.append(sequence)
            for word in sequence:
                if word is not None:
                    used_by.setdefault(word, set()).add(entry.id)
        total = len({entry.id for entry, _ in self.wordings})
        self.weights: dict[str, int] = {}
        self.common: set[str] = set()  # catalog words that weigh nothing
        for word, users in used_by.items():
            if len(users) * COMMON_SHARE <= total:
                self.weights[word] = round(100 * math.log(total / len(users)))
            else:
                self.common.add(word)
        self.sequences = [[w for w in seq if w is None or w in self.weights] for seq in raw]
        self.wording_words = [{w for w in seq if w is not None} for seq in self.sequences]
        # A word no entry uses weighs as one only a single entry uses: the rarest.
        self.unknown_weight = round(100 * math.log(total)) if total else 0
        # Prefix sums: the weight of a wording's words before position j, and its placeholders.
        self.weight_before: list[list[int]] = []
        self.holes_before: list[list[int]] = []
        for sequence in self.sequences:
            weight, holes = [0], [0]
            for word in sequence:
                weight.append(weight[-1] + (0 if word is None else self.weights[word]))
                holes.append(holes[-1] + (word is None))
            self.weight_before.append(weight)
            self.holes_before.append(holes)
        self.occurrences: dict[str, list[tuple[int, int]]] = {}
        for k, sequence in enumerate(self.sequences):
            for position, word in enumerate(sequence):
                if word is not None:
                    self.occurrences.setdefault(word, []).append((k, position))
        self.by_deletion: dict[str, list[str]] = {}
        for word in self.weights:
            if len(word) >= TYPO_MIN_LENGTH - 1:
                for deleted in _deletions(word):
                    self.by_deletion.setdefault(deleted, []).append(word)

    def similar(self, word: str) -> list[str]:
        """Catalog words one edit from ``word`` (not ``word`` itself), in a stable order."""
        if not TYPO_MIN_LENGTH <= len(word) <= TYPO_MAX_LENGTH:
            return []
        found: list[str] = []
        for candidate in (
            *self.by_deletion.get(word, ()),  # the paste dropped a letter
            *(d for d in _deletions(word) if d in self.weights),  # the paste added one
            *(c for d in _deletions(word) for c in self.by_deletion.get(d, ())),  # changed one
        ):
            if candidate != word and candidate not in found:
                found.append(candidate)
        return found


def _without_boilerplate(sequence: Sequence[str | None], runs: list[list[str]]) -> list[str | None]:
    """``sequence`` without the word runs of :data:`BOILERPLATE`, in a wording or a paste."""
    kept: list[str | None] = []
    i = 0
    while i < len(sequence):
        run = next((r for r in runs if list(sequence[i : i + len(r)]) == r), None)
        if run is None:
            kept.append(sequence[i])
            i += 1
        else:
            i += len(run)
    return kept


def _kept_positions(sequence: Sequence[str | None], runs: list[list[str]]) -> list[int]:
    """The positions of ``sequence`` outside the word runs of :data:`BOILERPLATE`."""
    kept: list[int] = []
    i = 0
    while i < len(sequence):
        run = next((r for r in runs if list(sequence[i : i + len(r)]) == r), None)
        if run is None:
            kept.append(i)
            i += 1
        else:
            i += len(run)
    return kept


_INDEXES: dict[int, tuple[Catalog, Index]] = {}


def index_of(catalog: Catalog) -> Index:
    """The catalog's index, built on first use (the exact path never needs it)."""
    cached = _INDEXES.get(id(catalog))
    if cached is None or cached[0] is not catalog:
        cached = (catalog, Index(catalog))
        _INDEXES[id(catalog)] = cached
    return cached[1]


class Fragment:
    """A wording whose rare words a stretch of the paste holds, in order, nearly."""

    __slots__ = ("anchors", "coverage", "end", "entry", "evidence", "positions", "score", "wording")

    def __init__(
        self,
        entry: Entry,
        wording: Wording,
        score: int,
        coverage: float,
        positions: list[int],
        evidence: int,
    ) -> None:
        self.entry = entry
        self.wording = wording
        self.score = score  # alignment score: rare words matched, less gaps
        self.coverage = coverage  # share of the wording's weight matched, below 1
        self.positions = positions  # the paste words chained (positions among the words kept)
        self.anchors = len(positions)
        self.end = positions[-1]  # the paste word where the fragment ends
        self.evidence = evidence  # per cent: see evidence()


def _anchors(index: Index, pasted: list[str]) -> list[list[tuple[int, int, int]]]:
    """For each paste word, its (wording, position, weight) occurrences, exact or one edit off.
    A number anchors nothing: it is a value, as in :func:`evidence` ("pytorch 1.1.0" in a
    sentence of the user's is no fragment of lr-scheduler-order's "In PyTorch 1.1.0 and later")."""
    memo: dict[str, list[tuple[int, int, int]]] = {}
    found = []
    for word in pasted:
        hits = memo.get(word)
        if hits is None and _is_number(word):
            hits = memo[word] = []
        if hits is None:
            hits = [(k, j, index.weights[word]) for k, j in index.occurrences.get(word, ())]
            for similar in index.similar(word):
                weight = index.weights[similar] * TYPO_QUARTERS // 4
                hits += [(k, j, weight) for k, j in index.occurrences.get(similar, ())]
            memo[word] = hits
        found.append(hits)
    return found


def _is_code_word(word: str) -> bool:
    return "_" in word or any("0" <= char <= "9" for char in word)


def _is_number(word: str) -> bool:
    return all("0" <= char <= "9" for char in word)


def kept_words(
    index: Index, pasted_words: list[str], lines: list[int]
) -> tuple[list[str], list[int]]:
    """The paste words the alignment reads, and their lines: the last MAX_WORDS that are not
    boilerplate nor common in the catalog. Unknown words stay (a typo, a value, or another
    message's words)."""
    kept = [
        i
        for i in _kept_positions(pasted_words, index.boilerplate)
        if pasted_words[i] not in index.common
    ][-MAX_WORDS:]
    return [pasted_words[i] for i in kept], [lines[i] for i in kept]


def fragments(pasted_words: list[str], lines: list[int], catalog: Catalog) -> list[Fragment]:
    """The best chain of anchors per wording, strongest first, as long as it is strong enough
    and explains enough of its lines (:func:`evidence`). ``lines``: each word's line."""
    index = index_of(catalog)
    pasted, pasted_lines = kept_words(index, pasted_words, lines)
    anchors = _anchors(index, pasted)
    # A chain state: (paste position, wording position, score, matched weight, anchors count,
    # the state it continues); states are kept in one list, so that a chain can be read back.
    chain: list[tuple[int, int, int, int, int, int]] = []
    recent: dict[int, list[int]] = {}  # wording -> its states within reach, oldest first
    best: dict[int, int] = {}  # wording -> its best state
    for i, hits in enumerate(anchors):
        for k, j, weight in hits:
            weight_before, holes_before = index.weight_before[k], index.holes_before[k]
            states = recent.setdefault(k, [])
            while states and chain[states[0]][0] < i - MAX_PASTE_GAP:
                del states[0]
            score, matched, count, parent = weight, weight, 1, -1
            for state in states:
                pi, pj, pscore, pmatched, pcount, _ = chain[state]
                if pi >= i or not (pj < j <= pj + MAX_WORDING_GAP):
                    continue
                cost = (weight_before[j] - weight_before[pj + 1]) // 2
                holes = holes_before[j] - holes_before[pj + 1]
                extra = i - pi - 1 - holes * PLACEHOLDER_WORDS
                if extra > 0:
                    cost += extra * INSERT_COST
                if pscore + weight - cost > score:
                    score, matched, count = pscore + weight - cost, pmatched + weight, pcount + 1
                    parent = state
            states.append(len(chain))
            chain.append((i, j, score, matched, count, parent))
            previous = best.get(k)
            if previous is None or score >= chain[previous][2]:
                best[k] = len(chain) - 1
    found = []
    costs: dict[str, int] = {}  # what each paste word weighs against any wording
    for k, state in best.items():
        _, _, score, matched, count, _ = chain[state]
        if score < MIN_SCORE or count < MIN_ANCHORS:
            continue
        steps = []
        while state != -1:
            steps.append(chain[state][:2])
            state = chain[state][5]
        steps.reverse()
        if count < PLAIN_CHAIN_ANCHORS and not any(_is_code_word(pasted[i]) for i, _ in steps):
            continue
        share = evidence(index, k, pasted, pasted_lines, steps, matched, costs)
        needed = STRONG_EVIDENCE_PERCENT if score >= STRONG_SCORE else EVIDENCE_PERCENT
        total = index.weight_before[k][-1]
        if matched * 100 < SLIVER_PERCENT * total:
            needed = 100
        if share < needed:
            continue
        entry, wording = index.wordings[k]
        # Integer arithmetic, so that the browser's matcher computes the very same number.
        coverage = min(matched * 1000 // total, 999) / 1000 if total else 0.0
        found.append(Fragment(entry, wording, score, coverage, [i for i, _ in steps], share))
    found.sort(key=lambda f: (f.score, f.coverage, f.end), reverse=True)
    return found


def evidence(
    index: Index,
    k: int,
    pasted: list[str],
    lines: list[int],
    steps: list[tuple[int, int]],
    matched: int,
    costs: dict[str, int] | None = None,
) -> int:
    """The share (per cent) of the evidence on the lines a chain spans that is for wording
    ``k``: the weight it chained, against the weight of the words there it does not explain.

    Not explained: a word of another wording (its weight), a word the catalog does not know
    (``unknown_weight``: rarer than any), a word of this wording out of the chain's order
    (half its weight). Not counted: a value (a word with a digit; words between two anchors
    where the wording has a placeholder), an exception class (``RuntimeError``). A fragment
    typed alone is nearly all evidence; three rare words inside another message are not. A
    chain of PREFIX_ANCHORS from the wording's first rare word is read up to its end: the rest
    of its line is the user's own words, as after a message cut off."""
    first, last = lines[steps[0][0]], lines[steps[-1][0]]
    own = index.wording_words[k]
    holes_before = index.holes_before[k]
    chained = {i for i, _ in steps}
    free: set[int] = set()  # paste positions a placeholder between two anchors may hold
    for (pi, pj), (i, j) in itertools.pairwise(steps):
        if holes_before[j] - holes_before[pj + 1] > 0:
            free.update(range(pi + 1, i))
    against = 0
    start = steps[0][0]
    while start > 0 and lines[start - 1] >= first:
        start -= 1
    end = steps[-1][0]
    # A chain of PREFIX_ANCHORS from the wording's first word is a message's start: what follows
    # it on its line is the user's ("Trying to backward through the graph a second time, ...").
    if index.weight_before[k][steps[0][1]] or len(steps) < PREFIX_ANCHORS:
        while end + 1 < len(lines) and lines[end + 1] <= last:
            end += 1
    for position in range(start, end + 1):
        if position in chained or position in free:
            continue
        word = pasted[position]
        cost = costs.get(word) if costs is not None else None
        if cost is None:
            cost = _against(index, word)
            if costs is not None:
                costs[word] = cost
        if not cost:
            continue
        if word in own:
            cost //= 2  # the wording's, out of the chain's order: half the evidence
        elif word not in index.weights and any(other in own for other in index.similar(word)):
            cost = 0  # a typo of the wording's word: met in the chain or not
        against += cost
    return matched * 100 // (matched + against)


def _against(index: Index, word: str) -> int:
    """The weight of a paste word against a wording that does not hold it."""
    if any(c.isdigit() for c in word) or word.endswith(_CLASS_ENDINGS):
        return 0
    weight = index.weights.get(word)
    if weight is not None:
        return weight
    similar = index.similar(word)
    if not similar:
        return index.unknown_weight
    return max(index.weights[other] for other in similar) * TYPO_QUARTERS // 4


_CLASS_ENDINGS = tuple(ending.lower() for ending in EXCEPTION_ENDINGS)


def near_misses(pasted_words: list[str], catalog: Catalog) -> list[tuple[Entry, float]]:
    """Entries whose wording's rare words the paste mostly holds, in any order: (entry, share).

    Weighing words by rarity keeps a short entry from winning on a few common words."""
    index = index_of(catalog)
    present = set()
    pasted = [w for w in _without_boilerplate(pasted_words, index.boilerplate) if w is not None]
    for word in set(pasted[-MAX_WORDS:]):
        if word in index.weights:
            present.add(word)
        present.update(index.similar(word))
    shares: dict[str, tuple[Entry, int]] = {}
    for k, sequence in enumerate(index.sequences):
        entry = index.wordings[k][0]
        total = sum(index.weights[w] for w in sequence if w is not None)
        if not total:
            continue
        held = sum(index.weights[w] for w in sequence if w is not None and w in present)
        share = held * 100 // total
        if held * 100 < NEAR_MISS_RARE_PERCENT * index.unknown_weight or share < NEAR_MISS_PERCENT:
            continue
        if share > shares.get(entry.id, (entry, -1))[1]:
            shares[entry.id] = (entry, share)
    found = sorted(shares.values(), key=lambda pair: pair[1], reverse=True)
    return [(entry, share / 100) for entry, share in found]
