"""The catalog's records as objects: an entry, its wordings, hints and common causes, their texts
in each language; the non-autograd errors; the whole catalog.

A record holds every fact about one error that is not code: its wordings across torch releases
(message templates, release ranges, sources), why torch raises it, how to fix it, its section and
related entries. :mod:`.schema` makes these objects from the TOML records and checks them;
:mod:`.loader` reads the records (through :mod:`.cache`).
"""

from __future__ import annotations

from autograd_errors.catalog.releases import ReleaseRange
from autograd_errors.catalog.translations import (
    LANGUAGES,
    MissingTranslation,
    Translation,
    hint_key,
)
from autograd_errors.messages.templates import Template

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from autograd_errors.catalog.symptoms import SymptomError, SymptomMessage

#: Where the site puts the entry pages, relative to its root.
PAGES_DIR = "errors"


# The record classes are hand-written ``__slots__`` classes, not dataclasses: importing
# ``dataclasses`` (and the ``inspect`` and ``re`` it pulls in) would cost ``explain`` a good part of
# its start-up, which must stay close to a bare interpreter's (see benchmarks/cold_start.py).


class Wording:
    """One way torch has worded an entry's message, and the releases that print it."""

    __slots__ = (
        "_template",
        "anchor",
        "context",
        "example",
        "exception",
        "form",
        "message",
        "note",
        "releases",
        "source",
        "variant",
    )

    def __init__(
        self,
        variant: str,
        message: str,
        exception: str,
        releases: ReleaseRange,
        source: str,
        note: str = "",
        example: str = "",
        form: str = "main",
        anchor: str | None = None,
        context: bool = False,
    ) -> None:
        self.variant = variant
        self.message = message
        self.exception = exception
        self.releases = releases
        self.source = source  # where this wording is documented: a PyTorch source or a thread
        self.note = note
        self.example = example  # one real instance, as printed, with its prefix
        # Wordings of one form are successive versions of one message, printed by one code
        # path; an entry whose error torch words differently in different situations (a
        # leaf, anomaly mode on) has a form for each.
        self.form = form
        # A wording that only accompanies a main error (anomaly mode's "Error detected in X",
        # printed with the error whose backward failed): a match of its own only when the paste
        # holds no main error.
        self.context = context
        # Parsing every template would cost explain most of its start-up; a wording whose
        # anchor (the text a match must start with) is known is parsed when it is first needed.
        self._template: Template | None = None
        if anchor is None:
            self._template = Template(message)
            anchor = self._template.anchor
        self.anchor = anchor

    @property
    def template(self) -> Template:
        if self._template is None:
            self._template = Template(self.message)
        return self._template

    def __repr__(self) -> str:
        return f"Wording({self.variant!r}, {self.message!r})"


class Hint:
    """Advice for a particular value of a captured field (``op`` starting with ``Relu``)."""

    __slots__ = ("field", "prefix", "text")

    def __init__(self, field: str, prefix: str, text: str) -> None:
        self.field = field
        self.prefix = prefix
        self.text = text


