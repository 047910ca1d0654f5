"""How users meet a silent pitfall, as its record states it: the errors Python raises at a line
that reads its culprit (``[[symptom_error]]``), and other programs' words for its symptom
(``[[symptom_message]]``). :mod:`autograd_errors.matcher.symptoms` finds them in a paste."""

from __future__ import annotations


class SymptomError:
    """An error users meet a silent pitfall by, though it is not its message: Python's error
    at a line that reads the culprit (``AttributeError: 'NoneType' object has no attribute
    'data'`` where the line reads ``p.grad.data``). A ``[[symptom_error]]`` table: the error
    ends the paste, its line holds every one of ``contains``, the line that raised it reads
    the attribute ``code``."""

    __slots__ = ("code", "contains", "exception")

    def __init__(self, exception: str, contains: tuple[str, ...], code: str) -> None:
        self.exception = exception
        self.contains = contains
        self.code = code

    @property
    def message(self) -> str:
        """What a match shows as its message."""
        return f"{self.exception}: {' ... '.join(self.contains)}"


class SymptomMessage:
    """Another program's message that reports a silent pitfall's symptom: a training loop's
    own check (detectron2's ``FloatingPointError: Loss became infinite or NaN at
    iteration=27!``), or a training log's line (``train_loss: nan``). A ``[[symptom_message]]``
    table: the ``program`` that prints it and its ``source``; a line of the paste holds every
    one of ``contains`` as printed, or matches ``pattern`` (a regular expression, any case)."""

    __slots__ = ("contains", "exception", "pattern", "program", "source")

    def __init__(
        self,
        program: str,
        source: str,
        exception: str = "",
        contains: tuple[str, ...] = (),
        pattern: str = "",
    ) -> None:
        self.program = program
        self.source = source
        self.exception = exception
        self.contains = contains
        self.pattern = pattern

    @property
    def message(self) -> str:
        """What a match shows as its message: the words, and the program that printed them."""
        said = " ... ".join(self.contains) if self.contains else "a line like it"
        if self.exception:
            said = f"{self.exception}: {said}"
        return f"{said} ({self.program})"
