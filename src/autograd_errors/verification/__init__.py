"""Verification: every entry against the installed torch and the recorded releases.

Owns: where the gallery scripts are and what their lines are tagged (:mod:`.gallery`), a script
on its own, its directives written out (:mod:`.standalone`), one run of a script observed
(:mod:`.observer`), an entry's verdict (:mod:`.verdicts`) and how it is judged (:mod:`.judge`),
the installed torch (:mod:`.environment`), ``check`` (:mod:`.runner`), the recordings of
``data/observed/`` (:mod:`.recordings`), and every rule that ties records, scripts and
recordings together, in tidy's stages (:mod:`.consistency`).

May import: the standard library, :mod:`autograd_errors.interpreter`, the catalog, the matcher
and :mod:`autograd_errors.rendering.urls`. torch only inside functions (:mod:`.environment`,
:func:`.observer.reset_torch_state`): importing verification costs no torch. Never on the
explain path.
"""
