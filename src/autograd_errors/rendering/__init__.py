"""Rendering: what the answers and the entries look like, for people and for programs.

Owns: the interface's words in every language, and which language a command speaks
(:mod:`.strings`); the site's URLs (:mod:`.urls`); terminal styling, width and filling
(:mod:`.terminal`); the answer assembled once and shown by every surface (:mod:`.answer`), as
text (:mod:`.text`), JSON (:mod:`.payloads`) and a notebook's HTML (:mod:`.notebook`); a
diagnosis's culprits under it, as text and HTML (:mod:`.diagnosis`, which reads the findings
by their shape and imports nothing of :mod:`autograd_errors.diagnosis`).

May import: the standard library, :mod:`autograd_errors.messages`, :mod:`autograd_errors.catalog`
and :mod:`autograd_errors.matcher`. It prints nothing itself: a surface writes what it returns.
It is on the explain path (:mod:`.notebook`'s ``html`` only when a notebook asks).
"""
