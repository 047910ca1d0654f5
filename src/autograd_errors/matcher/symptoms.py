"""A silent pitfall found by how users meet it: their own words for it, or Python's error at a
line that reads its culprit. Never an exact match of a message: neither is torch's.

- **Words.** ``symptoms`` in a pitfall's record, with its title, are phrases users write for it
  (".grad is None after backward()", "loss is nan after a few epochs"). A short paste that
  holds every content word of one of them (STOPWORDS aside, a plural as its singular), no
  negation the phrase lacks ("the grad is not None"), and is mostly the pitfall's words
  (FOCUS_PERCENT of its content words), is a symptom match; not a paste with an exception
  line (``AssertionError: grad should not be None`` is a message of torch's that no entry
  explains, not a user's description).
- **Errors.** ``[[symptom_error]]``: the paste's error line is ``exception`` holding each of
  ``contains``, and the line that raised it (the traceback's code line, IPython's ``--->``
  line, or the line above) reads the attribute ``code``: ``p.grad.data.zero_()`` raising
  ``AttributeError: 'NoneType' object has no attribute 'data'`` is ``grad-is-none``; the same
  error from ``self.layer.weight.data`` is not.
  Told without its class ("It says 'NoneType' object has no attribute 'add_'", the code
  reading ``.grad`` on its line or the line above), in a paste that names no exception class,
  it is the same symptom (:func:`by_told_error`), found only when no message matched.
- **Other programs' words** (``[[symptom_message]]``): a training loop's own check of the
  symptom ("Loss is nan, stopping training"), a log's line (``train_loss: nan``), each with
  the program that prints it and a source; found only when no message matched.
- **Descriptions** (:func:`described`). A longer report that quotes no message ("In my case,
  when I use backward() on maximum score its gradients are None.") is no match: prose is
  too loose to be an answer (a blind sample's "JIT model could return 'NaN' gradient" is a
  TorchScript bug). Its sentences that hold a symptom phrase, in order and nearly together,
  not negated ("without NaN loss value"), point to the pages about what they describe,
  offered as such, apart from matches.

Linear in the paste: each kind of symptom reads its lines once.
"""

from __future__ import annotations

import re

from autograd_errors.catalog.model import Wording
from autograd_errors.catalog.releases import ReleaseRange
from autograd_errors.matcher.fuzzy import MAX_LINES, QUOTES, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.catalog.model import Catalog, Entry

#: Words that say nothing of a symptom: a paste's and a phrase's words without them are compared.
STOPWORDS = (
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "my", "i", "me",
    "we", "our", "you", "your", "it", "its", "this", "that", "these", "those", "of", "to", "in",
    "on", "at", "for", "with", "and", "or", "but", "after", "before", "during", "when", "why",
    "how", "what", "does", "do", "did", "get", "gets", "got", "getting", "has", "have", "had",
    "all", "some", "any", "still", "always", "just", "so", "very", "please", "help", "issue",
    "problem", "question", "error", "bug", "s", "t",
)  # fmt: skip
#: A symptom paste is short: a title or a sentence, not a log.
MAX_WORDS = 16
#: At least this share (per cent) of the paste's content words are the pitfall's.
FOCUS_PERCENT = 50
#: A description's phrase: its content words in its order, at most this many other content
#: words among them ("the gradient becomes nan", "gradients are coming up as None"), two at
#: least.
PHRASE_SLACK = 3
#: Words that negate a phrase among its words or just before them ("without NaN loss value",
#: "grad is not None"); ``doesn't`` is read as ``doesn`` and ``t``.
NEGATIONS = (
    "no", "not", "never", "without", "nor", "non", "isn", "aren", "wasn", "weren", "doesn",
    "don", "didn", "won", "cannot", "nothing",
)  # fmt: skip
#: How many words before a phrase a negation reaches.
NEGATION_REACH = 2
#: Where a description's sentences end: a full stop before a space (not ``p.grad``), a line's end.
SENTENCE_ENDS = ".!?;\u3002\uff01\uff1f\uff1b"
#: How far above an error line its raising line may be (IPython shows context lines below it).
RAISING_LINES = 12
#: What marks IPython's raising line.
ARROW = "--->"
_STOP = frozenset(STOPWORDS)
_NEGATIONS = frozenset(NEGATIONS)
_CARETS = frozenset("^~ \t")


