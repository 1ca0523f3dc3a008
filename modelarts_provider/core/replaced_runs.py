"""Which earlier runs of a job key a new run replaces, carried in the new job's annotations (issues 43, 58).

The run history lives in the JobsAwait (awaiting/history.py), which records the runs it waits for. A run no
JobsAwait ever finished waiting for (its `up` was killed, or cancelled, during the wait) is in no record; when the
next `up` replaces it (an edit, `--replace`) the engine deletes it after the new run's wait, and it would leave no
trace. The TrainingJob's create knows the runs it replaces (the ids the state holds for its key: the engine showed
them to its provider, or the state read for a `--replace`); it writes them into the new job's POST, as the annotation
`modelarts-pulumi/replaces`, and the JobsAwait reads them from the job it waits for (the views its wait already
holds: no call more) and records each one it has no record of, read once from the service.

The service's data, not the provider process's memory: a JobsAwait served by another process than the job (a YAML
program's explicit provider for it, each provider its own plugin process) reads the same. A service that drops
annotations leaves that one record out (the wait sees no such annotation), as it would a run no record has.
Only ids are kept: nothing secret; a job's annotation is read only for a job the JobsAwait waits for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..client.owner_token import PREFIX

REPLACES_ANNOTATION = PREFIX + "replaces"
# At most this many ids (the first in sorted order: ids carry no age): a key replaced this often while no wait
# recorded its runs is rare, and the annotation stays small.
MAX_IDS = 20
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$")  # a job id: a UUID on the service


def annotation(new_job_id: str | None, replaced: Iterable[str]) -> dict[str, str]:
    """The annotation naming the runs a new job replaces ({} when none)."""
    ids = sorted({i for i in replaced if i and i != new_job_id and _ID.match(i)})[:MAX_IDS]
    return {REPLACES_ANNOTATION: ",".join(ids)} if ids else {}


def replaced_by(job_id: str, annotations: Mapping[str, str] | None) -> tuple[str, ...]:
    """The runs a job's annotations say it replaces: well-formed ids only, never the job itself."""
    raw = (annotations or {}).get(REPLACES_ANNOTATION)
    if not isinstance(raw, str):
        return ()
    return tuple(sorted({i for i in raw.split(",") if _ID.match(i) and i != job_id}))[:MAX_IDS]
