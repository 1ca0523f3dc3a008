"""A job's owner token and derived name, decided in check from the stack's seed (modelarts_provider.core.identity).

Both front doors call `with_identity` first in check: the Python program passes the seed as the `owner_seed`
input (its stack-level RandomPassword), the provider plugin passes its own seed the same way. The seed itself
is never recorded in the job's state; what is derived from it is, before the job's POST:

- `owner.token`: the recorded one when there is one, else HMAC(seed, resource name);
- `name` (when derived): the recorded name while the spec stays the same; otherwise
  `<resource name>-<HMAC(seed, resource name, spec hash)>`: a new name for each replacement, the same again for
  a replacement killed and tried again. (The engine checks a replacement's inputs again with no old inputs, so
  nothing recorded can tell one replacement from the next: the spec does, as the RandomString keepers did.)
  `output_per_run` (on by default for a derived name) puts each output channel and the log export path in a
  folder named after that run. A recorded run keeps the layout it was created with: when the declaration is the
  recorded one but for the layout (a state written before per-run folders were the default, or the option
  toggled), the recorded paths stand and the option applies from the next run: an upgrade re-runs nothing and
  moves no file.
  A check with no old inputs whose derived name a job of this resource already carries, and which the stack's
  state holds (`pulumi up --replace`, a taint: state_jobs.py), takes the next generation's name instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Callable

from ..core.identity import SEED_INPUT, SUFFIX_LENGTH, is_seed, suffix_for, token_for
from ..core.ownership import with_mark_key
from .args import writes_per_run
from .normalize import spec_hash, spec_of, try_canonical
from .outputs import strip_outputs
from ..core.unknowns import STAND_IN_NAME, UNKNOWN, contains_unknown, is_unknown


def name_prefix(resource_name: str) -> str:
    """A job-name-safe prefix of the resource name, leaving room for '-' + suffix."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", resource_name).strip("-") or "job"
    return safe[: 64 - SUFFIX_LENGTH - 1]


def plain_folder(url: Any, run: Any) -> Any:
    if not isinstance(url, str):
        return url
    return UNKNOWN if is_unknown(run) else url.rstrip("/") + "/" + run + "/"


def with_run_folders(props: dict[str, Any], run: Any, in_folder: Callable[[Any, Any], Any] = plain_folder) -> dict[str, Any]:
    """output_per_run: every output channel and the log export path get a folder named after the run (the
    derived job name, renewed with each replacement), so a new run never writes over an earlier one."""
    out = dict(props)
    alg = out.get("algorithm")
    if isinstance(alg, Mapping) and isinstance(alg.get("outputs"), list):
        out["algorithm"] = {**alg, "outputs": [{**ch, "obs_url": in_folder(ch["obs_url"], run)}
                                               if isinstance(ch, Mapping) and ch.get("obs_url") else ch
                                               for ch in alg["outputs"]]}
    log = out.get("log_export_path")
    if isinstance(log, Mapping) and log.get("obs_url"):
        out["log_export_path"] = {**log, "obs_url": in_folder(log["obs_url"], run)}
    return out


def _named(news: dict[str, Any], name: Any, per_run: bool | None = None) -> dict[str, Any]:
    """news named `name`, in a folder per run when the option says so (or `per_run`, when given)."""
    out = {**news, "name": name}
    if per_run is None:
        per_run = writes_per_run({**out, "derived_name": True})  # only derived names are named here
    return with_run_folders(out, name) if per_run else out


def _same_spec(candidate: dict[str, Any], olds: dict[str, Any]) -> bool:
    """The candidate (named as recorded) declares the recorded job; an unknown spec counts as the same
    (preview): the values decide once known."""
    raw_new, raw_old = strip_outputs(candidate), strip_outputs(olds)
    new, old = try_canonical(raw_new), try_canonical(raw_old)
    if new is None or old is None:  # invalid: check says why; the same text is the same declaration
        new, old = ({k: v for k, v in d.items() if v is not None} for d in (raw_new, raw_old))
    return contains_unknown(spec_of(new)) or spec_of(new) == spec_of(old)


def _owner(news: dict[str, Any], olds: dict[str, Any], seed: Any) -> Any:
    return with_mark_key(_owner_token(news, olds, seed), olds, seed)


def _owner_token(news: dict[str, Any], olds: dict[str, Any], seed: Any) -> Any:
    owner = news.get("owner")
    if not isinstance(owner, dict) or owner.get("token") or not isinstance(owner.get("resource"), str):
        return owner
    recorded = olds.get("owner") if isinstance(olds.get("owner"), dict) else {}
    if isinstance(recorded.get("token"), str) and recorded["token"]:
        return {**owner, "token": recorded["token"]}
    if is_unknown(seed):
        return {**owner, "token": UNKNOWN}
    if is_seed(seed):
        return {**owner, "token": token_for(seed, owner["resource"])}
    return owner  # no seed: validation says the token is missing


def derived_name(seed: str, resource: str, spec: str, taken: Collection[str] = ()) -> str:
    """`<resource name>-<suffix>` of the first generation whose name no job in `taken` carries."""
    generation = 0
    while True:
        name = f"{name_prefix(resource)}-{suffix_for(seed, resource, spec, generation)}"
        if name not in taken:
            return name
        generation += 1


def with_identity(news: dict[str, Any], olds: dict[str, Any] | None,
                  taken: Collection[str] = ()) -> dict[str, Any]:
    """news with its owner token and derived name filled in, and the seed taken out (module docstring).
    `taken`: names of this resource's jobs the stack's state holds, for a check with no old inputs (a
    `pulumi up --replace`): the derived name is the first generation not among them (state_jobs.py)."""
    olds = olds or {}
    seed = news.get(SEED_INPUT)
    out = {k: v for k, v in news.items() if k != SEED_INPUT}
    out["owner"] = _owner(out, olds, seed)
    if out.get("owner") is None:
        out.pop("owner")
    if not out.get("derived_name") or out.get("name") is not None or out.get("adopt_job_id") is not None:
        return out
    recorded = olds.get("job_name") or olds.get("name")
    if olds.get("derived_name") and isinstance(recorded, str) and not is_unknown(recorded):
        declared = writes_per_run({**out, "derived_name": True})
        for per_run in (declared, not declared):  # the declared layout, else the one the run was created with
            candidate = _named(out, recorded, per_run)
            if _same_spec(candidate, olds):
                return candidate
    owner = out.get("owner") if isinstance(out.get("owner"), dict) else {}
    resource = owner.get("resource") if isinstance(owner.get("resource"), str) else None
    canonical = try_canonical({**out, "name": STAND_IN_NAME})
    if is_unknown(seed) or contains_unknown(spec_of(canonical if canonical is not None else out)):
        return _named(out, UNKNOWN)  # known at `up`
    if not is_seed(seed) or resource is None:
        return out  # nothing to derive from: validation says the name is missing
    named = _named(out, derived_name(seed, resource, spec_hash(out), taken))
    if olds and not _same_spec(named, olds):
        # A recorded run named otherwise (adopted, or named explicitly before) keeps its layout too: the
        # derived name never replaces a job by itself (diff.py), so neither may the folder named after it.
        plain = _named(out, named["name"], False)
        if _same_spec(plain, olds):
            return plain
    return named