def _normal(word: str) -> str:
    """A word as symptoms compare it: a plural as its singular ("gradients", "epochs")."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> list[str]:
    """The words of ``text`` that say something, normalised."""
    return [_normal(word) for word in words(text) if word not in _STOP]


class Symptom:
    """A pitfall's phrase or error found in a paste: the wording it is shown as."""

    __slots__ = ("entry", "matched", "text")

    def __init__(self, entry: Entry, text: str, matched: int) -> None:
        self.entry = entry
        self.text = text
        self.matched = matched  # content words matched: more is a closer description

    @property
    def wording(self) -> Wording:
        """The symptom as a wording of its entry, for the renderers: never torch's."""
        return Wording(
            "symptom", self.text, self.entry.exception, ReleaseRange(None, None), "", form="symptom"
        )


def by_words(text: str, catalog: Catalog) -> list[Symptom]:
    """The pitfalls whose symptom phrase the paste is: best first (ties all listed)."""
    pasted = content_words(text)
    if not pasted or len(pasted) > MAX_WORDS or _names_an_exception(text):
        return []  # an error message no entry matched is no description of a pitfall
    present = set(pasted)
    negated = _NEGATIONS & present  # "the grad is not None": no ".grad is None"
    found: list[tuple[int, Symptom]] = []
    for entry in catalog:
        if not entry.symptoms:
            continue
        phrases = [entry.title, *entry.symptoms]
        vocabulary = {word for phrase in phrases for word in content_words(phrase)}
        focus = sum(1 for word in pasted if word in vocabulary) * 100 // len(pasted)
        if focus < FOCUS_PERCENT:
            continue
        best: tuple[int, str] | None = None
        for phrase in phrases:
            wanted = set(content_words(phrase))
            if (
                wanted
                and wanted <= present
                and negated <= wanted
                and (best is None or len(wanted) > best[0])
            ):
                best = (len(wanted), phrase)
        if best is not None:
            found.append((focus, Symptom(entry, best[1], best[0])))
    found.sort(key=lambda pair: (pair[1].matched, pair[0]), reverse=True)
    if not found:
        return []
    top = (found[0][1].matched, found[0][0])
    return [symptom for focus, symptom in found if (symptom.matched, focus) == top]


def described(text: str, catalog: Catalog) -> list[Symptom]:
    """The pitfalls a report that quotes no message describes, by its sentences: most words
    matched first; a tie, the pitfall more of the sentence's words are about ("nan loss
    occurs when training": the NaN loss's title and phrases hold "loss" and "training", the
    NaN gradients' only "training"); then the catalog's order. Not matches: the pages about
    what it says."""
    if _names_an_exception(text):
        return []
    found: dict[str, tuple[Symptom, int]] = {}
    vocabularies: dict[str, set[str]] = {}
    phrases = []
    for entry in catalog:
        if not entry.symptoms:
            continue
        said = [content_words(phrase) for phrase in (entry.title, *entry.symptoms)]
        vocabularies[entry.id] = {word for phrase in said for word in phrase}
        phrases += [
            (entry, phrase, ordered)
            for phrase, ordered in zip((entry.title, *entry.symptoms), said, strict=True)
            if len(ordered) >= 2
        ]
    for sentence in sentences(text):
        raw = [_normal(word) for word in words(sentence)]
        content = content_words(sentence)
        for entry, phrase, ordered in phrases:
            if _described_in(ordered, raw):
                focus = sum(1 for word in content if word in vocabularies[entry.id])
                kept = found.get(entry.id)
                if kept is None or (len(ordered), focus) > (kept[0].matched, kept[1]):
                    found[entry.id] = (Symptom(entry, phrase, len(ordered)), focus)
    ranked = sorted(found.values(), key=lambda pair: (pair[0].matched, pair[1]), reverse=True)
    return [symptom for symptom, _ in ranked]


