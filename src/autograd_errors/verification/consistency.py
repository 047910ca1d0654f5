"""The catalog, its gallery scripts and its recordings agree: every rule that ties them, in one
place, in the stages of rust's ``tidy`` error-code check.

1. **listed**: every record loads and follows the catalog's rules (:mod:`.schema
   <autograd_errors.catalog.schema>` refuses a broken record as it loads, with one line naming
   its file and key); every wording cites its source; one message (a wording, a pitfall's
   symptom) belongs to one entry; every entry lists its common causes and one to three pages
   of PyTorch's documentation; every cause of an entry with several has signs that recognise
   it in a paste, or says why no paste shows it (``unseen``).
2. **documented**: every entry has its page: one gallery script, in its record's section, each
   section ordered and titled, the script opening with the entry's id and directive and ending
   with its footer; every text is translated and stamped, the hints of the errors that are not
   autograd's included.
3. **scripted**: every script imports only torch, numpy and the standard library; every common
   cause has a trigger tagged ``# cause: <id>`` and a fix tagged ``# fix: <id>``, and every such
   tag names a cause; every fix is followed by an assertion; every heading opens a text cell;
   a cause's code signs (what the answer recognises it by in a paste) are what its trigger
   writes: one of them at least is in the trigger's code or its comments.
4. **recorded**: the reference release's recording holds every entry, passing; no recording
   holds a failing entry; each recorded message matches its own entry, through a wording that
   claims that release, and no other wording of its form claims it; a common cause's signs in
   the message are what its own trigger raised (a field's values) or what the entry's script
   raised (a form).
5. **raised**: on the reference release, each entry raised its own message, except the
   exemptions of :data:`RAISES_NOTHING`.

That a script really raises its message on the installed torch is ``check``'s to say
(:mod:`.runner`, :mod:`.judge`): it runs them. The rules here read files only, so the suite
runs them on every commit without torch releases: ``tests/unit/verification/test_consistency``
runs each rule of :data:`RULES` as a test of its own.

Exemptions are named, as tidy names its own, and each is a property of the record, never a list
of ids: :data:`RAISES_NOTHING`, and :data:`OLDER_RECORDINGS_MAY_LACK_ENTRIES`.
"""

from __future__ import annotations

import ast
import os

from autograd_errors.catalog import CatalogError, load
from autograd_errors.catalog.stamps import status_lines
from autograd_errors.catalog.translations import TRANSLATED
from autograd_errors.matcher.causes import shows
from autograd_errors.matcher.matching import find_matches, with_derived_fields
from autograd_errors.messages.normalize import skeleton
from autograd_errors.verification import gallery
from autograd_errors.verification.observer import module_blocks
from autograd_errors.verification.recordings import load_recordings
from autograd_errors.verification.script_rules import (
    Problems,
    causes_tagged,
    fixes_checked,
    headings_open_text_cells,
    imports_beyond_torch,
)
from autograd_errors.verification.verdicts import Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from autograd_errors.catalog.model import Catalog, Entry, Wording
    from autograd_errors.verification.recordings import Recording

#: Stage "raised": the entries that raise no message of their own on the reference release,
#: each with why. A pitfall is silent (its script asserts what it describes); a retired
#: entry's message is raised by older releases only (their recordings show it); an entry whose
#: repro needs CUDA is not run where the reference recording is made (it is recorded as
#: NEEDS-CUDA, which is said on its page).
RAISES_NOTHING: dict[str, Callable[[Entry], bool]] = {
    "a pitfall raises nothing": lambda entry: entry.is_pitfall,
    "a retired message is raised by older releases only": lambda entry: bool(entry.retired),
    "a repro that needs CUDA is not run without it": lambda entry: entry.needs == "cuda",
}
#: Stage "recorded": only the reference release's recording must hold every entry; older
#: recordings may lack the entries added after them (their pages say "not recorded").
OLDER_RECORDINGS_MAY_LACK_ENTRIES = True
#: Where a wording's source may be: a PyTorch file, commit or PR, or an issue thread.
_SOURCE_PREFIXES = ("https://github.com/",)
_SOURCE_KINDS = ("/blob/", "/tree/", "/commit/", "/pull/", "/issues/")


