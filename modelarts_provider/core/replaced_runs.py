"""Which earlier runs of a job key a new run replaces, as this provider process saw them (issue 43).

The run history lives in the JobsAwait (awaiting/history.py), which records the runs it waits for. A run no
JobsAwait ever finished waiting for (its `up` was killed, or cancelled, during the wait) is in no record; when the
next `up` replaces it (an edit, `--replace`) the engine deletes it after the new run's wait, and it would leave no
trace. The TrainingJob's create knows the runs it replaces (the ids the state holds for its key: the engine showed
them to this process, or the state read for a `--replace`); it notes them here, and the JobsAwait of the same `up`
(the same provider process on both front doors) records each one it has no record of, read once from the service.
Only ids are kept: nothing secret.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

_LOCK = threading.Lock()
_REPLACED: dict[str, tuple[str, ...]] = {}  # new job id -> the ids of the runs of its key it replaces


def note(new_job_id: str, replaced: Iterable[str]) -> None:
    ids = tuple(sorted({i for i in replaced if i and i != new_job_id}))
    if new_job_id and ids:
        with _LOCK:
            _REPLACED[new_job_id] = ids


def replaced_by(job_id: str) -> tuple[str, ...]:
    with _LOCK:
        return _REPLACED.get(job_id, ())