def sentences(text: str) -> list[str]:
    """``text`` cut at its lines' ends and at SENTENCE_ENDS followed by a space or the end."""
    out: list[str] = []
    for line in text.split("\n"):
        start = 0
        for at, char in enumerate(line):
            if char in SENTENCE_ENDS and (at + 1 == len(line) or line[at + 1].isspace()):
                out.append(line[start:at])
                start = at + 1
        out.append(line[start:])
    return [sentence for sentence in out if sentence.strip()]


def _described_in(phrase: list[str], raw: list[str]) -> bool:
    """Whether the sentence's words ``raw`` hold ``phrase`` in its order, at most PHRASE_SLACK
    other content words among its words, and no negation among them or just before them."""
    for start, word in enumerate(raw):
        before = raw[max(0, start - NEGATION_REACH) : start]
        if word != phrase[0] or _NEGATIONS.intersection(before):
            continue
        at, others, position = 1, 0, start + 1
        while at < len(phrase) and position < len(raw) and others <= PHRASE_SLACK:
            current = raw[position]
            if current == phrase[at]:
                at += 1
            elif current in _NEGATIONS:
                break
            elif current not in _STOP:
                others += 1
            position += 1
        if at == len(phrase) and others <= PHRASE_SLACK:
            return True
    return False


def by_error(cleaned: str, catalog: Catalog) -> Symptom | None:
    """The pitfall whose symptom error the paste ends with, raised at a line reading its
    attribute."""
    lines = cleaned.split("\n")[-MAX_LINES:]
    errors = [(entry, error) for entry in catalog for error in entry.symptom_errors]
    if not errors:
        return None
    for number in range(len(lines) - 1, -1, -1):
        found = _error_on(lines[number])
        if found is None:
            continue
        exception, message, before = found
        for entry, error in errors:
            if exception.rsplit(".", 1)[-1] == error.exception and all(
                phrase in message for phrase in error.contains
            ):
                raising = before if reads(before, error.code) else _raising_line(lines, number)
                if raising is not None and reads(raising, error.code):
                    return Symptom(entry, error.message, len(error.contains))
        return None  # the paste's last error is another
    return None


def by_told_error(cleaned: str, catalog: Catalog) -> Symptom | None:
    """The pitfall whose symptom error a report tells in its own words, without the error's
    class: "I got an error in d.grad.add_(g). It says 'NoneType' object has no attribute
    'add_'", the line that tells it or the line above reading the attribute ``code``. Case and
    quotes are the user's (``Nonetype Object has no attribute 'data'``); a paste that names an
    exception class is read by :func:`by_error` alone."""
    if _names_an_exception(cleaned):
        return None
    errors = [
        (entry, error, [_folded(phrase) for phrase in error.contains])
        for entry in catalog
        for error in entry.symptom_errors
    ]
    if not errors:
        return None
    lines = cleaned.split("\n")[-MAX_LINES:]
    for number in range(len(lines) - 1, -1, -1):
        told = _folded(lines[number])
        for entry, error, phrases in errors:
            if all(phrase in told for phrase in phrases) and (
                reads(lines[number], error.code) or reads(_above(lines, number), error.code)
            ):
                return Symptom(entry, error.message, len(error.contains))
    return None


