"""A TrainingJob's service-enforced limit, `spec.auto_stop`, derived in its check (provider.py) for both front doors.

A wait deadline (`waitFor: completed` with `waitTimeoutSeconds`) is kept by the waiting process: an `up` that
is interrupted (Ctrl-C, SIGKILL, a crashed machine) leaves the job running with nothing to stop it. So a job
whose bound is its wait deadline also carries the service's own limit on its running time, `spec.auto_stop`
(API: time_unit HOURS only, duration at least 1): the deadline rounded up to whole hours, or the user's
`autoStopHours` when that is less. The service then stops it with no process of ours running; the wait still
terminates it at its (nearer) deadline while the `up` runs.

A search (`algorithm.policies.auto_search`) gets no derived limit: its trials run inside the one job and the
service documents no limit for them, so its wait deadline stays a bound the service does not enforce (the
preview says so, cost/enforced.py); a user's own `autoStopHours` is sent as given.

The check (`with_service_limit`) is the one place both front doors pass through, where the inputs the state
records are at hand: a change of `spec.auto_stop` replaces a job (the service has no update for it), so a job the
state records keeps the limit it was recorded with, none included, and is never re-run only because a derived
limit appeared or its deadline moved. A job that an edit re-runs gets the limit derived for its new wait: the
engine checks a replacement's inputs again with no old inputs (as a new job's) before it creates it.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from ..core.unknowns import is_unknown

HOUR_S = 3600
MIN_HOURS = 1  # the API's minimum duration (spec.auto_stop.duration >= 1, in HOURS)
# What a TrainingJob's wait options are when its inputs leave them out (args.py's defaults).
WAIT_FOR_DEFAULT, WAIT_TIMEOUT_DEFAULT = "created", 3600.0


def derived_hours(wait_for: str | None, wait_timeout_seconds: float | None, auto_stop_hours: int | None,
                  search: bool) -> int | None:
    """The `spec.auto_stop.duration` (hours) a job is submitted with, or None (no limit is sent)."""
    if wait_for != "completed" or wait_timeout_seconds is None or search:
        return auto_stop_hours
    wait = max(MIN_HOURS, math.ceil(Decimal(str(wait_timeout_seconds)) / HOUR_S))
    return wait if auto_stop_hours is None else min(wait, auto_stop_hours)


def auto_stop_arg(hours: int | None) -> dict[str, Any] | None:
    return None if hours is None else {"time_unit": "HOURS", "duration": hours}


def auto_stop_hours_of(value: Any) -> int | None:
    """The duration of an `auto_stop` input (a dict, as the args and the state hold it), or None."""
    if isinstance(value, dict) and isinstance(value.get("duration"), (int, float)) and value["duration"] >= 1:
        return int(value["duration"])
    return None


def carried(recorded: bool, recorded_hours: int | None, declared_hours: int | None, derived: int | None) -> int | None:
    """The limit a job is sent with, given what its state records: a derived limit never changes a recorded job
    (a change of `spec.auto_stop` replaces it), only the user's own `autoStopHours` does, as it always did.

    - new (not recorded; a replacement too: the engine checks it again with no old inputs): the derived limit;
    - recorded with the derived limit already: unchanged;
    - recorded with what the user declares, or nothing declared (a job recorded before limits were derived, or
      whose wait deadline moved): it keeps its recorded limit, none included;
    - the user changed `autoStopHours` itself: the derived limit (a replacement, as any change of it)."""
    if not recorded or recorded_hours == derived:
        return derived
    if declared_hours is None or recorded_hours == declared_hours:
        return recorded_hours
    return derived


def searches(inputs: dict[str, Any]) -> bool:
    alg = inputs.get("algorithm")
    policies = alg.get("policies") if isinstance(alg, dict) else None
    return isinstance(policies, dict) and policies.get("auto_search") is not None


def with_service_limit(olds: dict[str, Any] | None, news: dict[str, Any]) -> dict[str, Any]:
    """A TrainingJob's checked inputs with the service's own limit (`auto_stop`) its wait deadline gives it; `news`
    carries the user's own `auto_stop` (`autoStopHours`), if any, and `olds` the inputs the state records (none:
    a new job, or a replacement). Inputs not known at preview (another resource's outputs) are left as they are."""
    wait_for = news.get("wait_for", WAIT_FOR_DEFAULT)
    wait_s = news.get("wait_timeout_seconds", WAIT_TIMEOUT_DEFAULT)
    given = news.get("auto_stop")
    if news.get("adopt_job_id") is not None:  # it runs already: it keeps the limit it has (takeover compares it)
        return news
    if any(is_unknown(v) for v in (wait_for, wait_s, given, news.get("algorithm"))) \
            or not isinstance(wait_s, (int, float)) or (given is not None and not isinstance(given, dict)):
        return news
    declared = auto_stop_hours_of(given)
    derived = derived_hours(wait_for, wait_s, declared, searches(news))
    hours = carried(bool(olds), auto_stop_hours_of((olds or {}).get("auto_stop")), declared, derived)
    if hours == declared:
        return news
    out = {k: v for k, v in news.items() if k != "auto_stop"}
    if hours is not None:
        out["auto_stop"] = auto_stop_arg(hours)
    return out
