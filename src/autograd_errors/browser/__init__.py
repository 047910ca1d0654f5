"""The browser's side: the same matcher, in JavaScript, on the site's paste and search pages.

Owns: the scripts (``static/autograd-matcher.js``, ``autograd-ui.js``, ``autograd-zh-search.js``,
copied into each site's ``_static``) and the catalog they read, exported from the Python
matcher's own records and settings (:mod:`.export`), so that both matchers run on the same
numbers and characters: the matches, the user's line in the exception each is in, the cause the
answer leads with and its evidence; the page then says them in the answer's own words
(``answer.*`` of :mod:`autograd_errors.rendering.strings`, by :mod:`.rendering.evidence`'s rules).

May import: the standard library, the catalog, :mod:`autograd_errors.messages`, the matcher,
:mod:`autograd_errors.rendering.strings` and :mod:`autograd_errors.rendering.evidence`. Only the
site's build imports it.
"""
