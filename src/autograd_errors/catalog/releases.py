"""torch release numbers, and the ranges of releases that print a wording."""

from __future__ import annotations

_PARSED: dict[str, tuple[int, int, int]] = {}


def parse_release(text: str) -> tuple[int, int, int]:
    """``"2.1.2"`` -> ``(2, 1, 2)``. A local or pre-release tag (``2.13.0+cpu``) is ignored."""
    parsed = _PARSED.get(text)
    if parsed is None:
        parsed = _PARSED[text] = _parse(text)
    return parsed


def _parse(text: str) -> tuple[int, int, int]:
    numbers: list[int] = []
    for piece in text.strip().split(".")[:3]:
        digits = piece[: len(piece) - len(piece.lstrip("0123456789"))]
        if not digits:
            break
        numbers.append(int(digits))
        if digits != piece:
            break
    if len(numbers) < 2:
        raise ValueError(f"not a torch release number: {text!r}")
    major, minor, *patch = numbers
    return major, minor, patch[0] if patch else 0


def _bound(release: str | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    return default if release is None else parse_release(release)


class ReleaseRange:
    """The releases from ``since`` to ``until``, both included; ``None`` leaves that end open."""

    __slots__ = ("since", "until")

    def __init__(self, since: str | None, until: str | None) -> None:
        ends = [parse_release(end) for end in (since, until) if end is not None]
        if len(ends) == 2 and ends[0] > ends[1]:
            raise ValueError(f"release range ends before it starts: {since} > {until}")
        self.since = since
        self.until = until

    def __repr__(self) -> str:
        return f"ReleaseRange({self.since!r}, {self.until!r})"

    def __contains__(self, release: str) -> bool:
        version = parse_release(release)
        if self.since and version < parse_release(self.since):
            return False
        return not (self.until and version > parse_release(self.until))

    def overlaps(self, other: ReleaseRange) -> bool:
        """Whether some release lies in both ranges."""
        lowest, highest = (0, 0, 0), (999_999, 0, 0)
        start = max(_bound(self.since, lowest), _bound(other.since, lowest))
        end = min(_bound(self.until, highest), _bound(other.until, highest))
        return start <= end

    @property
    def current(self) -> bool:
        """Whether the newest torch release still prints this wording."""
        return self.until is None

    def describe(self) -> str:
        """In words, as ``explain`` prints it: ``torch 1.10.0 to 2.1.2``."""
        if self.since and self.until:
            if self.since == self.until:
                return f"torch {self.since}"
            return f"torch {self.since} to {self.until}"
        if self.since:
            return f"torch {self.since} and later"
        if self.until:
            return f"torch releases up to {self.until}"
        return "every torch release"
