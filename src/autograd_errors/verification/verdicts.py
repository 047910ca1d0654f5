"""An entry's verdict on one torch release: its :class:`Status`, and the :class:`Result` that
carries it with what torch said. What ``check`` reports, ``record`` writes, and the site's build
stores beside each page; :mod:`.judge` gives it.
"""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    """An entry's verdict on one torch release; its value is what reports and files show."""

    OK = "OK"
    DRIFT = "DRIFT"
    WRONG_ENTRY = "WRONG-ENTRY"
    NO_ERROR = "NO-ERROR"
    FIX_FAILS = "FIX-FAILS"
    RETIRED = "RETIRED"
    NOT_APPLICABLE = "NOT-APPLICABLE"
    UNTESTED = "UNTESTED"
    NEEDS_CUDA = "NEEDS-CUDA"
    # The script's process did not hand back what it did (:mod:`.isolation`): it ran out of
    # time, ended before the script did (``os._exit()``), or was killed by a signal.
    TIMEOUT = "TIMEOUT"
    EXITED = "EXITED"
    CRASHED = "CRASHED"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def passing(self) -> bool:
        """Whether the entry was verified and passes."""
        return self in PASSING

    @property
    def failing(self) -> bool:
        """Whether the status is a failure: neither passing nor unverifiable here."""
        return not self.passing and self not in UNVERIFIED


#: Worst first: an entry's status is the worst of what its script showed.
SEVERITY = (
    Status.CRASHED,
    Status.EXITED,
    Status.TIMEOUT,
    Status.FIX_FAILS,
    Status.WRONG_ENTRY,
    Status.DRIFT,
    Status.NO_ERROR,
    Status.UNTESTED,
    Status.NEEDS_CUDA,
    Status.NOT_APPLICABLE,
    Status.RETIRED,
    Status.OK,
)
#: The statuses of entries verified here that pass.
PASSING = frozenset((Status.OK, Status.RETIRED, Status.NOT_APPLICABLE))
#: Entries this machine cannot verify: neither passing nor failing; reports count them apart.
UNVERIFIED = frozenset((Status.NEEDS_CUDA,))
#: Why an entry was not verified, as reports and pages say it.
NEEDS_CUDA_DETAIL = "the repro needs CUDA, which this machine lacks: it was not run"


class Result:
    """An entry's verdict: a status, what torch said, and a human explanation."""

    __slots__ = ("detail", "entry_id", "message", "status")

    def __init__(self, entry_id: str, status: Status, message: str, detail: str) -> None:
        self.entry_id = entry_id
        self.status = status
        self.message = message
        self.detail = detail

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Result:
        """The inverse of :meth:`as_dict`."""
        return cls(data["id"], Status(data["status"]), data["message"], data["detail"])

    def as_dict(self) -> dict[str, str]:
        return {
            "id": self.entry_id,
            "status": self.status.value,
            "message": self.message,
            "detail": self.detail,
        }