class Project:
    """What the rules read: the records, the gallery, the recordings, and the reference
    release (the one ``constraints.txt`` pins)."""

    def __init__(
        self, entries_dir: str, gallery_dir: str, observed_dir: str, reference: str
    ) -> None:
        self.entries_dir = entries_dir
        self.gallery_dir = gallery_dir
        self.observed_dir = observed_dir
        self.reference = reference
        self._catalog: Catalog | None = None
        self._recordings: list[Recording] | None = None

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = load(self.entries_dir, use_cache=False)
        return self._catalog

    @property
    def scripts(self) -> list[gallery.Script]:
        return gallery.scripts(self.gallery_dir)

    @property
    def recordings(self) -> list[Recording]:
        if self._recordings is None:
            self._recordings = load_recordings(self.observed_dir)
        return self._recordings


class Rule:
    """One rule of a stage: its name says what must hold; ``check`` lists where it does not."""

    __slots__ = ("check", "name", "stage")

    def __init__(self, stage: str, name: str, check: Callable[[Project], list[str]]) -> None:
        self.stage = stage
        self.name = name
        self.check = check

    def __repr__(self) -> str:
        return f"Rule({self.stage}: {self.name})"


STAGES = ("listed", "documented", "scripted", "recorded", "raised")


def problems(project: Project, stages: tuple[str, ...] = STAGES) -> list[str]:
    """Every rule's problems, in stage order, each prefixed with its stage; a catalog that
    does not load is the only problem (no other rule can read it)."""
    try:
        project.catalog  # noqa: B018 - loading is the first check
    except CatalogError as error:
        return [f"listed: {error}"]
    return [
        f"{rule.stage}: {problem}"
        for rule in RULES
        if rule.stage in stages
        for problem in rule.check(project)
    ]


# 1. listed -----------------------------------------------------------------------------------


def _records_load(project: Project) -> list[str]:
    try:
        project.catalog  # noqa: B018 - loading is the check
    except CatalogError as error:
        return [str(error)]
    return []


def source_problems(catalog: Catalog) -> list[str]:
    """Wordings whose source is not a PyTorch file, commit or PR, or an issue thread."""
    found = []
    for entry in catalog:
        for wording in entry.wordings:
            source = wording.source
            cited = source.startswith(_SOURCE_PREFIXES) and any(k in source for k in _SOURCE_KINDS)
            if not cited:
                found.append(f"{entry.id} {wording.variant!r}: source {source!r}")
    return found


def one_entry_per_message(catalog: Catalog) -> list[str]:
    """Messages that belong to two entries: a wording whose own text (its example, else its
    template) the matcher finds whole as another entry's; a symptom phrase or symptom error
    that two pitfalls claim. One message, one entry: else which page a paste opens is chance."""
    found = []
    for entry in catalog:
        for wording in entry.wordings:
            text = wording.example or f"{wording.exception}: {wording.template.render({})}"
            exact = [m for m in find_matches(text, catalog) if m.kind == "exact"]
            for other in sorted({m.entry.id for m in exact} - {entry.id}):
                found.append(f"{entry.id} {wording.variant!r}: also a message of {other}")
    owners: dict[tuple[str, ...], list[str]] = {}
    for entry in catalog:
        claimed: set[tuple[str, ...]] = {
            (" ".join(phrase.lower().split()),) for phrase in entry.symptoms
        }
        claimed |= {(e.exception, *e.contains, e.code) for e in entry.symptom_errors}
        claimed |= {m.contains or (m.pattern,) for m in entry.symptom_messages}
        for key in claimed:
            owners.setdefault(key, []).append(entry.id)
    found += [
        f"{' '.join(key)!r} is a symptom of {', '.join(ids)}"
        for key, ids in owners.items()
        if len(ids) > 1
    ]
    return found


def _causes_listed(project: Project) -> list[str]:
    return [f"{e.id}: no [[common_cause]]" for e in project.catalog if not e.causes]


