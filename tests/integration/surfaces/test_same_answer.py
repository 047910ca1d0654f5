"""Every surface gives the same answer for the same error: the CLI (text, ``--verbose``, JSON,
Chinese), ``install()`` and ``run`` after a real traceback, the Python API's ``str``, IPython's
text and a notebook's HTML, pytest's report section.

The expected answers are built here from the entry's record (its texts, read through the
catalog) and the interface's words as the user reads them, filled to the surface's width by
:mod:`textwrap`: not from the renderers' own output. They were written before the renderers
were gathered into one (issue 21), to hold every surface's answer as it was.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import textwrap

import pytest
from helpers import MESSAGES_2_13, execute, jupyter_kernel, terminal_ipython

from autograd_errors import catalog

CATALOG = catalog.load(use_cache=False)
BASE = "https://autograd-errors.readthedocs.io/en/latest/"
WIDE = "1000"  # $COLUMNS at which no line wraps: the CLI fills to 998 columns

# The interface's words, in each language, as a user reads them.
WORDS = {
    "en": {
        "your_line": "Your line:",
        "most_likely": "Most likely:",
        "most_common": "Most common:",
        "seen": "Seen in this paste:",
        "fix": "Fix:",
        "more": "More:",
        "more_options": (
            "--verbose gives every common cause, why torch raises it, and the wording matched."
        ),
    },
    "zh_CN": {
        "your_line": "你的代码行：",
        "most_likely": "最可能的原因：",
        "most_common": "最常见的原因：",
        "seen": "粘贴内容中的依据：",
        "fix": "修复：",
        "more": "详见：",
        "more_options": "加上 --verbose 可查看所有常见原因、torch 报错的原因以及匹配到的措辞。",
    },
}

# A CUDA run's message, pasted with its traceback: every field captured, a hint for its node.
CUDA = MESSAGES_2_13["inplace-modified"]["cuda"]
PASTE = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/train.py", line 41, in <module>\n'
    "    loss.backward()\n"
    '  File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n'
    "    torch.autograd.backward(\n"
    f"RuntimeError: {CUDA['message']}\n"
)
PASTE_FRAME = ("/home/me/train.py", 41, "loss.backward()")
# Its node, ReluBackward0, is the sign of inplace-modified's first cause (an in-place change
# of a tensor the op saved): the answer leads with it and says so.
RELU_SEEN = {"en": "the message names `Relu`.", "zh_CN": "报错信息中提到 `Relu`。"}
RELU_CAUSE = {
    "id": "inplace-after-saving-op",
    "basis": "evidence",
    "evidence": [{"kind": "field", "sign": "op=Relu", "frame": None, "near": False}],
}


def texts(entry_id: str, language: str = "en"):
    """The entry's texts in ``language``, English where not translated (as every surface)."""
    return CATALOG[entry_id].localized(language, fallback=True)


def url(entry_id: str, language: str = "en") -> str:
    prefix = "" if language == "en" else f"{language}/"
    return f"{BASE}{prefix}{CATALOG[entry_id].path}"


