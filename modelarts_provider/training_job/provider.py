"""TrainingJobProvider: the dynamic provider behind TrainingJob.

Create submits the job (one POST when nothing went wrong) and returns as soon as the service
accepted it; waiting is the awaiting resource's job. diff makes no API call; check's static checks make
none, and its catalog check (catalog_check.py) reads the service's catalogs only for a job to be submitted.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from typing import Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult

from . import lifecycle
from .args import TrainingJobArgs, keeps_finished_runs
from .catalog_check import CatalogCache, catalog_failures, needs_check
from .default_tags import DEFAULT_TAGS_KEY, parse_default_tags, with_default_tags
from .check import check_inputs
from .diff import decide, needs_live_phase, pool_replacement_refusal, same_name_refusal
from .name_index import NameIndex
from .naming import SEED_INPUT, with_identity
from .normalize import stored_args, stored_form, validated
from .outputs import OUTPUT_KEYS, status_outputs, strip_outputs
from .plaintext_credentials import warn_once
from .service_limit import with_service_limit
from .state_jobs import STATE_JOBS, StateUnreadable
from ..client.errors import ModelArtsError
from ..core.call_urn import current_urn
from ..core.job_secrets import of_props
from ..core.masking import NONE, Secrets, binding
from ..core.location import check_same_place, location_of
from ..core.ownership import OwnerMark, key_of, with_key_secret
from ..core.deferred_tags import TAG_WRITES
from ..core.provider_base import ModelArtsProvider
from ..core.provider_server import dynamic_server, serving_engine
from ..core.output_lines import say
from ..core.provider_error import ProviderError
from ..core.provider_config import NAMESPACE


def _joined_later(args: TrainingJobArgs) -> bool:
    """Whether the job's tag call may leave its create (core/deferred_tags.py): in the stack program's door, for a
    job its JobsAwait waits for (stack/declare.py awaits every job whose wait_for is not none), which joins it."""
    return args.wait_for != "none" and dynamic_server()


class TrainingJobProvider(ModelArtsProvider):
    _index: NameIndex | None = None
    _index_lock = threading.Lock()
    # Job ids the state holds, per owner token, as the engine showed them to this process (diff, read,
    # update): a replacement that creates its successor first must not take the job it replaces for an
    # orphan of a killed `up` (the engine deletes that one itself, after the create).
    _tracked: dict[str, set[str]] = {}

    _default_tags: dict[str, str] = {}  # modelarts:defaultTags (default_tags.py), read at configure

    def configure(self, req: Any) -> None:
        super().configure(req)
        try:
            self._default_tags = parse_default_tags(req.config.get(f"{NAMESPACE}:{DEFAULT_TAGS_KEY}"))
        except ValueError as err:  # every check says so, in one line naming the setting
            self._default_tags = {}
            self._config_error = self._config_error or f"{NAMESPACE}:{DEFAULT_TAGS_KEY}: {err}"

    def secrets_of(self, *props: dict[str, Any]) -> Secrets:
        """What this call masks: the job's values at its `secret_paths` (core/job_secrets.py), the stack's seed
        (never printed; masked should it ever be); its own names are shown as they are."""
        secrets = NONE
        for p in props:
            seed = p.get(SEED_INPUT)
            secrets |= of_props(p) | Secrets.of([seed] if isinstance(seed, str) else [], explicit=True)
            secrets |= Secrets.of(key_of(p), explicit=True)
        return secrets

    def _track(self, id_: str, props: dict[str, Any]) -> None:
        token = (props.get("owner") or {}).get("token") if isinstance(props.get("owner"), dict) else None
        if id_ and isinstance(token, str):
            with self._index_lock:
                self._tracked.setdefault(token, set()).add(id_)

    def _tracked_for(self, args: TrainingJobArgs) -> frozenset[str]:
        if args.owner is None:
            return frozenset()
        with self._index_lock:
            return frozenset(self._tracked.get(args.owner.token, ()))

    # The service's catalogs per client, i.e. per place (one client per settings per process): read at
    # most once per provider process.
    _catalogs: dict[Any, CatalogCache] = {}

    def _catalog_cache(self) -> CatalogCache | None:
        try:
            settings = self._require_settings()
            client = self._api()
        except ProviderError:
            return None  # no settings at all: create says so
        with self._index_lock:
            cache = self._catalogs.get(client)
            if cache is None:
                cache = self._catalogs[client] = CatalogCache(client, settings.region, say)
            return cache

    def _names(self) -> NameIndex:
        with self._index_lock:
            if self._index is None:
                self._index = NameIndex(self._api())
            return self._index

    def _status(self, job: Any) -> dict[str, Any]:
        s = self._require_settings()
        return status_outputs(job, cloud=s.cloud, region=s.region,
                              location=location_of(s).model_dump())

    def _same_place(self, id_: str, props: dict[str, Any]) -> None:
        check_same_place(props.get("location"), location_of(self._require_settings()),
                         f"training job {props.get('job_name') or props.get('name') or ''} ({id_})")

    def _held_names(self, news: dict[str, Any]) -> frozenset[str]:
        """For a check with no old inputs: the names of this resource's jobs the stack's state holds, when a
        job of ours already carries the derived name (`pulumi up --replace`, a taint, or a killed `up`:
        state_jobs.py tells them apart). Nothing to read otherwise; a state that cannot be read counts the
        name as held (a new run: nothing the state may hold is taken over)."""
        name, owner = news.get("name"), news.get("owner")
        if not news.get("derived_name") or not isinstance(name, str) or not isinstance(owner, dict):
            return frozenset()
        if self._settings is None or not serving_engine():  # not configured, or not the engine's call: no state
            return frozenset()
        try:
            mark = OwnerMark.model_validate(owner)
            index = self._names()
            found = [j for j in index.lookup(name, news.get("workspace_id")) if lifecycle.is_ours(j, mark)]
        except (ValueError, ProviderError, ModelArtsError):
            return frozenset()  # unknown token (preview), no settings, service unreadable: create decides
        if not found:
            return frozenset()
        try:
            held = STATE_JOBS.held(mark.stack, mark.token)
        except StateUnreadable as err:
            say(f"{name}: {err}: a job of this name exists ({found[0].id}); this check runs a new one beside it")
            return frozenset({name})
        return frozenset(held.values()) if any(j.id in held for j in found) else frozenset()

    def _held_ids(self, args: TrainingJobArgs) -> frozenset[str] | None:
        if args.owner is None:
            return frozenset()
        try:
            return frozenset(STATE_JOBS.held(args.owner.stack, args.owner.token))
        except StateUnreadable as err:
            say(f"{args.name}: {err}")
            return None

    # The owner token the state records, per resource URN, as this process's checks with old inputs saw it: the
    # engine checks a replacement again with no old inputs, which would derive the token from the seed anew (a
    # new token if the seed was replaced since): the replacement keeps the recorded one, as the docs promise.
    _tokens: dict[str, str] = {}

    def _recorded_token(self, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        urn, owner = current_urn(), news.get("owner")
        if not urn or not isinstance(owner, dict) or owner.get("token"):
            return news
        recorded = (olds or {}).get("owner")
        if isinstance(recorded, dict) and isinstance(recorded.get("token"), str) and recorded["token"]:
            with self._index_lock:
                self._tokens[urn] = recorded["token"]
            return news
        with self._index_lock:
            token = self._tokens.get(urn)
        return {**news, "owner": {**owner, "token": token}} if token else news

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        # The service's own limit from the wait deadline, for both front doors (docs/cost.md); before the derived
        # name, which the spec (the limit in it) decides.
        given = self._recorded_token(olds, with_service_limit(olds, with_default_tags(news, self._default_tags)))
        news = with_identity(given, olds or None)  # owner token and derived name, before anything is created
        if not olds:
            taken = self._held_names(news)
            if taken:  # the state holds the job of this name: a replacement of it runs anew
                news = with_identity(given, None, taken)
        with binding(of_props(news)):  # the derived name, now known, is shown as it is
            return self._check_bound(olds, news)

    def _check_bound(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        inputs, failures = check_inputs(news, olds or None)
        out = [CheckFailure(f.property, f.reason) for f in failures]
        if not out:
            warn_once(inputs, say)  # a plaintext credential in environments: accepted, with a warning
        if self._config_error is not None:
            out.append(CheckFailure("modelarts", f"provider configuration: {self._config_error}"))
        elif not out and needs_check(olds, inputs):
            cache = self._catalog_cache()
            if cache is not None:
                out += [CheckFailure(f.property, f.reason) for f in catalog_failures(inputs, cache)]
        return CheckResult(with_key_secret(stored_form(inputs, strip_outputs(olds) if olds else None) if not out
                                           else inputs), out)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        self._track(id_, olds)
        d = decide(id_, olds, news)
        if needs_live_phase(d, olds, news):
            # The state's phase is the one seen at create; what the run became since decides the order
            # (a Completed run is kept until its successor is accepted) and replace_failed.
            self._same_place(id_, olds)
            job = self._api().get_job(id_)
            olds = {**olds, "phase": job.phase if job is not None else None}
            d = decide(id_, olds, news)
        refusal = same_name_refusal(d, olds, news) or pool_replacement_refusal(d, olds, news)
        if refusal is not None:
            raise ProviderError(refusal)
        return DiffResult(changes=d.changes, replaces=d.replaces or None,
                          delete_before_replace=d.delete_before_replace if d.replaces else None)

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = validated(strip_outputs(props))
        # The stack's state is there to read only for the engine's calls (they name their resource's URN).
        writes = TAG_WRITES if _joined_later(args) else None
        with writes.creating() if writes is not None else nullcontext():  # its tag call waits for the last create
            job = lifecycle.submit(self._api(), args, self._names(), say, self._tracked_for(args),
                                   (lambda: self._held_ids(args)) if serving_engine() else None, writes)
        return CreateResult(job.id, with_key_secret({**stored_args(args), **self._status(job)}))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        self._same_place(id_, props)
        self._track(id_, props)
        job = self._api().get_job(id_)
        if job is None:  # the documented not-found code only; any other error raises
            say(f"job {id_}: gone, dropping it from the state")
            return ReadResult("", {})
        inputs = strip_outputs(props)
        # Description is the one field that can drift in place; show it so the next up restores it.
        if job.description is not None and "description" in inputs:
            inputs["description"] = job.description
        return ReadResult(id_, with_key_secret({**inputs, **self._status(job)}))

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        self._same_place(id_, olds)
        args = validated(strip_outputs(news))
        status = {k: olds.get(k) for k in OUTPUT_KEYS}
        if (olds.get("description") or "") != args.description:
            job = self._api().update_description(id_, args.description)
            say(f"{job.name}: description updated")
            status = self._status(job)
        lifecycle.upgrade_proof(self._api(), id_, OwnerMark.model_validate(olds["owner"]) if olds.get("owner")
                                else None, args, say)
        recorded: dict[str, str] = olds.get("tags") or {}
        if recorded != args.tags:  # in place, through the tag API: the job stays the same
            name = olds.get("job_name") or args.name or id_
            self._api().delete_job_tags(id_, [k for k in recorded if k not in args.tags])
            self._api().create_job_tags(id_, {k: v for k, v in args.tags.items() if recorded.get(k) != v})
            say(f"{name}: tags updated")
        return UpdateResult(with_key_secret({**stored_args(args), **status}))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        """Stop and delete the job; a finished run stays in the service when keep_finished_runs says so.
        Unset (a derived name): when it was replaced, i.e. a newer run of ours carries its key's owner token
        (the successor a create-first replacement submitted before this delete); when it was not (its key
        removed, or destroy), the key's kept runs go with it (ours and finished only)."""
        timeout = props.get("delete_timeout_seconds") or 900
        poll = props.get("poll_interval_seconds") or 5.0
        self._same_place(id_, props)
        owner = OwnerMark.model_validate(props["owner"]) if props.get("owner") else None
        default = not isinstance(props.get("keep_finished_runs"), bool) and keeps_finished_runs(props)
        if not default or owner is None:
            lifecycle.stop_and_delete(self._api(), id_, float(timeout), float(poll), say, owner,
                                      keep_finished=keeps_finished_runs(props))
            self._names().forget(id_)
            return
        names, workspace = self._names(), props.get("workspace_id")
        seen: dict[str, bool] = {}

        def replaced(job: Any) -> bool:
            seen["replaced"] = any((j.metadata.create_time or 0) > (job.metadata.create_time or 0)
                                   for j in names.owned_by(owner.token, workspace)
                                   if j.id != job.id and lifecycle.is_ours(j, owner))
            return seen["replaced"]

        lifecycle.stop_and_delete(self._api(), id_, float(timeout), float(poll), say, owner, keep_finished=replaced)
        names.forget(id_)
        if seen.get("replaced") is False and props.get("delete_before_replace") is not True:
            # A finished run with no successor: its key was removed (or the stack destroyed). A running
            # one, or one deleted first by delete_before_replace, may be a replacement: its kept runs stay.
            lifecycle.delete_runs(self._api(), owner, workspace, names, say, keep=0, besides=id_,
                                  why="kept run of a removed key; keepFinishedRuns: true keeps it",
                                  gone_within=(float(timeout), float(poll)))