def recognition_problems(catalog: Catalog) -> list[str]:
    """Every cause of an entry with several causes has what recognises it in a paste (its
    signs), or says why no paste shows it (``unseen``): the answer leads with the cause a
    paste supports only where the record says what supports it."""
    return [
        f"{entry.id}: common_cause {cause.id!r}: no signs, and no unseen to say why"
        for entry in catalog
        if len(entry.causes) > 1
        for cause in entry.causes
        if not cause.signs and not cause.signs.unseen
    ]


def _docs_linked(project: Project) -> list[str]:
    import re

    found = [
        f"{e.id}: {len(e.docs)} links to PyTorch's documentation, not 1 to 3"
        for e in project.catalog
        if not 1 <= len(e.docs) <= 3
    ]
    found += [
        f"{e.id}: {link} is not a page of PyTorch's documentation"
        for e in project.catalog
        for link in e.docs
        if not re.fullmatch(r"https://(docs\.)?pytorch\.org/[\w./#-]+", link)
    ]
    return found


# 2. documented -------------------------------------------------------------------------------


def correspondence_problems(catalog: Catalog, found: list[gallery.Script]) -> list[tuple[str, str]]:
    """Where catalog entries and gallery scripts fail to pair up one to one: pairs of the
    entry id and what is wrong with it."""
    found_problems: list[tuple[str, str]] = []
    by_id: dict[str, list[gallery.Script]] = {}
    for script in found:
        by_id.setdefault(script.entry_id, []).append(script)
    for entry_id, same in by_id.items():
        if len(same) > 1:
            places = ", ".join(f"{s.section}/{s.entry_id}.py" for s in same)
            problem = f"{entry_id}: more than one gallery script ({places})"
            found_problems.append((entry_id, problem))
        if entry_id not in catalog:
            found_problems.append(
                (entry_id, f"{entry_id}: gallery script {same[0].path} has no catalog entry")
            )
    for entry in catalog:
        same = by_id.get(entry.id, [])
        if not same:
            found_problems.append(
                (entry.id, f"{entry.id}: no gallery script gallery/{entry.section}/{entry.id}.py")
            )
        elif same[0].section != entry.section:
            found_problems.append(
                (
                    entry.id,
                    f"{entry.id}: the catalog puts it in section {entry.section!r}, "
                    f"the gallery in {same[0].section!r}",
                )
            )
    return found_problems


def _one_script_each(project: Project) -> list[str]:
    return [problem for _, problem in correspondence_problems(project.catalog, project.scripts)]


def _sections_ordered_and_titled(project: Project) -> list[str]:
    directory = project.gallery_dir
    order = gallery.section_order(directory)
    folders = sorted(
        name
        for name in os.listdir(directory)
        if os.path.isdir(os.path.join(directory, name)) and not name.startswith(("_", "."))
    )
    found = [f"section {s!r} is not in gallery/_order.txt" for s in folders if s not in order]
    found += [f"gallery/_order.txt: no folder {s!r}" for s in order if s not in folders]
    found += [
        f"{e.id}: section {e.section!r} is not in gallery/_order.txt"
        for e in project.catalog
        if e.section not in order
    ]
    for section in order:
        if section in folders and not gallery.section_title(directory, section):
            found.append(f"gallery/{section}/README.txt: no title")
    return found


