"""Which planned jobs can still bill: a run that finished is spent, not bound.

The bound promises what the stack can bill from now on. A job whose run the state records as finished
(Completed, Failed, Abnormal, Terminated) and whose declaration is unchanged will not be submitted again (the
provider's diff keeps it), so it bills nothing more: its cost is in "spent" (cost/spent.py), not in the bound. A
2 CNY budget on a completed sweep must not refuse the preview of the unchanged stack.

What counts as unchanged is decided conservatively, from the stack's state alone (cost/recorded.py): every input
whose change re-runs a job (the provider's own list: training_job/args.py) is compared in canonical form
(training_job/normalize.py); a local code directory by its content hash (the CodeUpload's recorded one against the
directory's now); a failed run with `replaceFailed: true` runs again. Anything not comparable (a secret value the
state holds encrypted, an input that does not validate) counts as changed: it stays in the bound. A job still
running stays in the bound too (it can bill up to its limit).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..client.models import TERMINAL_PHASES
from ..core.unknowns import STAND_IN_NAME
from ..training_job.args import MESSAGE_ONLY_FIELDS, PROVIDER_ONLY_FIELDS, UPDATABLE_FIELDS, TrainingJobArgs
from ..training_job.normalize import try_canonical
from ..training_job.service_limit import with_service_limit
from .recorded import Recorded
from .shapes import CostedPlan

# Never part of what is submitted: the name (derived from the spec), the owner mark, and what steers the provider.
_NOT_SUBMITTED = {"name", "derived_name", "owner", "secret_paths", "config_keys", "adopt_job_id",
                  *PROVIDER_ONLY_FIELDS, *UPDATABLE_FIELDS, *MESSAGE_ONLY_FIELDS}
_FIELDS = set(TrainingJobArgs.model_fields)
# An upload's outputs (code_dir, boot_file): compared by its content hash and boot file instead (_same_code).
_UPLOADED = {"code_dir": "obs://code-upload/code/", "boot_file": "obs://code-upload/code/boot.py"}


def _run_folder_off(url: Any, run: str) -> Any:
    """`<path>/<run name>/` -> `<path>/`: the folder of its own a run writes into (outputPerRun), which the check
    adds to the declared path once the name is derived; the declaration is the path without it."""
    suffix = f"{run}/"
    return url[: -len(suffix)] if run and isinstance(url, str) and url.endswith("/" + suffix) else url


def _declared_paths(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Recorded inputs with each run's own output and log folder taken off (as declared)."""
    run = raw.get("name") if raw.get("derived_name") is True else None
    if not isinstance(run, str):
        return dict(raw)
    out = dict(raw)
    alg = out.get("algorithm")
    if isinstance(alg, Mapping) and isinstance(alg.get("outputs"), list):
        out["algorithm"] = {**alg, "outputs": [{**o, "obs_url": _run_folder_off(o.get("obs_url"), run)}
                                               if isinstance(o, Mapping) else o for o in alg["outputs"]]}
    log = out.get("log_export_path")
    if isinstance(log, Mapping):
        out["log_export_path"] = {**log, "obs_url": _run_folder_off(log.get("obs_url"), run)}
    return out


def _comparable(raw: Mapping[str, Any], upload: bool) -> dict[str, Any] | None:
    """The submitted part of a job's inputs, in canonical form; None when it does not validate."""
    kept = {k: v for k, v in _declared_paths(raw).items() if k in _FIELDS and k not in _NOT_SUBMITTED}
    if upload and isinstance(kept.get("algorithm"), Mapping):
        kept["algorithm"] = {**kept["algorithm"], **_UPLOADED}  # the same stand-ins on both sides
    canon = try_canonical({**kept, "name": STAND_IN_NAME, "derived_name": True})
    if canon is None:
        return None
    return {k: v for k, v in canon.items() if k not in _NOT_SUBMITTED}


@lru_cache(maxsize=64)
def _content_hash(local_dir: str, boot_file: str, excludes: tuple[str, ...]) -> str | None:
    from ..code_upload.inputs import provider_inputs

    got = provider_inputs("code", {"local_dir": local_dir, "boot_file": boot_file, "excludes": list(excludes)})
    value = got.get("content_hash")
    return value if isinstance(value, str) else None


def _same_code(p: CostedPlan, rec: Recorded) -> bool:
    up = p.upload
    if up is None:
        return True
    given = rec.uploads.get(f"{up.key}-code")
    if not given or given.get("boot_file_path") != up.boot_file.removeprefix("./"):
        return False
    now = _content_hash(up.local_dir, up.boot_file, up.excludes)
    return now is not None and given.get("content_hash") == now


def _name(p: CostedPlan, rec: Recorded) -> str | None:
    """The name the state records the plan's job under: its key, else a key it moved from."""
    return next((n for n in (p.key, *p.moved_from) if n in rec.inputs), None)


def kept(p: CostedPlan, rec: Recorded) -> bool:
    """The state records the plan's job and this plan does not re-run it: its declaration is unchanged (what
    cannot be compared counts as changed) and no failed run of it is re-run by `replaceFailed`."""
    name = _name(p, rec)
    if name is None:
        return False
    phase = rec.phases.get(name) or rec.phases.get(p.key)
    if phase in TERMINAL_PHASES and phase != "Completed" and p.args.replace_failed:
        return False
    upload = p.upload is not None
    # what the TrainingJob's check will make of the args: the limit its wait gives it, or the one it keeps
    args = with_service_limit(dict(rec.inputs[name]), p.args.model_dump(exclude_none=True, exclude_defaults=True))
    planned = _comparable(args, upload)
    recorded = _comparable(rec.inputs[name], upload)
    return planned is not None and planned == recorded and _same_code(p, rec)


def finished(p: CostedPlan, rec: Recorded) -> bool:
    """The plan's job ran to an end the state records and will not be submitted again."""
    name = _name(p, rec)
    return name is not None and (rec.phases.get(name) or rec.phases.get(p.key)) in TERMINAL_PHASES and kept(p, rec)


def spent_keys(plans: list[CostedPlan], rec: Recorded) -> set[str]:
    """The keys of the planned jobs whose runs are spent, not bound."""
    if not rec.inputs:
        return set()
    return {p.key for p in plans if finished(p, rec)}
