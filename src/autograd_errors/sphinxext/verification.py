"""Verification during the site build: each gallery script run in a process of its own, as
``check`` runs it (:mod:`autograd_errors.verification.isolation`), its entry judged and the
verdict stored beside the generated page, before sphinx-gallery runs any script; the build
stops there on any verdict that is not passing. A script that hangs, ends its process or
crashes is failed as it is by ``check`` (``TIMEOUT``, ``EXITED``, ``CRASHED``), and never
reaches sphinx-gallery, which runs the scripts in the build's own process to make their pages.

There, the observer watches each script again: a script that passes on its own but fails
after the others (a state one of them left) fails the build too, since its page would show
that. A script forked there that returns into the build ends where its script does; one that
outlives the timeout ends the build, with where every thread was.

sphinx-gallery skips scripts whose source did not change; so does the isolated run (each
verdict holds the digest of its script). A new torch release or a changed catalog changes what
a script must show, so both are part of a fingerprint; when it changes, every script is judged
again. What a script did in its own process (its observation) depends on the script, torch and
the code that watches it, not on the catalog: kept beside the verdict, it is judged again
against a changed catalog without running the script again, so that an edited record is
checked in seconds (sphinx-gallery still runs every script for its page).
"""

from __future__ import annotations

import faulthandler
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

import autograd_errors
from autograd_errors import __version__
from autograd_errors import catalog as catalog_module
from autograd_errors.catalog import Catalog, Entry
from autograd_errors.verification import environment, gallery, observer, runner
from autograd_errors.verification.consistency import correspondence_problems
from autograd_errors.verification.isolation import DEFAULT_TIMEOUT
from autograd_errors.verification.judge import judge
from autograd_errors.verification.observer import Observation
from autograd_errors.verification.verdicts import Result, Status

_STATE: dict[str, Any] = {"observers": {}}
_VERDICT_SUFFIX = ".check.json"
_OBSERVED_SUFFIX = ".observed.json"
_FINGERPRINT = ".autograd-errors-fingerprint"
#: The folders of the package whose code (and records) a verdict depends on.
_VERDICT_LAYERS = ("messages", "catalog", "matcher", "interpreter", "verification")
#: Those whose code an observation (what a script did in its own process) depends on.
_OBSERVATION_LAYERS = ("interpreter", "verification")


def site_catalog() -> Catalog:
    """The catalog the site is built from, read once per build process."""
    if "catalog" not in _STATE:
        _STATE["catalog"] = catalog_module.load(use_cache=False)
    catalog: Catalog = _STATE["catalog"]
    return catalog


def verdict_file(srcdir: str | os.PathLike[str], entry: Entry) -> Path:
    """Where the build keeps an entry's verdict: beside its generated page."""
    return Path(srcdir) / Path(entry.path).with_suffix(_VERDICT_SUFFIX)


def write_verdict(
    srcdir: str | os.PathLike[str], entry: Entry, result: Result, script: str = ""
) -> None:
    """Store ``entry``'s verdict, with the digest of the ``script`` it was judged from."""
    target = verdict_file(srcdir, entry)
    target.parent.mkdir(parents=True, exist_ok=True)
    stored = {**result.as_dict(), "script": script_digest(script) if script else ""}
    target.write_text(json.dumps(stored, indent=2), encoding="utf-8")


def script_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _verdict_is_current(srcdir: str | os.PathLike[str], entry: Entry, script: str) -> bool:
    """Whether ``entry``'s stored verdict was judged from the script as it is now."""
    stored = verdict_file(srcdir, entry)
    if not stored.exists():
        return False
    data = json.loads(stored.read_text(encoding="utf-8"))
    return bool(data.get("script")) and data["script"] == script_digest(script)


#: Verdicts of a script whose process handed back nothing (it hung, ended, crashed): no
#: observation to keep, so it runs again.
_NOT_OBSERVED = frozenset({Status.TIMEOUT, Status.EXITED, Status.CRASHED})