def fill(text: str, width: int, indent: str, hanging: str | None = None) -> list[str]:
    """``text`` filled to ``width`` columns, paragraph by paragraph."""
    lines = []
    for paragraph in text.split("\n\n"):
        lines += textwrap.wrap(
            " ".join(paragraph.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent if hanging is None else hanging,
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


def labelled(label: str, text: str) -> str:
    """A label and its text: a space between, except after Chinese punctuation."""
    return label + ("" if label.endswith("：") else " ") + text


def in_your_paste(entry_id: str, fields: dict[str, str], language: str = "en") -> list[str]:
    """The entry's sentences about the captured values, then the hints for them."""
    values = dict(fields)
    node = fields.get("node", "")
    if node:
        name = node.rstrip("0123456789")
        values["op"] = name.removesuffix("Backward") if name.endswith("Backward") else node
    entry = texts(entry_id, language)
    sentences = []
    for sentence in entry.details:
        try:
            sentences.append(sentence.format_map(values))
        except KeyError:
            continue
    return sentences + [
        hint.text for hint in entry.hints if values.get(hint.field, "").startswith(hint.prefix)
    ]


def short_answer(
    entry_id: str,
    *,
    width: int,
    frame: tuple[str, int, str] | None,
    fields: dict[str, str],
    language: str = "en",
    more_options: bool = False,
    seen: str = "",
) -> list[str]:
    """The short answer: title and id, the user's line, what happened in this paste and the
    advice for its values, the cause and its fix, the link. ``seen``: what in the paste
    supports the entry's first cause ("Most likely:"); without it, the first cause is the most
    common one ("Most common:"). (Every paste here points at the first cause, or at none.)"""
    words, entry = WORDS[language], texts(entry_id, language)
    assert len(entry.title) + len(entry_id) + 4 <= width  # the heading fits on one line
    lines = [f"{entry.title}  ({entry_id})"]
    if frame is not None:
        file, number, code = frame
        lines += fill(labelled(words["your_line"], f"{file}:{number}"), width, "  ")
        lines += [f"    {code}"] if code else []
    said = in_your_paste(entry_id, fields, language)
    for sentence in said[:1] + said[1:][-1:]:
        lines += fill(sentence, width, "  ")
    if entry.causes:
        lines += chosen_cause(entry_id, width=width, seen=seen, language=language)
        lines += fill(labelled(words["fix"], entry.causes[0].fix), width, "  ")
    else:
        lines += fill(labelled(words["fix"], entry.fix), width, "  ")
    lines.append("  " + labelled(words["more"], url(entry_id, language)))
    if more_options:
        lines.append("  " + words["more_options"])
    return lines


def chosen_cause(entry_id: str, *, width: int, seen: str, language: str = "en") -> list[str]:
    """The line of the cause the answer leads with (the entry's first), and what supports it."""
    words, cause = WORDS[language], texts(entry_id, language).causes[0]
    label = words["most_likely"] if seen else words["most_common"]
    lines = fill(labelled(label, cause.text + on(cause.releases)), width, "  ")
    return lines + (fill(labelled(words["seen"], seen), width, "  ") if seen else [])


def on(releases) -> str:
    """A cause's releases, said after it when they are not all of them."""
    since, until = releases.since, releases.until
    if since and until:
        return f" (On torch {since} to {until}.)" if since != until else f" (On torch {since}.)"
    if since:
        return f" (On torch {since} and later.)"
    return f" (On torch releases up to {until}.)" if until else ""


def verbose_answer(
    entry_id: str,
    *,
    width: int,
    frame: tuple[str, int, str] | None,
    fields: dict[str, str],
    message: str,
    seen: str = "",
) -> list[str]:
    """``explain --verbose``, in English: the short answer's heading and line, then the message
    and its wording, the fields, what the paste says, the cause it leads with and why, every
    common cause, why, the fix, the documentation, the link."""
    record, entry = CATALOG[entry_id], texts(entry_id)
    lines = short_answer(entry_id, width=width, frame=frame, fields=fields)[: 3 if frame else 1]
    wording = record.current  # what the reference torch prints, and every release since
    assert wording.releases.until is None
    lines += fill(f"{wording.exception}: {message}", width, "  ")
    lines.append(
        f"  Wording '{wording.variant}', printed by torch {wording.releases.since} and later."
    )
    if fields:
        lines.append("  Fields: " + "  ".join(f"{name}={value}" for name, value in fields.items()))
    said = in_your_paste(entry_id, fields)
    if said:
        lines += ["", "  In your paste"]
        for sentence in said:
            lines += fill(sentence, width, "    ")
    lines += ["", *chosen_cause(entry_id, width=width, seen=seen)]
    lines += ["", "  Common causes, most common first"]
    for number, cause in enumerate(entry.causes, 1):
        lines += fill(
            f"{number}. {cause.text}{on(cause.releases)}", width, "    ", hanging="       "
        )
        lines += fill(f"Fix: {cause.fix}", width, "       ")
    lines += ["", "  Why", *fill(entry.cause, width, "    ")]
    lines += ["  Fix", *fill(entry.fix, width, "    ")]
    lines += ["  PyTorch documentation", *(f"    {link}" for link in record.docs)]
    return [*lines, "", f"  More: {url(entry_id)}"]


def json_answer(
    entry_id: str,
    *,
    fields: dict[str, str],
    frame: tuple[str, int, str],
    cause: dict,
    language: str = "en",
) -> dict:
    record, entry = CATALOG[entry_id], texts(entry_id, language)
    file, number, code = frame
    return {
        "matches": [
            {
                "id": entry_id,
                "title": entry.title,
                "exception": record.exception,
                "match": "exact",
                "score": 1.0,
                "variant": record.current.variant,
                "fields": fields,
                "path": record.path,
                "url": url(entry_id, language),
                "in_your_paste": in_your_paste(entry_id, fields, language),
                "user_frame": {"file": file, "line": number, "code": code, "cell": None},
                "why": entry.cause,
                "fix": entry.fix,
                "causes": [
                    {
                        "id": c.id,
                        "text": c.text,
                        "fix": c.fix,
                        "since": c.releases.since,
                        "until": c.releases.until,
                    }
                    for c in entry.causes
                ],
                "cause": cause,
                "docs": list(record.docs),
            }
        ],
        "near": [],
        "not_autograd": None,
        "raised_by": None,
        "context_only": False,
        "context_frame": None,
        "described": False,
    }


# The command line ---------------------------------------------------------------------------


def printed(cli, *args: str) -> list[str]:
    result = cli(*args, PASTE, env={"COLUMNS": WIDE})
    assert result.returncode == 0, result.stderr
    return result.stdout.decode("utf-8").rstrip("\n").split("\n")


def test_explain_prints_the_short_answer(cli):
    assert printed(cli, "explain") == short_answer(
        "inplace-modified",
        width=998,
        frame=PASTE_FRAME,
        fields=CUDA["fields"],
        more_options=True,
        seen=RELU_SEEN["en"],
    )


def test_explain_in_chinese_prints_the_same_answer_in_chinese(cli):
    assert printed(cli, "explain", "--lang", "zh") == short_answer(
        "inplace-modified",
        width=998,
        frame=PASTE_FRAME,
        fields=CUDA["fields"],
        language="zh_CN",
        more_options=True,
        seen=RELU_SEEN["zh_CN"],
    )


def test_explain_verbose_prints_everything(cli):
    assert printed(cli, "explain", "--verbose") == verbose_answer(
        "inplace-modified",
        width=998,
        frame=PASTE_FRAME,
        fields=CUDA["fields"],
        message=CUDA["message"],
        seen=RELU_SEEN["en"],
    )


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_explain_json_carries_the_same_answer(cli, language):
    lang = ("--lang", "zh") if language == "zh_CN" else ()
    result = cli("explain", "--json", *lang, PASTE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json_answer(
        "inplace-modified",
        fields=CUDA["fields"],
        frame=PASTE_FRAME,
        cause=RELU_CAUSE,
        language=language,
    )


def test_the_python_api_prints_the_short_answer_at_78_columns():
    from autograd_errors import explain

    assert str(explain(PASTE)).split("\n") == short_answer(
        "inplace-modified", width=78, frame=PASTE_FRAME, fields=CUDA["fields"], seen=RELU_SEEN["en"]
    )


# Where the exception surfaces ---------------------------------------------------------------

# A real failure of inplace-modified: sigmoid saves its output, and mul_ changes it.
SCRIPT = """\
import torch

x = torch.randn(3, requires_grad=True)
y = torch.sigmoid(x)
y.mul_(2)
y.sum().backward()
"""
SCRIPT_FIELDS = {
    "tensor_type": "torch.FloatTensor",
    "shape": "[3]",
    "output_index": "0",
    "node": "Sigmoid",
    "version": "1",
    "expected_version": "0",
}


@pytest.mark.parametrize("how", ["install", "run"])
def test_after_a_real_traceback_the_short_answer_follows(cli_env, tmp_path, how):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT, encoding="utf-8")
    if how == "install":
        hooked = tmp_path / "hooked.py"
        hooked.write_text("import autograd_errors; autograd_errors.install()\n" + SCRIPT)
        command = [sys.executable, str(hooked)]
        frame = (str(hooked), 7, "y.sum().backward()")
    else:
        command = [sys.executable, "-m", "autograd_errors", "run", str(script)]
        frame = (str(script), 6, "y.sum().backward()")
    env = {**cli_env, "COLUMNS": WIDE}
    plain = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, check=False
    )
    ours = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert plain.returncode == ours.returncode == 1
    traceback, answer = ours.stderr.split("\nautograd-errors: ", 1)
    assert traceback.endswith(plain.stderr[plain.stderr.rindex("\nRuntimeError: ") :])
    assert answer.rstrip("\n").split("\n") == short_answer(
        "inplace-modified",
        width=998,
        frame=frame,
        fields=SCRIPT_FIELDS,
        seen="the message names `Sigmoid`.",  # sigmoid saves its output, which mul_ changed
    )


LEAF = "x = torch.randn(3, requires_grad=True); x += 1"


def cell_answer(printed: str) -> tuple[list[str], list[str]]:
    """The answer's lines with its user's line taken out, and that line with its code (a
    cell's file name is IPython's to choose), from ``printed``, which starts with the answer."""
    lines = printed.split("\n")
    end = next(n for n, line in enumerate(lines) if line.startswith("  More: ")) + 1
    code = next(n for n, line in enumerate(lines) if line.startswith("    "))
    return lines[:1] + lines[code + 1 : end], lines[1 : code + 1]


def joined(lines: list[str]) -> str:
    return " ".join(line.strip() for line in lines)


def leaf_answer(width: int) -> list[str]:
    """leaf-inplace's short answer, without the user's line (see :func:`cell_answer`)."""
    return short_answer("leaf-inplace", width=width, frame=None, fields={})


def test_a_terminal_ipython_prints_the_short_answer_at_88_columns(cli_env, tmp_path):
    session = "\n".join(["import torch", "%load_ext autograd_errors", LEAF, "exit"])
    output = terminal_ipython(session, tmp_path, cli_env, tmp_path)
    shown = output[output.index("autograd-errors: ") + len("autograd-errors: ") :]
    answer, frame = cell_answer(shown)
    assert answer == leaf_answer(88)
    assert frame[-1] == f"    {LEAF}"
    # As IPython names the cell in its own traceback, not by its file <ipython-input-N-...>.
    assert re.fullmatch(r"Your line: Cell In\[\d+\], line 1", joined(frame[:-1])), frame


def test_a_notebook_shows_the_answer_in_html_with_everything_one_click_away(cli_env, tmp_path):
    with jupyter_kernel(cli_env, tmp_path) as client:
        execute(client, "import torch\n%load_ext autograd_errors")
        outputs = [o["data"] for o in execute(client, LEAF) if o["type"] == "display_data"]
    (data,) = outputs
    # The HTML reads like the site (tests/integration/ipython checks its form); here: the same
    # answer, its title linked to the same page, every short-answer line's words in it.
    entry = texts("leaf-inplace")
    page = html.unescape(re.sub(r"<[^>]+>", "", data["text/html"]))
    assert f'<a href="{url("leaf-inplace")}"' in data["text/html"]
    assert page.startswith(entry.title)
    for line in short_answer("leaf-inplace", width=10_000, frame=None, fields={})[1:]:
        assert line.strip().replace("`", "").split(": ", 1)[-1] in page.replace("`", "")
    shown = data["text/plain"].removeprefix("autograd-errors: ")
    answer, frame = cell_answer(shown)
    assert answer == leaf_answer(88)
    assert frame[-1] == f"    {LEAF}"
    # As the notebook names the cell, not by its file /tmp/ipykernel_.../....py.
    assert re.fullmatch(r"Your line: Cell In\[\d+\], line 1", joined(frame[:-1])), frame


PYTEST_FILE = f"""
import torch

def test_training_step():
    {LEAF}
"""


def test_pytest_adds_the_short_answer_as_a_section(pytester):
    written = pytester.makepyfile(test_model=PYTEST_FILE)
    number = written.read_text().split("\n").index(f"    {LEAF}") + 1
    result = pytester.runpytest_subprocess("-p", "autograd_errors")
    result.assert_outcomes(failed=1)
    lines = result.stdout.str().split("\n")
    start = next(n for n, line in enumerate(lines) if "- autograd-errors -" in line) + 1
    answer, frame = cell_answer("\n".join(lines[start:]))
    assert answer == leaf_answer(88)
    assert frame == [*fill(f"Your line: {written}:{number}", 88, "  "), f"    {LEAF}"]
