"""The matcher: the catalog entries a paste contains, and the user's own line in it.

Owns: finding entries, exact and partial, ranked (:mod:`.matching`), partial matches by rare
words (:mod:`.fuzzy`), the errors that are not autograd's (:mod:`.not_autograd`), the user's
own frame in a traceback (:mod:`.frames`). It returns data (an :class:`.matching.Explanation`)
and renders nothing: what a surface shows is :mod:`autograd_errors.rendering`'s.

May import: the standard library, :mod:`autograd_errors.messages` and
:mod:`autograd_errors.catalog`. It is on the explain path, and the partial matcher
(:mod:`.fuzzy`, :mod:`.not_autograd`) is imported only by a paste that has no exact match.
"""