def _store_observation(
    srcdir: str | os.PathLike[str], entry: Entry, observation: Observation, script: str, run: str
) -> None:
    target = Path(srcdir) / Path(entry.path).with_suffix(_OBSERVED_SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    stored = {"script": script_digest(script), "run": run, "observation": observation.as_dict()}
    target.write_text(json.dumps(stored), encoding="utf-8")


def _stored_observation(
    srcdir: str | os.PathLike[str], entry: Entry, script: str, run: str
) -> Observation | None:
    """What ``script`` did in its own process, as kept by an earlier build with the same torch
    and the same watching code; None when there is none or it is stale or unreadable."""
    stored = Path(srcdir) / Path(entry.path).with_suffix(_OBSERVED_SUFFIX)
    try:
        data = json.loads(stored.read_text(encoding="utf-8"))
        if data["script"] != script_digest(script) or data["run"] != run:
            return None
        # The script as it is here: a copied project's kept observation names the original.
        return Observation.from_dict({**data["observation"], "path": os.path.abspath(script)})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def read_verdict(srcdir: str | os.PathLike[str], entry: Entry) -> Result | None:
    """The verdict this build stored for ``entry``, or None when its script did not run."""
    stored = verdict_file(srcdir, entry)
    if not stored.exists():
        return None
    data = json.loads(stored.read_text(encoding="utf-8"))
    return Result.from_dict({key: data[key] for key in ("id", "status", "message", "detail")})


def verify_in_isolation(app: Sphinx) -> None:
    """Before sphinx-gallery runs the scripts: each script whose verdict is not current run in
    a process of its own, as ``check`` runs it, and judged; the build stops here if any entry
    fails, so that sphinx-gallery never runs a script that hangs, exits or crashes."""
    gallery_conf = app.config.sphinx_gallery_conf
    catalog = site_catalog()
    stale = [
        script
        for script in gallery.scripts(gallery_source(gallery_conf))
        if script.entry_id in catalog
        and not _verdict_is_current(app.srcdir, catalog[script.entry_id], script.path)
    ]
    if not stale:
        return
    release, run = environment.torch_version(), run_fingerprint()
    results, to_run = [], []
    for script in stale:
        entry = catalog[script.entry_id]
        observed = _stored_observation(app.srcdir, entry, script.path, run)
        if observed is None:
            to_run.append(script)
            continue
        result = judge(entry, observed, catalog, release)
        write_verdict(app.srcdir, entry, result, script.path)
        results.append(result)
    try:
        judged = runner.run_all(catalog, to_run) if to_run else []
    except runner.RunStopped as stopped:
        raise stopped.interrupt from None  # Ctrl-C: Sphinx's own "Interrupted!"
    for (result, observation), script in zip(judged, to_run, strict=True):
        entry = catalog[result.entry_id]
        write_verdict(app.srcdir, entry, result, script.path)
        if result.status not in _NOT_OBSERVED:
            _store_observation(app.srcdir, entry, observation, script.path, run)
        results.append(result)
    if any(result.status.failing for result in results):
        raise ExtensionError(
            "entries failed verification against the installed torch, each script run in a "
            "process of its own:\n" + runner.report_text(results, environment.torch_version())
        )


def reset_example(gallery_conf: dict[str, Any], fname: str, when: str) -> None:
    """sphinx-gallery's reset hook: a clean state before each script, and a watch on it; its
    verdict in the build's process after it."""
    if fname is None:
        return
    entry_id = Path(fname).stem
    if when == "before":
        observer.reset_torch_state(collect=True)
        path = script_path(gallery_conf, entry_id)
        watching = observer.Observer(path)
        _STATE["observers"][entry_id] = watching
        _STATE["build"] = os.getpid()
        # A script that hangs here (it passed on its own) ends the build with every thread's
        # traceback, instead of holding it forever: on the build's standard error as it was,
        # since the watch points descriptor 2 elsewhere while the script runs.
        faulthandler.dump_traceback_later(DEFAULT_TIMEOUT, exit=True, file=_hang_report())
        watching.start()
        return
    if _STATE.get("build", os.getpid()) != os.getpid():
        os._exit(0)  # a fork the script made, returning into the build: its script is done
    faulthandler.cancel_dump_traceback_later()
    watching = _STATE["observers"].pop(entry_id, None)
    if watching is None:
        return
    observation = watching.stop()
    catalog = site_catalog()
    if entry_id not in catalog:
        return
    entry = catalog[entry_id]
    result = judge(entry, observation, catalog, environment.torch_version())
    alone = read_verdict(gallery_conf["src_dir"], entry)
    if alone is not None and (alone.status.failing or not result.status.failing):
        return  # the verdict of its own process stands
    if alone is not None:
        result.detail = (
            "the script passes in a process of its own, but not in the site build's, after "
            "the scripts before it (a state one of them leaves):\n" + result.detail
        )
    write_verdict(gallery_conf["src_dir"], entry, result, observation.path)


def _hang_report() -> int:
    """A descriptor of the build's standard error, made once, that outlives the watches."""
    if "hang_report" not in _STATE:
        try:
            _STATE["hang_report"] = os.dup(2)
        except OSError:
            _STATE["hang_report"] = 2
    report: int = _STATE["hang_report"]
    return report


def script_path(gallery_conf: dict[str, Any], entry_id: str) -> str:
    for script in gallery.scripts(gallery_source(gallery_conf)):
        if script.entry_id == entry_id:
            return script.path
    raise ExtensionError(f"no gallery script for {entry_id!r}")


def gallery_source(gallery_conf: dict[str, Any]) -> str:
    examples_dir = gallery_conf["examples_dirs"]
    if isinstance(examples_dir, list):
        (examples_dir,) = examples_dir
    source: str = os.path.normpath(os.path.join(gallery_conf["src_dir"], examples_dir))
    return source


def run_fingerprint() -> str:
    """What a script's observation depends on besides its own source: torch, and the code
    that runs and watches it."""
    digest = hashlib.sha256()
    digest.update(f"torch {environment.torch_version()} autograd-errors {__version__}".encode())
    package = Path(autograd_errors.__file__).parent
    for layer in _OBSERVATION_LAYERS:
        for path in sorted((package / layer).glob("*.py")):
            digest.update(path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def fingerprint() -> str:
    """What a script's verdict depends on besides its own source."""
    digest = hashlib.sha256()
    digest.update(f"torch {environment.torch_version()} autograd-errors {__version__}".encode())
    for name in sorted(os.listdir(catalog_module.ENTRIES_DIR)):
        digest.update(name.encode())
        digest.update(Path(catalog_module.ENTRIES_DIR, name).read_bytes())
    package = Path(autograd_errors.__file__).parent
    for layer in _VERDICT_LAYERS:  # the code a verdict comes from, and the catalog's records
        folder = package / layer
        for path in sorted([*folder.glob("*.py"), *folder.glob("*.toml")]):
            digest.update(path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def invalidate_stale_runs(app: Sphinx) -> None:
    """Before sphinx-gallery runs: forget cached runs made with another torch or catalog."""
    pages = Path(app.srcdir) / catalog_module.PAGES_DIR
    stamp = pages / _FINGERPRINT
    current = fingerprint()
    if stamp.exists() and stamp.read_text() == current:
        return
    if pages.exists():
        for md5 in pages.rglob("*.md5"):
            md5.unlink()
        for verdict in pages.rglob(f"*{_VERDICT_SUFFIX}"):
            verdict.unlink()
    pages.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current)


def fail_on_bad_verdicts(app: Sphinx) -> None:
    """After sphinx-gallery ran: stop the build if an entry failed (an entry this machine
    cannot verify, NEEDS-CUDA, does not stop it: its page says so)."""
    catalog = site_catalog()
    problems = [
        problem
        for _, problem in correspondence_problems(
            catalog, gallery.scripts(gallery_source(app.config.sphinx_gallery_conf))
        )
    ]
    results = []
    for entry in catalog:
        result = read_verdict(app.srcdir, entry)
        if result is None:
            problems.append(f"{entry.id}: its gallery script was not run, so it is not verified")
        else:
            results.append(result)
    bad = [result for result in results if result.status.failing]
    if problems or bad:
        report = runner.report_text(results, environment.torch_version())
        raise ExtensionError(
            "entries failed verification against the installed torch:\n"
            + "\n".join(problems)
            + ("\n" if problems else "")
            + report
        )