class Signs:
    """What shows a common cause in a paste: the record's ``[common_cause.signs]`` table.

    - ``code``: text in the code of the user's frames that the traceback shows (spaces are
      ignored and quotes are all ``"``; parts joined by ``...`` between spaces must appear in
      that order on one line: ``"-= ... .grad"``);
    - ``files``: a part of a frame's file (``"/peft/"``: the traceback goes through PEFT);
    - ``fields``: values of the message's captured fields that this cause gives, by field, as
      prefixes (``op = ["igamma"]``; ``op`` is the operation behind a ``node``), case ignored;
    - ``forms``: the forms of the message this cause gives (a warning's own wording);
    - ``required``: the cause is only said where a sign shows it (it needs a setting a paste
      must show, as checkpointing under LoRA, or is about one function), never as the most
      common cause;
    - ``unseen``: for a cause with no sign, why no paste shows it (its code is in lines the
      traceback does not print, and no thread's paste shows it either): the suite asks every
      cause of an entry with several causes for signs or this reason."""

    __slots__ = ("code", "fields", "files", "forms", "required", "unseen")

    def __init__(
        self,
        code: Sequence[str] = (),
        files: Sequence[str] = (),
        fields: Mapping[str, Sequence[str]] | None = None,
        forms: Sequence[str] = (),
        required: bool = False,
        unseen: str = "",
    ) -> None:
        self.code = tuple(code)
        self.files = tuple(files)
        self.fields = {name: tuple(values) for name, values in (fields or {}).items()}
        self.forms = tuple(forms)
        self.required = required
        self.unseen = unseen

    def __bool__(self) -> bool:
        return bool(self.code or self.files or self.fields or self.forms)

    def as_json(self) -> dict[str, object]:
        return {
            "code": list(self.code),
            "files": list(self.files),
            "fields": {name: list(values) for name, values in self.fields.items()},
            "forms": list(self.forms),
            "required": self.required,
        }


class Cause:
    """One common way users run into an entry, with its fix; an entry lists them most common
    first. The gallery script executes each: the lines tagged ``# cause: <id>`` must raise the
    entry's own message, the lines tagged ``# fix: <id>`` must run and check their gradients.

    ``releases``: the torch releases on which the cause leads to the entry's message (``since``
    and ``until`` in the record); elsewhere its trigger is not judged (torch stopped raising
    there, or raises another entry's message), and the pages say which releases it holds for."""

    # ``signs``: what shows the cause in a paste (Signs). (Not in the docstring above: that is
    # the API page's text, translated in locales/.)

    __slots__ = ("fix", "id", "releases", "signs", "sources", "text")

    def __init__(
        self,
        id: str,
        text: str,
        fix: str,
        sources: tuple[str, ...] = (),
        releases: ReleaseRange | None = None,
        signs: Signs | None = None,
    ) -> None:
        self.id = id
        self.text = text  # one line, in words
        self.fix = fix
        self.sources = sources  # threads where users hit it, or the PyTorch source of a claim
        self.releases = releases or ReleaseRange(None, None)
        self.signs = signs if signs is not None else Signs()  # a Signs of unseen alone is falsy

    def __repr__(self) -> str:
        return f"Cause({self.id!r})"


class Retirement:
    """For a message current torch no longer raises: the last release known to raise it."""

    __slots__ = ("last_release", "replaced_by")

    def __init__(self, last_release: str, replaced_by: str) -> None:
        self.last_release = last_release
        self.replaced_by = replaced_by