def by_message(cleaned: str, catalog: Catalog) -> Symptom | None:
    """The pitfall whose symptom another program reported in the paste, in that program's
    words (``[[symptom_message]]``): its words on one line, as printed, or a line matching
    its pattern (a training log's ``train_loss: nan``) in a paste that names no exception
    class (an error there is what went wrong, perhaps the NaN's cause). Several: the one
    the paste shows first ("vf_loss:nan ... grad_norm:nan" is a NaN loss)."""
    messages = [(entry, message) for entry in catalog for message in entry.symptom_messages]
    if not messages:
        return None
    text = "\n".join(cleaned.split("\n")[-MAX_LINES:])
    logs_count = not _names_an_exception(text)
    first: tuple[int, Symptom] | None = None
    for entry, message in messages:
        if message.contains:
            at = _line_holding(text, message.contains)
        else:
            found = _pattern(message.pattern).search(text) if logs_count else None
            at = -1 if found is None else found.start()
        if at >= 0 and (first is None or at < first[0]):
            first = (at, Symptom(entry, message.message, len(message.contains) or 1))
    return None if first is None else first[1]


def _line_holding(text: str, parts: tuple[str, ...]) -> int:
    """Where the first line of ``text`` that holds every one of ``parts`` starts, or -1."""
    start = 0
    for line in text.split("\n"):
        if all(part in line for part in parts):
            return start
        start += len(line) + 1
    return -1


def _pattern(pattern: str) -> re.Pattern[str]:
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = re.compile(pattern, re.IGNORECASE)
    return compiled


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _above(lines: list[str], number: int) -> str:
    """The last line before ``lines[number]`` that is not blank (a paragraph's break aside)."""
    for line in lines[max(0, number - RAISING_LINES) : number][::-1]:
        if line.strip():
            return line
    return ""


#: What a user may put around an error's words, or leave out of them, telling it.
TOLD_QUOTES = "'\"`\u2018\u2019\u201c\u201d"
_TOLD_QUOTES = str.maketrans(dict.fromkeys(TOLD_QUOTES))


def _folded(text: str) -> str:
    return text.lower().translate(_TOLD_QUOTES)


def _error_on(line: str) -> tuple[str, str, str] | None:
    """The exception class and message a line shows, and what precedes them on it: the line
    itself is the error (``AttributeError: ...``), or a sentence quotes it (``The line
    w1.grad.data.zero_() raised an "AttributeError: ..."``, the code before it)."""
    starts = [0]
    for quote in QUOTES:
        at = line.find(quote)
        while at != -1:
            starts.append(at + 1)
            at = line.find(quote, at + 1)
    for start in starts:
        exception, colon, message = line[start:].strip().partition(":")
        if colon and _is_exception_line(exception):
            return exception, message, line[:start]
    return None


def _names_an_exception(text: str) -> bool:
    """Whether a line of ``text`` opens with an exception or warning class and a colon."""
    for line in text.split("\n"):
        name, colon, _ = line.strip().partition(":")
        if colon and _is_exception_line(name):
            return True
    return False


def _is_exception_line(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return (
        bool(last)
        and last.isidentifier()
        and last[0].isupper()
        and (last.endswith(("Error", "Exception", "Warning")))
    )


def _raising_line(lines: list[str], error: int) -> str | None:
    """The code line that raised the error at ``lines[error]``: IPython's arrow line if it
    shows one, else the line above (past Python 3.11's carets and blank lines)."""
    first = max(0, error - RAISING_LINES)
    for number in range(error - 1, first - 1, -1):
        if lines[number].lstrip().startswith(ARROW):
            return lines[number]
    for number in range(error - 1, first - 1, -1):
        line = lines[number]
        if line.strip() and not set(line) <= _CARETS:
            return line
    return None


def reads(line: str, attribute: str) -> bool:
    """Whether a code line reads ``attribute`` (``.grad``) of something: ``p.grad.data``,
    ``lr * w.grad``, not ``p.grad_fn`` nor ``self.gradients``."""
    at = line.find(attribute)
    while at != -1:
        after = line[at + len(attribute) : at + len(attribute) + 1]
        before = line[at - 1 : at]
        if (not after or not (after.isalnum() or after == "_")) and (
            before.isalnum() or before in "_)]"
        ):
            return True
        at = line.find(attribute, at + 1)
    return False
