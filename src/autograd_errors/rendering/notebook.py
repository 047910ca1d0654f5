"""The answer as a notebook shows it: an HTML fragment under the cell's traceback, with the
short answer, and everything else one click away.

The fragment leaves out the user's own line: in a notebook it is the cell just above, shown
by the traceback itself.
"""

from __future__ import annotations

from html import escape

from autograd_errors.rendering.strings import ENGLISH, ui
from autograd_errors.rendering.terminal import Style
from autograd_errors.rendering.text import short_text, verbose_text
from autograd_errors.rendering.urls import page_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autograd_errors.matcher.matching import Explanation

#: The width of the plain text inside the fragment (a notebook's ``<pre>``).
_WIDTH = 88


def answer_html(explanation: Explanation, base_url: str, language: str = ENGLISH) -> str:
    """The short answer as an HTML fragment, with the whole explanation one click away; with no
    match, what the paste is instead."""
    plain = Style(False)
    if not explanation.matches:
        text = verbose_text(explanation, base_url, plain, _WIDTH, None, language)
        return f'<div class="autograd-errors"><pre>{escape(text)}</pre></div>'
    lines = short_text(explanation, base_url, plain, 10_000, None, "", language).splitlines()
    entry = explanation.matches[0].entry
    title = entry.localized(language, fallback=True).title
    url = escape(page_url(base_url, entry, language), quote=True)
    body = "".join(f"<div>{escape(line.strip())}</div>" for line in lines[1:] if line.strip())
    more = escape(verbose_text(explanation, base_url, plain, _WIDTH, None, language))
    return (
        '<div class="autograd-errors">'
        f'<strong><a href="{url}" target="_blank" rel="noopener">{escape(title)}</a></strong>'
        f" <code>{escape(entry.id)}</code>{body}"
        f"<details><summary>{escape(ui('notebook.more', language))}</summary>"
        f"<pre>{more}</pre></details></div>"
    )