class Entry:
    """One error, warning or pitfall the reference explains."""

    __slots__ = (
        "cause",
        "causes",
        "details",
        "docs",
        "exception",
        "fix",
        "hints",
        "id",
        "kind",
        "needs",
        "related",
        "retired",
        "section",
        "symptom_errors",
        "symptom_messages",
        "symptoms",
        "title",
        "translations",
        "wordings",
    )

    def __init__(
        self,
        *,
        id: str,
        kind: str,
        title: str,
        exception: str,
        section: str,
        cause: str,
        fix: str,
        details: tuple[str, ...],
        hints: tuple[Hint, ...],
        causes: tuple[Cause, ...],
        related: tuple[str, ...],
        wordings: tuple[Wording, ...],
        retired: Retirement | None = None,
        needs: str | None = None,
        docs: tuple[str, ...] = (),
        symptoms: tuple[str, ...] = (),
        symptom_errors: tuple[SymptomError, ...] = (),
        symptom_messages: tuple[SymptomMessage, ...] = (),
    ) -> None:
        self.id = id
        self.kind = kind  # "error" (raises or warns) or "pitfall" (silent)
        self.title = title
        self.exception = exception
        self.section = section
        self.cause = cause
        self.fix = fix
        self.details = details
        self.hints = hints
        self.causes = causes  # most common first
        self.related = related
        self.wordings = wordings
        self.retired = retired
        self.needs = needs  # hardware the repro needs ("cuda"), or None: any machine
        self.docs = docs  # the PyTorch documentation that explains the mechanism
        # How users describe a pitfall, matched by words (never as a message: they are the
        # users' words, not torch's); and the errors they meet it by.
        self.symptoms = symptoms
        self.symptom_errors = symptom_errors
        self.symptom_messages = symptom_messages  # other programs' words for the symptom
        #: By language: the record's [zh_CN] table, checked (see :mod:`.translations`).
        self.translations: dict[str, Translation] = {}

    def __repr__(self) -> str:
        return f"Entry({self.id!r})"

    @property
    def path(self) -> str:
        """The entry's page, relative to the site root."""
        return f"{PAGES_DIR}/{self.section}/{self.id}.html"

    @property
    def is_pitfall(self) -> bool:
        return self.kind == "pitfall"

    @property
    def current(self) -> Wording:
        """The wording the newest torch prints (for a retired entry, the last one it printed)."""
        if not self.wordings:
            raise ValueError(f"{self.id} is a pitfall: it has no message")
        own = [w for w in self.wordings if w.exception == self.exception]
        return next((w for w in own if w.releases.current), own[0] if own else self.wordings[0])

    def wording(self, variant: str) -> Wording:
        return next(w for w in self.wordings if w.variant == variant)

    def localized(self, language: str, *, fallback: bool = False) -> Localized:
        """The entry's texts in ``language`` ("en" or "zh_CN"); with ``fallback``, English
        stands in for a text not yet translated (see :class:`Localized`)."""
        return Localized(self, language, fallback=fallback)


def english_texts(entry: Entry) -> dict[str, str]:
    """Every text of ``entry`` a translation translates, by key."""
    texts = {"title": entry.title, "cause": entry.cause, "fix": entry.fix}
    for n, sentence in enumerate(entry.details):
        texts[f"details.{n}"] = sentence
    for cause in entry.causes:
        texts[f"common_cause.{cause.id}.text"] = cause.text
        texts[f"common_cause.{cause.id}.fix"] = cause.fix
    for hint in entry.hints:
        texts[f"hint.{hint_key(hint.field, hint.prefix)}"] = hint.text
    for wording in entry.wordings:
        if wording.note:
            texts[f"wording.{wording.variant}.note"] = wording.note
    return texts


class Localized:
    """An entry's texts in one language. Without ``fallback``, a text not translated raises
    :class:`MissingTranslation`; with it, the English text stands in (the CLI and the site allow
    it, so that an entry added in English works at once; the tests require every translation)."""

    __slots__ = ("_texts", "entry", "fallback", "language")

    def __init__(self, entry: Entry, language: str, *, fallback: bool = False) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r} (known: {', '.join(LANGUAGES)})")
        self.entry = entry
        self.language = language
        self.fallback = fallback
        translation = entry.translations.get(language)
        self._texts = translation.texts if translation is not None else {}

    def _get(self, key: str, english: str) -> str:
        if self.language == "en":
            return english
        text = self._texts.get(key)
        if text is not None:
            return text
        if self.fallback:
            return english
        raise MissingTranslation(f"{self.entry.id}: {key} has no {self.language} translation")

    @property
    def title(self) -> str:
        return self._get("title", self.entry.title)

    @property
    def cause(self) -> str:
        return self._get("cause", self.entry.cause)

    @property
    def fix(self) -> str:
        return self._get("fix", self.entry.fix)

    @property
    def details(self) -> tuple[str, ...]:
        return tuple(self._get(f"details.{n}", s) for n, s in enumerate(self.entry.details))

    @property
    def causes(self) -> tuple[Cause, ...]:
        return tuple(
            Cause(
                cause.id,
                self._get(f"common_cause.{cause.id}.text", cause.text),
                self._get(f"common_cause.{cause.id}.fix", cause.fix),
                cause.sources,
                cause.releases,
                cause.signs,
            )
            for cause in self.entry.causes
        )

    @property
    def hints(self) -> tuple[Hint, ...]:
        hints = []
        for hint in self.entry.hints:
            key = f"hint.{hint_key(hint.field, hint.prefix)}"
            hints.append(Hint(hint.field, hint.prefix, self._get(key, hint.text)))
        return tuple(hints)

    def note(self, variant: str) -> str:
        """The note of the wording ``variant`` ("" when it has none)."""
        english = self.entry.wording(variant).note
        return self._get(f"wording.{variant}.note", english) if english else ""


