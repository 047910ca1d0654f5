"""The running interpreter: changing it and giving it back (:mod:`.patches`), and running a
program in it as ``python`` would (:mod:`.program`); and writing a file whole or not at all
(:mod:`.files`), for the recordings and a diagnosis's reports.

Owns every change the package makes to the interpreter it runs in: the hooks
(:mod:`autograd_errors.hooks`), the observer of a gallery script
(:mod:`autograd_errors.verification.observer`), ``autograd-errors run``, and a diagnosis's
instruments all record theirs on a :class:`.patches.Patches`, which restores them.

May import: the standard library only. :mod:`.patches` is imported by ``install()``, so it
stays small and imports nothing that ``python -c pass`` has not loaded.
"""
