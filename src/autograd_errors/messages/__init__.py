"""How a torch message is written, and how a paste is read: the ground floor of the matcher.

- :mod:`.templates`: a wording's message as a template, literal text with named placeholders,
  matched in linear time against a paste's skeleton;
- :mod:`.normalize`: a paste cleaned of what splits a message (colour codes, prompts, quoting
  marks), and its whitespace-free skeleton.

Both the catalog (which parses every wording's template when it loads) and the matcher stand
on these, so they sit below both. They import nothing but the standard library, and nothing
else of the package; they are on the explain path.
"""
