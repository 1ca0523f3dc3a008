"""The one wait engine (engine.py): conditions on an injectable clock (clock.py), the engine's Cancel
(cancel.py), recordings of what a wait saw (recording.py). It imports nothing of core/ or the resource folders:
they all wait on it."""

from .cancel import cancelled, request_cancel
from .clock import REAL, Clock, FakeClock, FnClock, RealClock
from .engine import CANCEL_CHECK_S, LAST_LOOK_S, Condition, Done, Failed, WaitFailed, observing, replaying, wait

__all__ = ["CANCEL_CHECK_S", "LAST_LOOK_S", "REAL", "Clock", "Condition", "Done", "FakeClock", "Failed", "FnClock",
           "RealClock", "WaitFailed", "cancelled", "observing", "replaying", "request_cancel", "wait"]
