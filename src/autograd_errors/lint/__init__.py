"""``python -m autograd_errors lint``: a static checker for the autograd pitfalls of the catalog,
and for the "fixes" that make an error go away and leave training silently wrong (issue 26).

What this subpackage owns:

- :mod:`.registry`: the one rule registry. Each rule's code, catalog entry, title and one-line
  message (English and Chinese) are data, in ``rules.toml``; each check function declares the
  code it emits with ``@rule("AE…")``, and loading fails when a code has no check or a check
  no code. The code ranges are written down in ``docs/contributing.md``.
- :mod:`.syntax`: the vocabulary the rules read code with (dotted names, calls, the names of
  torch's factories and optimizers), and :mod:`.facts`: what a rule may ask about a parsed
  module (scopes, bindings, grad mode, in-place writes, backward calls), computed once per file.
- :mod:`.rules`: the checks, one module per family (``AE1`` false fixes, ``AE2`` in-place and
  aliasing, ``AE3`` graphs, ``AE4`` modules and optimizers, ``AE5`` the training loop, ``AE9``
  opinionated rules, off by default).
- :mod:`.checker` (one file: parse, run, ``# noqa``, select), :mod:`.files` (which files a
  folder holds), :mod:`.command` (the command's ``main``) and :mod:`.flake8` (the plugin).

What it may import: the standard library and its own modules, nothing else. It names catalog
entries by their ids (strings, checked against the catalog by the tests); it never imports torch,
the catalog loader or anything slow: it runs in editors, in pre-commit hooks and on machines
without torch, over thousands of files.
"""
