"""The answer as a notebook shows it: an HTML fragment under the cell's traceback that reads
like the site's paste page: the entry's title as a link, "Your line", what happened, the most
likely cause and its fix, the page as a link; everything else one click away.

The fragment is made from the same lines as the command line's answer (:mod:`.text`), so that
both always say the same: each line is rendered as HTML, its label in bold, the catalog's
```code``` as ``<code>``, a link as a link.
"""

from __future__ import annotations

import re
from html import escape

from autograd_errors.rendering.strings import ENGLISH, ui
from autograd_errors.rendering.terminal import Style, after
from autograd_errors.rendering.text import short_text, verbose_text
from autograd_errors.rendering.urls import page_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from autograd_errors.matcher.matching import Explanation

#: Wide enough that no line of the text is filled: HTML wraps by itself, and a line filled at
#: a terminal's width would cut a ```code``` span in two.
_UNFILLED = 100_000
#: A link in the text (the entry's page, PyTorch's documentation).
_URL = re.compile(r"https?://[^\s<>\"'`]+[^\s<>\"'`.,;:)）。，；：]")
#: The labels of the short answer's lines (``cli.*`` keys), shown in bold.
_LABELS = (
    "answer.your_line",
    "answer.most_likely",
    "answer.most_common",
    "answer.seen",
    "answer.seen_diagnosis",
    "answer.fix",
    "answer.more",
    "cli.also_in_paste",
)
#: The headings of the whole explanation's sections, shown in bold.
_HEADINGS = ("cli.in_your_paste", "cli.causes", "cli.why", "cli.fix_heading", "cli.docs")


def answer_html(explanation: Explanation, base_url: str, language: str = ENGLISH) -> str:
    """The short answer as an HTML fragment, with the whole explanation one click away; with no
    match, what the paste is instead."""
    plain = Style(False)
    frame = explanation.frame
    everything = verbose_text(explanation, base_url, plain, _UNFILLED, frame, language)
    messages = {
        " ".join(f"{match.wording.exception}: {match.message}".split())
        for match in explanation.matches
    }
    if not explanation.matches:
        return f'<div class="autograd-errors">{_lines_html(everything, language)}</div>'
    short = short_text(explanation, base_url, plain, _UNFILLED, frame, "", language)
    summary = escape(ui("notebook.everything", language))
    details = _lines_html(everything, language, messages)
    rest = f"<details><summary>{summary}</summary>{details}</details>"
    if explanation.shared:  # no winner: the entries' titles and links, as the text lists them
        return f'<div class="autograd-errors">{_lines_html(short, language)}{rest}</div>'
    entry = explanation.matches[0].entry
    title = entry.localized(language, fallback=True).title
    url = escape(page_url(base_url, entry, language), quote=True)
    heading = (
        f'<strong><a href="{url}" target="_blank" rel="noopener">{escape(title)}</a></strong>'
        f" <code>{escape(entry.id)}</code>"
    )
    _, _, lines = short.partition("\n")  # the first line is the title, the heading above
    return f'<div class="autograd-errors">{heading}{_lines_html(lines, language)}{rest}</div>'


def _lines_html(text: str, language: str, messages: Collection[str] = ()) -> str:
    """Each line of the answer's text as a ``<div>``, indented as the text indents it; the
    line under "Your line" (the code that raised) as code, torch's ``messages`` as torch
    printed them."""
    labels = [ui(key, language) for key in _LABELS]
    your_line = ui("answer.your_line", language)
    headings = {ui(key, language) for key in _HEADINGS}
    out: list[str] = []
    after_your_line = False
    for line in text.splitlines():
        content = line.strip()
        if not content:
            after_your_line = False
            continue
        indent = (len(line) - len(line.lstrip(" "))) // 2
        style = f' style="margin-left:{indent - 1}em"' if indent > 1 else ""
        if after_your_line and indent >= 2:  # the code the frame shows, as the user wrote it
            out.append(f"<div{style}><code>{escape(content)}</code></div>")
            after_your_line = False
            continue
        after_your_line = False
        if " ".join(content.split()) in messages:
            out.append(f"<pre{style}>{escape(content)}</pre>")
            continue
        label = next((label for label in labels if content.startswith(label)), None)
        if label == your_line:
            where = content[len(label) :].strip()
            out.append(
                f"<div{style}><strong>{escape(label)}</strong>{after(label)}"
                f"<code>{escape(where)}</code></div>"
            )
            after_your_line = True
        elif label is not None:
            rest = content[len(label) :].lstrip(" ")
            out.append(
                f"<div{style}><strong>{escape(label)}</strong>{after(label)}"
                f"{inline_html(rest)}</div>"
            )
        elif content in headings:
            out.append(f"<div{style}><strong>{escape(content)}</strong></div>")
        else:
            out.append(f"<div{style}>{inline_html(content)}</div>")
    return "".join(out)


def inline_html(text: str) -> str:
    """A sentence of the catalog as HTML: its ```code``` as ``<code>``, its links as links,
    the rest as text.

    >>> inline_html("Write `out = out + x` (see https://x.org/a).")
    'Write <code>out = out + x</code> (see <a href="https://x.org/a" target="_blank" \
rel="noopener">https://x.org/a</a>).'
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code span, the text as it is
        parts = [text]
    out = []
    for number, part in enumerate(parts):
        if number % 2:
            out.append(f"<code>{escape(part)}</code>")
            continue
        at = 0
        for link in _URL.finditer(part):
            out.append(escape(part[at : link.start()]))
            href = escape(link.group(), quote=True)
            out.append(
                f'<a href="{href}" target="_blank" rel="noopener">{escape(link.group())}</a>'
            )
            at = link.end()
        out.append(escape(part[at:]))
    return "".join(out)