def _docstring(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return ast.get_docstring(ast.parse(handle.read()), clean=False) or ""


def _pages_open_and_close(project: Project) -> list[str]:
    found = []
    for script in project.scripts:
        docstring = _docstring(script.path)
        with open(script.path, encoding="utf-8") as handle:
            text = handle.read()
        where = f"{script.section}/{script.entry_id}.py"
        if docstring.strip().split("\n", 1)[0] != script.entry_id:
            found.append(f"{where}: its docstring's title is not {script.entry_id!r}")
        if f"{gallery.ENTRY_DIRECTIVE} {script.entry_id}" not in docstring:
            found.append(f"{where}: no '{gallery.ENTRY_DIRECTIVE} {script.entry_id}'")
        if f"{gallery.FOOTER_DIRECTIVE} {script.entry_id}" not in text:
            found.append(f"{where}: no '{gallery.FOOTER_DIRECTIVE} {script.entry_id}'")
    return found


def _translated(project: Project) -> list[str]:
    found = [
        f"{language} {line}"
        for language in TRANSLATED
        for line in status_lines(project.catalog, language)
    ]
    found += [
        f"not-autograd.toml: {kind.name}: no {language} hint"
        for kind in project.catalog.not_autograd
        for language in TRANSLATED
        if language not in kind.hints
    ]
    return found


# 3. scripted: the rules of :mod:`.script_rules` ----------------------------------------------


def _where(script: gallery.Script, line: int | None) -> str:
    return f"{script.section}/{script.entry_id}.py" + (f":{line}" if line else "")


def _each_script(project: Project, rule: Callable[[str], Problems]) -> list[str]:
    return [
        f"{_where(script, line)}: {problem}"
        for script in project.scripts
        for line, problem in rule(script.path)
    ]


# 4. recorded ---------------------------------------------------------------------------------


def completeness_problems(
    catalog: Catalog, recordings: list[Recording], reference: str
) -> list[str]:
    """What the reference release's recording lacks: every entry must be recorded there, and
    pass (:data:`OLDER_RECORDINGS_MAY_LACK_ENTRIES`)."""
    found = [recording for recording in recordings if recording.release == reference]
    if not found:
        return [f"torch {reference}: no recording; run `make record`"]
    (recording,) = found
    missing = [
        f"torch {reference}: {entry.id} is not recorded; run `make record`"
        for entry in catalog
        if entry.id not in recording.entries
    ]
    for entry_id, observed in recording.entries.items():
        if Status(observed["status"]).failing:
            missing.append(f"torch {reference}: {entry_id} is {observed['status']}")
    return missing


def _none_failing(project: Project) -> list[str]:
    return [
        f"torch {recording.release}: {entry_id} is {observed['status']}"
        for recording in project.recordings
        if recording.release != project.reference  # completeness says it for the reference
        for entry_id, observed in recording.entries.items()
        if Status(observed["status"]).failing
    ]


def consistency_problems(catalog: Catalog, recordings: list[Recording]) -> list[str]:
    """Where the recordings and the catalog disagree: a recorded message that matches another
    entry, a wording that does not claim the release that printed it, another wording of the
    same form that claims it."""
    found = []
    for recording in recordings:
        where = f"torch {recording.release}"
        for entry_id, observed in recording.entries.items():
            if entry_id not in catalog:
                found.append(f"{where}: {entry_id} is recorded but not in the catalog")
                continue
            for event in observed["events"]:
                if event["entry"] is None:
                    continue
                found += _event_problems(catalog, where, recording.release, event)
    return found


def _event_problems(catalog: Catalog, where: str, release: str, event: dict[str, Any]) -> list[str]:
    text = f"{event['exception']}: {event['message']}"
    matches = find_matches(text, catalog)
    recorded_as = event["entry"]
    if not matches or matches[0].entry.id != recorded_as:
        now = matches[0].entry.id if matches else "nothing"
        return [f"{where}: {recorded_as}'s message now matches {now}: {text}"]
    entry = matches[0].entry
    wording = _as_recorded(entry, matches[0].wording, event["variant"], text)
    found = []
    if release not in wording.releases:
        found.append(
            f"{where}: {entry.id} wording {wording.variant!r} claims "
            f"{wording.releases.describe()}, but {release} printed it: {text}"
        )
    for other in _same_form(entry, wording):
        if release in other.releases:
            found.append(
                f"{where}: {entry.id} wording {other.variant!r} claims {release}, "
                f"which printed {wording.variant!r} instead: {text}"
            )
    return found


def _as_recorded(entry: Entry, matched: Wording, variant: str | None, text: str) -> Wording:
    """The wording a recorded message is judged by: the one the recorder named, when the
    message as kept still fits it. A recording keeps a message's first line only; two
    wordings that differ after it (ddp-mark-ready-twice's index with or without the
    parameter's name) both fit that line, and the recorder, which saw the whole message,
    told them apart."""
    if variant is None or matched.variant == variant:
        return matched
    for wording in entry.wordings:
        if wording.variant == variant and wording.template.find(skeleton(text)):
            return wording
    return matched


def sign_problems(
    catalog: Catalog, scripts: list[gallery.Script], recording: Recording
) -> list[str]:
    """A cause's field signs (``op = ["igamma"]``) must hold for a message its own trigger
    raised on the reference release (``recording``), and its form signs must be forms the
    entry's script raised there: the signs claim what torch prints, and the recording is what
    it printed. A cause that does not hold on that release is not judged."""
    found = []
    by_id = {script.entry_id: script for script in scripts}
    for entry in catalog:
        signed = [c for c in entry.causes if c.signs.fields or c.signs.forms]
        if not signed or entry.id not in by_id or entry.id not in recording.entries:
            continue
        events = [e for e in recording.entries[entry.id]["events"] if e["entry"] == entry.id]
        forms = {_form_of(entry, event["variant"]) for event in events}
        blocks = module_blocks(by_id[entry.id].path)
        tagged, _ = gallery.cause_tags(by_id[entry.id].path, entry)
        where = f"torch {recording.release}: {entry.id} cause {{cause!r}}"
        for cause in signed:
            if recording.release not in cause.releases:
                continue
            for form in cause.signs.forms:
                if form not in forms:
                    found.append(where.format(cause=cause.id) + f": no message of form {form!r}")
            if not cause.signs.fields:
                continue
            lines = tagged.get((gallery.CAUSE_TAG, cause.id), [])
            spans = [_span(block) for block in blocks if any(_inside(block, n) for n in lines)]
            raised = [
                with_derived_fields(match.fields)
                for event in events
                if event["line"] is not None and any(a <= event["line"] <= b for a, b in spans)
                for match in find_matches(f"{event['exception']}: {event['message']}", catalog)
                if match.entry.id == entry.id
            ]
            for name, prefixes in cause.signs.fields.items():
                if not any(_starts(values.get(name, ""), prefixes) for values in raised):
                    found.append(
                        where.format(cause=cause.id)
                        + f": its trigger raised no message whose {name} starts with "
                        + " or ".join(repr(p) for p in prefixes)
                    )
    return found


def code_sign_problems(catalog: Catalog, scripts: list[gallery.Script]) -> list[str]:
    """A cause with code signs (``-= ... .grad``) must show one of them in its trigger: the
    cells (from one ``# %%`` to the next) of the lines tagged ``# cause: <id>``, comments
    included (a trigger that stands for what this build cannot run, DataParallel's gather on
    several GPUs, says what it stands for). The signs claim how the cause is written, and the
    trigger is the cause written."""
    found = []
    by_id = {script.entry_id: script for script in scripts}
    for entry in catalog:
        script = by_id.get(entry.id)
        if script is None:
            continue  # documented's to say
        signed = [cause for cause in entry.causes if cause.signs.code]
        if not signed:
            continue
        with open(script.path, encoding="utf-8") as handle:
            source = handle.read().splitlines()
        tagged, _ = gallery.cause_tags(script.path, entry)
        cells = [n for n, line in enumerate(source, 1) if line.startswith("# %%")]
        for cause in signed:
            trigger = []
            for line in sorted(set(tagged.get((gallery.CAUSE_TAG, cause.id), []))):
                first = max((n for n in cells if n < line), default=1)
                last = min((n for n in cells if n > line), default=len(source) + 1)
                trigger += source[first - 1 : last - 1]
            if not any(shows(code, sign) for code in trigger for sign in cause.signs.code):
                signs = ", ".join(repr(sign) for sign in cause.signs.code)
                found.append(
                    f"{script.path}: cause {cause.id!r}: none of its code signs ({signs}) is in "
                    "its trigger"
                )
    return found


def _form_of(entry: Entry, variant: str | None) -> str | None:
    return next((w.form for w in entry.wordings if w.variant == variant), None)


def _span(block: ast.stmt) -> tuple[int, int]:
    return block.lineno, block.end_lineno or block.lineno


def _inside(block: ast.stmt, line: int) -> bool:
    first, last = _span(block)
    return first <= line <= last


def _starts(value: str, prefixes: tuple[str, ...]) -> bool:
    return value.lower().startswith(tuple(prefix.lower() for prefix in prefixes))


def _signs_raised(project: Project) -> list[str]:
    found = [r for r in project.recordings if r.release == project.reference]
    if not found:
        return []  # completeness says it
    return sign_problems(project.catalog, project.scripts, found[0])


def _same_form(entry: Entry, wording: Wording) -> list[Wording]:
    return [w for w in entry.wordings if w.form == wording.form and w is not wording]


# 5. raised -----------------------------------------------------------------------------------


def _reference_raised_each(project: Project) -> list[str]:
    found = [r for r in project.recordings if r.release == project.reference]
    if not found:
        return []  # recorded's to say
    (reference,) = found
    missing = []
    for entry in project.catalog:
        exempt = [why for why, applies in RAISES_NOTHING.items() if applies(entry)]
        if exempt or entry.id not in reference.entries:
            continue
        if not reference.message(entry):
            missing.append(f"torch {reference.release}: {entry.id} raised no message of its own")
    return missing


def _needs_cuda_said(project: Project) -> list[str]:
    found = [r for r in project.recordings if r.release == project.reference]
    if not found:
        return []
    (reference,) = found
    return [
        f"torch {reference.release}: {entry.id} needs CUDA, but is recorded as "
        f"{reference.entries[entry.id]['status']}, not NEEDS-CUDA"
        for entry in project.catalog
        if entry.needs == "cuda"
        and entry.id in reference.entries
        and Status(reference.entries[entry.id]["status"]) is not Status.NEEDS_CUDA
    ]


#: Every rule, stage by stage. A new rule is one function and one line here; the suite runs
#: each as a test of its own.
RULES: tuple[Rule, ...] = (
    Rule("listed", "every record loads and follows the catalog's rules", _records_load),
    Rule("listed", "every wording cites its source", lambda p: source_problems(p.catalog)),
    Rule("listed", "one message belongs to one entry", lambda p: one_entry_per_message(p.catalog)),
    Rule("listed", "every entry lists its common causes", _causes_listed),
    Rule(
        "listed",
        "every cause is recognised by its signs or says why no paste shows it",
        lambda p: recognition_problems(p.catalog),
    ),
    Rule("listed", "every entry links 1 to 3 pages of PyTorch's documentation", _docs_linked),
    Rule("documented", "every entry has one script, in its section", _one_script_each),
    Rule("documented", "every section is ordered and titled", _sections_ordered_and_titled),
    Rule(
        "documented",
        "every script opens with its id and ends with its footer",
        _pages_open_and_close,
    ),
    Rule("documented", "every text is translated and stamped", _translated),
    Rule(
        "scripted",
        "every script imports only torch, numpy and the stdlib",
        lambda p: _each_script(p, imports_beyond_torch),
    ),
    Rule(
        "scripted",
        "every common cause is tagged, and every tag names one",
        lambda p: [
            f"{_where(script, line)}: {problem}"
            for script in p.scripts
            if script.entry_id in p.catalog  # else documented's to say
            for line, problem in causes_tagged(script.path, p.catalog[script.entry_id])
        ],
    ),
    Rule(
        "scripted",
        "every fix is followed by an assertion",
        lambda p: _each_script(p, fixes_checked),
    ),
    Rule(
        "scripted",
        "every heading opens a text cell",
        lambda p: _each_script(p, headings_open_text_cells),
    ),
    Rule(
        "scripted",
        "every cause's code signs are in its trigger",
        lambda p: code_sign_problems(p.catalog, p.scripts),
    ),
    Rule(
        "recorded",
        "the reference recording holds every entry, passing",
        lambda p: completeness_problems(p.catalog, p.recordings, p.reference),
    ),
    Rule("recorded", "no recording holds a failing entry", _none_failing),
    Rule(
        "recorded",
        "every recorded message matches its entry and a wording of its release",
        lambda p: consistency_problems(p.catalog, p.recordings),
    ),
    Rule(
        "recorded",
        "every cause's signs in the message are what its trigger raised",
        _signs_raised,
    ),
    Rule("raised", "the reference release raised each entry's message", _reference_raised_each),
    Rule("raised", "an entry that needs CUDA is recorded as not run", _needs_cuda_said),
)
