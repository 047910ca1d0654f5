"""Test data shared by the test modules: real torch messages and real pastes."""

from __future__ import annotations

import contextlib
import functools
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent
#: The keys of ``explain --json``'s object (docs/cli.md), held by the CLI and the Python API.
ANSWER_KEYS = {
    "matches",
    "near",
    "not_autograd",
    "raised_by",
    "context_only",
    "context_frame",
    "described",
}


def load_data(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


MESSAGES_2_13 = load_data("torch-2.13.0-messages.json")["entries"]
#: What torch 2.13.0 prints under detect_anomaly() before the in-place error of a backward
#: through ``y = torch.sigmoid(x)`` (line 13), without the error: anomaly mode's lines alone.
ANOMALY_LINES_2_13 = (
    "/tmp/t.py:12: UserWarning: Anomaly Detection has been enabled. This mode will increase "
    "the runtime and should only be enabled for debugging.\n"
    "  with torch.autograd.detect_anomaly():\n"
    "/work/.venv/lib/python3.11/site-packages/torch/autograd/graph.py:979: UserWarning: "
    "Error detected in SigmoidBackward0. Traceback of forward call that caused the error:\n"
    '  File "/tmp/t.py", line 13, in <module>\n'
    "    y = torch.sigmoid(x)\n"
    " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
    "python_anomaly_mode.cpp:122.)\n"
    "  return Variable._execution_engine.run_backward(\n"
)

_IGNORED_NAMES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "_build",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    "*.egg-info",
    ".matrix",
)


def ignored_in_copy(directory: str, names: list[str]) -> set[str]:
    """What a copy of the project for a site build leaves out: caches, builds, and the gallery
    pages sphinx-gallery generates in docs/errors (not the translations of locales/*/errors)."""
    ignored = set(_IGNORED_NAMES(directory, names))
    if Path(directory) == REPO / "docs" and "errors" in names:
        ignored.add("errors")
    return ignored


def copy_project(target: Path) -> Path:
    shutil.copytree(REPO, target, ignore=ignored_in_copy)
    return target


def sphinx_build(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """`make docs`'s sphinx-build (by default its English build: ``docs _build/html``), on a
    copy of the project, with that copy's package."""
    sphinx = Path(sys.executable).parent / "sphinx-build"
    return subprocess.run(
        [
            str(sphinx),
            *("-W", "--keep-going", "-n", "-q", "-c", "."),
            *(arguments or ("docs", "_build/html")),
        ],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )


def page_text(path: Path) -> str:
    """A page's text as a reader sees it: tags dropped, entities decoded, whitespace runs
    collapsed, and Sphinx's typographic quotes and ellipses made plain again."""
    return plain_text(path.read_text(encoding="utf-8"))


def plain_text(markup: str) -> str:
    """Markup's text as a reader sees it (see page_text)."""
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())
    typographic = (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'))
    for curly, plain in (*typographic, ("\u2026", "...")):
        text = text.replace(curly, plain)
    return text


def without_causes(record: str) -> str:
    """A record's text without its ``[[common_cause]]`` tables (and its translations, which
    translate them)."""
    kept, dropping = [], False
    for line in record.splitlines(keepends=True):
        if line.startswith("["):
            dropping = line.strip() == "[[common_cause]]" or line.startswith(
                ("[zh_CN", "[common_cause.")
            )
        if not dropping:
            kept.append(line)
    return "".join(kept)


def catalog_without_causes():
    """The packaged catalog with no common causes: for judging repros written for a test."""
    import tempfile

    from autograd_errors import catalog

    with tempfile.TemporaryDirectory(prefix="catalog-without-causes-") as name:
        directory = Path(name)
        for record in Path(catalog.ENTRIES_DIR).glob("*.toml"):
            text = without_causes(record.read_text(encoding="utf-8"))
            (directory / record.name).write_text(text, encoding="utf-8")
        loaded = catalog.load(str(directory), use_cache=False)
        for entry in loaded:
            _ = entry.wordings  # every record read before its folder goes
        return loaded


def terminal_ipython(session: str, cwd: Path, env: dict[str, str], ipython_dir: Path) -> str:
    """What a terminal IPython prints for ``session`` typed at its prompt (colours off)."""
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "ipython"),
            "--no-banner",
            "--simple-prompt",
            "--colors=nocolor",
        ],
        input=session,
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**env, "IPYTHONDIR": str(ipython_dir)},
        timeout=180,
        check=False,
    )
    return result.stdout


