"""The bound the service enforces, as the cost lines say it: a job's `spec.auto_stop` (derived in the TrainingJob's
check: training_job/service_limit.py, both front doors) when it is sent, else the wait deadline, which only a
running `up` keeps, and why the service does not enforce it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..training_job.service_limit import HOUR_S, auto_stop_hours_of


@dataclass(frozen=True)
class Bound:
    """The most hours one run of a job bills, and who stops it there."""

    hours: Decimal | None          # None: nothing stops it (no upper bound)
    enforced: int | None           # the service's limit (spec.auto_stop hours), None when none is sent
    wait_seconds: float | None     # the wait deadline, when the wait terminates it earlier than the service
    why_not: str = ""              # why the service enforces nothing, when it does not
    cut_wait: float | None = None  # a wait deadline the service's limit cuts short (a recorded job's limit)

    def note(self) -> str:
        """`enforced by the service: autoStop 1 h; the wait terminates it at 20 s`, or why it is not."""
        wait = f"the wait terminates it at {duration_text(self.wait_seconds)}" if self.wait_seconds else ""
        if self.enforced is not None:
            cut = f", before the wait's deadline of {duration_text(self.cut_wait)}" if self.cut_wait else ""
            return f"enforced by the service: autoStop {self.enforced} h{cut}" + (f"; {wait}" if wait else "")
        if self.hours is None:
            return ""
        return "not enforced by the service" + (f": {self.why_not}" if self.why_not else "") + \
            (f"; {wait}" if wait else "")


def bound_of(wait_for: str | None, wait_timeout_seconds: float | None, auto_stop: Any, search: bool) -> Bound:
    """The bound of a job sent with `auto_stop` (its args' value): the service's limit when one is sent (what holds
    when nothing of ours runs: the budget's bound), else the wait deadline, which only a running `up` keeps."""
    enforced = auto_stop_hours_of(auto_stop)
    waits = wait_for == "completed" and wait_timeout_seconds is not None
    wait_hours = Decimal(str(wait_timeout_seconds)) / HOUR_S if waits else None
    if enforced is not None:
        earlier = wait_timeout_seconds if wait_hours is not None and wait_hours < enforced else None
        later = wait_timeout_seconds if wait_hours is not None and wait_hours > enforced else None
        return Bound(Decimal(enforced), enforced, earlier, cut_wait=later)
    if wait_hours is None:
        return Bound(None, None, None)
    why = ("a search's trials have no running-time limit in the service" if search
           else "this job was submitted without autoStop (a recorded job keeps its limit; set autoStopHours and "
                "replace it to have one)")
    return Bound(wait_hours, None, wait_timeout_seconds, why)


def duration_text(seconds: float | None) -> str:
    """20 s, 30 min, 2 h, 1.5 h: a deadline as a person reads it."""
    if seconds is None:
        return ""
    s = Decimal(str(seconds))
    if s < 60:
        return f"{s.normalize():f} s"
    if s < HOUR_S:
        m = s / 60
        return f"{m.normalize():f} min" if m == m.to_integral_value() else f"{m:.1f} min"
    h = s / HOUR_S
    return f"{h.normalize():f} h" if h == h.to_integral_value() else f"{h:.2f}".rstrip("0").rstrip(".") + " h"