class NotAutogradKind:
    """One kind of PyTorch error that is not autograd's (out of memory, a device mismatch...):
    the phrases that give it away, a hint in each language, and a page of PyTorch's
    documentation. A record of ``catalog/not-autograd.toml``."""

    __slots__ = ("hints", "name", "phrases", "url")

    def __init__(
        self, name: str, phrases: Sequence[str], hints: Mapping[str, str], url: str
    ) -> None:
        self.name = name
        self.phrases = tuple(phrases)
        self.hints = dict(hints)  # by language; English always
        self.url = url

    def __repr__(self) -> str:
        return f"NotAutogradKind({self.name!r})"

    @property
    def hint(self) -> str:
        """The hint in English."""
        return self.hints["en"]

    def hint_in(self, language: str) -> str:
        """The hint in ``language``, English where it is not translated."""
        return self.hints.get(language, self.hints["en"])


class Catalog:
    """Every entry, ordered by id; and the catalog's other records: the kinds of error that are
    not autograd's, and the titles of the PyTorch documentation pages the entries link to."""

    def __init__(
        self,
        entries: list[Entry],
        not_autograd: Sequence[NotAutogradKind] = (),
        docs_pages: Mapping[str, str] | None = None,
    ) -> None:
        self._entries: dict[str, Entry | None] = {entry.id: entry for entry in entries}
        # A catalog from the cache builds each entry when it is first asked for (``_make``),
        # and knows each entry's anchors beforehand: the exact matcher asks only for the
        # entries whose anchor the paste holds, so a cold ``explain`` builds two, not all.
        self._make: Callable[[str], Entry] | None = None
        self._anchors: Mapping[str, Sequence[str]] | None = None
        self.not_autograd = tuple(not_autograd)
        #: Page titles by path under docs/stable/ (``notes/autograd``: "Autograd mechanics").
        self.docs_pages = dict(docs_pages or {})

    @classmethod
    def built_lazily(
        cls,
        make: Callable[[str], Entry],
        anchors: Mapping[str, Sequence[str]],
        not_autograd: Sequence[NotAutogradKind] = (),
        docs_pages: Mapping[str, str] | None = None,
    ) -> Catalog:
        """The catalog of the entries ``anchors`` names (id -> what a paste of its messages
        holds: its wordings' anchors, and each with its capital lowered), each built by
        ``make(id)`` when first used: for records that passed every check already."""
        catalog = cls([], not_autograd, docs_pages)
        catalog._entries = dict.fromkeys(sorted(anchors))
        catalog._make = make
        catalog._anchors = anchors
        return catalog

    def __iter__(self) -> Iterator[Entry]:
        return (self[entry_id] for entry_id in self._entries)

    def anchored_in(self, text: str) -> Iterator[Entry]:
        """The entries with a wording whose anchor occurs in ``text`` (and, where the anchors
        are not known beforehand, every entry): the only ones the exact matcher needs."""
        if self._anchors is None:
            return iter(self)
        anchors = self._anchors
        return (
            self[entry_id]
            for entry_id in self._entries
            if any(anchor in text for anchor in anchors[entry_id])
        )

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def __getitem__(self, entry_id: str) -> Entry:
        entry = self._entries[entry_id]
        if entry is None:
            assert self._make is not None  # only a lazily built catalog holds no entry yet
            entry = self._entries[entry_id] = self._make(entry_id)
        return entry

    @property
    def ids(self) -> list[str]:
        return list(self._entries)