def use_fixture_translation(record: Path, fixture: Path) -> None:
    """Replace the record's own [zh_CN] tables (the last part of the file) by the test's
    throw-away translation, so that tests of the mechanics do not depend on the real wording."""
    text = record.read_text(encoding="utf-8")
    english = text.split("\n[zh_CN]", 1)[0].rstrip("\n")
    record.write_text(english + "\n\n" + fixture.read_text(encoding="utf-8"), encoding="utf-8")


def translated_entries(directory: Path, fixture: Path) -> Path:
    """A copy of the records in ``directory``, with the throw-away translation ``fixture`` of
    inplace-modified, and leaf-inplace as an entry nobody translated yet."""
    from autograd_errors import catalog

    shutil.copytree(catalog.ENTRIES_DIR, directory)
    use_fixture_translation(directory / "inplace-modified.toml", fixture)
    untranslated = directory / "leaf-inplace.toml"
    english = untranslated.read_text(encoding="utf-8").split("\n[zh_CN]", 1)[0]
    untranslated.write_text(english, encoding="utf-8")
    return directory


def append(entries: Path, entry_id: str, text: str) -> None:
    path = entries / f"{entry_id}.toml"
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@contextlib.contextmanager
def jupyter_kernel(env: dict[str, str], cwd: Path) -> Iterator[Any]:
    """A real Jupyter kernel of this interpreter (ipykernel's own spec), and its client."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(
        kernel_name="python3", env=env, cwd=str(cwd), startup_timeout=120
    )
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def execute(client: Any, code: str) -> list[dict]:
    """Run a cell; the iopub messages it produced (errors, displays, streams)."""
    msg_id = client.execute(code)
    outputs = []
    while True:
        message = client.get_iopub_msg(timeout=120)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind = message["msg_type"]
        if kind == "status" and message["content"]["execution_state"] == "idle":
            return outputs
        if kind in ("error", "display_data", "stream", "execute_result"):
            outputs.append({"type": kind, **message["content"]})


# English left in Chinese output (issue 25) ---------------------------------------------------


@functools.cache
def english_interface_words(keys: tuple[str, ...] = ()) -> frozenset[str]:
    """The interface's English words (``rendering/strings.py``), each literal part of each
    string whose Chinese differs: ``Most likely:``, ``Your line:``, ``Explain``... For the
    keys that start with one of ``keys`` (all of them by default)."""
    import re

    from autograd_errors.rendering.strings import STRINGS

    found = set()
    for key, texts in STRINGS.items():
        if (keys and not key.startswith(keys)) or texts["en"] == texts["zh_CN"]:
            continue
        for part in re.split(r"\{\w+\}", texts["en"]):
            part = part.strip(" .,;:()")
            words = set(re.findall(r"[A-Za-z]{3,}", part))
            if words - NAMES and not part.startswith("--"):
                found.add(part)
    return frozenset(found)


#: Names that stay as they are in Chinese text.
NAMES = {"torch", "PyTorch", "autograd", "GitHub", "CUDA", "Ctrl", "Python", "API", "English"}


@functools.cache
def torch_messages() -> tuple[str, ...]:
    """The literal text of every wording of every entry (torch's words, which stay English in
    Chinese text), longest first, each line on its own."""
    from autograd_errors.catalog import load

    texts = set()
    for entry in load(use_cache=False):
        for wording in entry.wordings:
            for token in wording.template.tokens:
                if isinstance(token, str):
                    lines = [line.strip() for line in token.splitlines()]
                    texts.update(line for line in lines if line)
                    texts.update(line.rstrip(".!:") for line in lines if line.rstrip(".!:"))
    return tuple(sorted(texts, key=len, reverse=True))


def english_left(
    text: str, keys: tuple[str, ...] = (), messages: tuple[str, ...] = ()
) -> list[str]:
    """What reads as English in ``text``, a Chinese answer or a page's text: an English word of
    the interface (of the ``keys``' strings), or a sentence (three English words in a row that
    are not a name such as "Hugging Face Trainer"). Code (```...```), links, paths, torch's
    messages (the catalog's, and the ``messages`` of the paste, quoted as they are or in
    *italics*) are not words to translate."""
    import re

    def spaced(text: str) -> str:
        return re.sub(r"[ \t]+", " ", text)

    shown = spaced(text)
    for message in messages:
        for line in message.splitlines():
            shown = shown.replace(spaced(line.strip()), " ") if line.strip() else shown
    for message in torch_messages():
        if len(message) > 8:
            shown = shown.replace(spaced(message), " ")
    shown = re.sub(r"`[^`\n]*`|\*[^*\n]+\*|“[^”\n]*”|\"[^\"\n]*\"", " ", shown)  # code, quotes
    shown = re.sub(r"\S*(?:https?://|/|\\)\S*", " ", shown)  # links and paths
    left = [
        word
        for word in english_interface_words(keys)
        if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", shown)
    ]
    runs = re.findall(r"(?<![\w.-])[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}(?![\w.-])", shown)
    sentences = [run for run in runs if not all(w[0].isupper() for w in re.findall(r"\w+", run))]
    return sorted(left) + sentences


def answer_json(text: str, catalog: Any) -> dict[str, Any]:
    """What the Python matcher finds in ``text``, in the shape tests/js/run-matcher.cjs prints
    for the browser's: one contract for both."""
    from autograd_errors.matcher.matching import find_entries
    from autograd_errors.rendering.payloads import choice_json
    from autograd_errors.rendering.strings import releases_text

    found = find_entries(text, catalog)
    return {
        "matches": [
            {
                "id": m.entry.id,
                "variant": m.wording.variant,
                "kind": m.kind,
                "fields": m.fields,
                "score": m.score,
                "message": m.message,
                "details": m.details(),
                "releases": releases_text(m.wording.releases.since, m.wording.releases.until, "en"),
                "frame": m.located.frame.as_json() if m.located.frame else None,
                "cause": choice_json(m.cause),
            }
            for m in found.matches
        ],
        "near_misses": [[miss.entry.id, miss.similarity] for miss in found.near_misses],
        "not_autograd": found.not_autograd.name if found.not_autograd else None,
        "raised_by": found.raised_by.as_json() if found.raised_by else None,
        "context_only": found.context_only,
        "context_frame": found.frame.as_json() if found.context_only and found.frame else None,
        "described": found.described,
    }


