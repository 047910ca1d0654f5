"""The paste boxes, in the build's language: ``autograd-paste-form explain`` is the paste
page's own (it answers on the page), ``autograd-paste-form home`` the home page's (it sends the
paste to the paste page). Their words are the interface's (``page.paste_*`` in
:mod:`autograd_errors.rendering.strings`), not prose for gettext: the form is markup.

Without script, both send the paste as ``explain.html?q=...``, which the paste page's script
moves to the address's fragment (``static/autograd-ui.js``); Ctrl+Enter in either box explains.
"""

from __future__ import annotations

from html import escape

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from autograd_errors.rendering.strings import ui
from autograd_errors.sphinxext.languages import build_language

#: Each box: its element's id, its label's key, its rows, and what it shows before a paste.
BOXES = {
    "explain": (
        "autograd-paste",
        "page.paste_label",
        8,
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    "home": (
        "autograd-paste-home",
        "page.paste_home_label",
        4,
        "RuntimeError: Trying to backward through the graph a second time ...",
    ),
}


def paste_form(box: str, language: str) -> str:
    """The form's markup (the placeholder is one of torch's messages: it stays English)."""
    element_id, label, rows, placeholder = BOXES[box]
    form_id = ' id="autograd-paste-form"' if box == "explain" else ""
    return (
        f'<form{form_id} class="autograd-paste" action="explain.html" method="get">\n'
        f'<label for="{element_id}">{escape(ui(label, language))}</label>\n'
        f'<textarea id="{element_id}" name="q" rows="{rows}" spellcheck="false" '
        f'aria-keyshortcuts="Control+Enter" placeholder="{escape(placeholder)}"></textarea>\n'
        f'<button type="submit">{escape(ui("page.paste_button", language))}</button>\n'
        "</form>\n"
    )


class PasteFormDirective(SphinxDirective):
    """``autograd-paste-form explain|home``."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        box = self.arguments[0]
        if box not in BOXES:
            raise self.error(f"autograd-paste-form: {box!r} is not one of {', '.join(BOXES)}")
        markup = paste_form(box, build_language(self.config))
        if box == "explain":  # the answers appear under the box
            markup += '<div id="autograd-results" aria-live="polite"></div>\n'
        return [nodes.raw("", markup, format="html")]