# Once for the whole run, under pytest-xdist too ------------------------------------------------


def shared_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory all the run's workers share (the workers' own are inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[], object]
) -> object:
    """``compute()`` once for the whole run, whichever worker comes first (the others wait on
    the lock), and its result, as JSON, for every caller."""
    import fcntl

    shared = shared_directory(tmp_path_factory)
    done = shared / f"{name}.json"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            result = compute()
            partial = done.with_suffix(".partial")
            partial.write_text(json.dumps(result), encoding="utf-8")
            partial.replace(done)
    return json.loads(done.read_text(encoding="utf-8"))


def interrupted(command: list[str], env: dict[str, str], directory: str | None = None) -> int:
    """The exit status of ``command`` sent SIGINT (Ctrl-C) once it printed its first line,
    ``ready`` (a negative status: the signal it died of)."""
    import signal
    import subprocess
    import time

    process = subprocess.Popen(
        command, cwd=directory, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"ready\n"
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        return process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


class GalleryProject:
    """A copy of ``src/`` and ``gallery/`` whose scripts a test changes; ``run`` runs the
    command line on it, with a marker in the environment to find what it left running."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        shutil.copytree(REPO / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "gallery", root / "gallery")
        self.marker = uuid.uuid4().hex
        self.env = {
            **env,
            "PYTHONPATH": str(root / "src"),
            "AUTOGRAD_ERRORS_TEST_MARKER": self.marker,
        }

    def keep_only(self, *scripts: str) -> None:
        """Remove every gallery script but ``scripts``: a recording run of only those (one of
        every script costs minutes, and ``record`` of the whole gallery has a test of its own)."""
        for path in (self.root / "gallery").glob("*/*.py"):
            if path.relative_to(self.root / "gallery").as_posix() not in scripts:
                path.unlink()

    def append(self, script: str, code: str) -> None:
        path = self.root / "gallery" / script
        path.write_text(path.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")

    def line_count(self, script: str) -> int:
        return len((self.root / "gallery" / script).read_text(encoding="utf-8").splitlines())

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "autograd_errors", *args]

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(*args),
            env=self.env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def left_running(self) -> list[str]:
        """The processes still running with this project's marker: none, once a command
        ended."""
        time.sleep(0.3)  # a killed process's entry leaves /proc once its parent reaped it
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                environ = Path(f"/proc/{name}/environ").read_bytes()
                command = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if f"AUTOGRAD_ERRORS_TEST_MARKER={self.marker}".encode() in environ.split(b"\0"):
                shown = command.replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{name}: {shown}")
                os.kill(int(name), signal.SIGKILL)  # not left for the next test either
        return found
