"""JobsAwaitProvider: waits for many training jobs in one provider call.

- create: wait for every job; the outputs record each job's phase and whether it reached its target.
- diff: changes only when a job was added or removed, its id changed (a replaced job; unknown at
  preview), its target changed, or it had not reached its target: so a second `up` of an unchanged
  stack makes no call and waits for nothing.
- update: waits for the changed jobs alone; the others keep what was recorded.
- read (refresh): one round of polls refreshes every job's phase.
- delete: nothing remote (the jobs are TrainingJob resources of their own).
A wait that does not end well fails the `up` and still records what it saw (core/recorded_failure.py: the
engine's init error), so the runs that succeeded keep their results, run records and output paths, and the next
`up` judges the failed jobs again; a wait cancelled or cut short records nothing. A failure is settled (recorded as
tolerated, not waited for again, said as a warning by every later diff: accepted.py) when its job accepts it
(`accept_failed`) or it is a sweep point within its sweep's maxFailures (`max_failures`). While it waits,
running jobs with an objective or metrics get progress lines of their latest values (progress.py: bounded log
reads, rate-limited lines). After the wait, the objective and metric curves of each newly completed job that has
them are read from its log (objectives.py), and each sweep's table is printed (results/table.py); jobs not waited
for this time keep what was recorded, so an unchanged stack reads no log.
- runs (history.py): every run of each key stays on record, newest last, after it is replaced or removed;
  carried from the previous outputs at each update.
- owner tags: the stack program's awaited jobs return from their create after the POST and hand their tag call over
  (core/deferred_tags.py); the wait joins those calls once it is over, fails the `up` naming a job left untagged
  (recorded as `untagged`, so the next `up` writes its tags again), and never succeeds before every job is tagged.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult
from pydantic import ValidationError

from ..client.errors import ModelArtsError
from ..core.deferred_tags import TAG_WRITES, Unwritten
from ..core.provider_base import ModelArtsProvider
from ..core.engine_watch import engine_alive
from ..core.output_lines import say
from ..core.provider_error import ProviderError
from ..wait_engine import cancelled
from ..core.job_secrets import job_secrets
from ..core.recorded_failure import RecordedFailure
from ..core.failures import failures_from
from ..core.unknowns import contains_unknown
from .args import OUTPUT_KEYS, AwaitedJob, AwaitedStatus, JobsAwaitArgs, JobsAwaitOutputs
from .conditions import Verdict, reached
from ..core import replaced_runs
from . import history
from .accepted import settled_lines
from .removals import removal_warning
from .report import failure_report
from .results import enrich, over_bound, report_tables, tolerated_note
from .progress import LiveMetrics
from .searches import SearchProgress
from .watcher import Result, Watched, Watcher, WaitAborted, WaitCancelled

# The owner tags a wait found not written (core/deferred_tags.py: its jobs' creates handed their tag calls over),
# {job id: {name, tags}}: recorded with the failed `up`, written again by the next one (its diff is a change while
# any are left). Absent when there are none.
UNTAGGED = "untagged"


def _inputs(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and k != UNTAGGED and not k.startswith("__")}


def _untagged(props: dict[str, Any]) -> dict[str, Any]:
    recorded = props.get(UNTAGGED)
    return {UNTAGGED: recorded} if isinstance(recorded, dict) and recorded else {}


class JobsAwaitProvider(ModelArtsProvider):
    # No secrets bound for the whole call (provider_base.secrets_of): what is printed of one job (its failure, log
    # tail, table rows, recorded parameters) is masked with that job's own `secrets` where it is made, so that one
    # job's secret never masks another job's plain value; the other lines hold names, phases and numbers.

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        raw = _inputs(news)
        try:
            JobsAwaitArgs.model_validate(raw)
        except ValidationError as e:
            failures = [CheckFailure(f.property, f.reason) for f in failures_from(e, raw)]
            if failures or not contains_unknown(raw):
                return CheckResult(raw, failures)
            return CheckResult(raw, [])  # decided once the job ids are known
        # Defaults filled in, so an omitted wait_for compares equal to the recorded "created".
        return CheckResult(JobsAwaitArgs.model_validate(raw).model_dump(mode="json", exclude_none=True), [])

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        jobs = _inputs(news).get("jobs")
        if contains_unknown(jobs) and not isinstance(jobs, dict):
            return DiffResult(changes=True, replaces=None)  # a whole new set of jobs: known at up
        changed = self._changed(olds, jobs or {}, _inputs(news).get("max_failures"))
        if isinstance(jobs, dict):
            warning = removal_warning(olds, jobs)
            if warning:
                say(warning)  # shown in the preview: what the update deletes of the jobs waited for
        for line in self._settled(olds, changed):
            say(line)  # failed runs on record stay in sight, though nothing waits for them again (accepted.py)
        return DiffResult(changes=bool(changed) or bool(_untagged(olds)), replaces=None)

    @staticmethod
    def _settled(olds: dict[str, Any], changed: list[str]) -> list[str]:
        """The warnings of the settled failures recorded in `olds` that this update leaves as they are."""
        statuses = olds.get("statuses") if isinstance(olds.get("statuses"), dict) else {}
        settled = {k: v for k, v in statuses.items() if k not in changed and isinstance(v, dict) and v.get("tolerated")}
        if not settled:
            return []  # the common case costs nothing: no model of a 1,000-job wait built at every preview
        jobs = olds.get("jobs") if isinstance(olds.get("jobs"), dict) else {}
        given = olds.get("secrets") if isinstance(olds.get("secrets"), dict) else {}
        secrets = {k: job_secrets(given.get(k) or {}, [str((jobs.get(k) or {}).get("job_name") or "")])
                   for k in settled if isinstance(given.get(k), dict)}
        bounds = olds.get("max_failures") if isinstance(olds.get("max_failures"), dict) else {}
        return settled_lines(jobs, settled, bounds, secrets)

    @staticmethod
    def _changed(olds: dict[str, Any], new_jobs: dict[str, Any], new_bounds: dict[str, Any] | None = None) -> list[str]:
        statuses = olds.get("statuses") or {}
        old_jobs = olds.get("jobs") if isinstance(olds.get("jobs"), dict) else {}
        old_bounds = olds.get("max_failures") or {}
        keys = set(statuses) | set(new_jobs)
        out = []
        for key in sorted(keys):
            new, old = new_jobs.get(key), statuses.get(key)
            if new is None or old is None or contains_unknown(new) or not (old.get("reached") or old.get("tolerated")) \
                    or new.get("job_id") != old.get("job_id") or new.get("wait_for") != old.get("wait_for"):
                out.append(key)
            elif (old_jobs.get(key) or {}).get("objective") != new.get("objective") \
                    or (old_jobs.get(key) or {}).get("search") != new.get("search") \
                    or ((old_jobs.get(key) or {}).get("metrics") or []) != (new.get("metrics") or []):
                out.append(key)  # scored differently: its log (its trials) read again
            elif old.get("tolerated") and (new_bounds or {}).get(new.get("group")) != old_bounds.get(new.get("group")):
                out.append(key)  # its sweep's bound changed: judged again
            elif old.get("tolerated") and bool(new.get("accept_failed")) != \
                    bool((old_jobs.get(key) or {}).get("accept_failed")):
                out.append(key)  # accepted, or no longer: judged again
        return out

    def _wait(self, jobs: dict[str, AwaitedJob]) -> tuple[dict[str, AwaitedStatus], list[Result]]:
        """The jobs awaited: a status for each (failed ones not reached), and the watcher's results."""
        watched = [Watched(k, j.job_id, j.job_name or j.job_id, j.wait_for, j.timeout_seconds, j.poll_seconds,
                           j.workspace_id, j.group) for k, j in jobs.items()]
        if not watched:
            return {}, []
        client = self._api()
        say(f"waiting for {len(watched)} training job{'s' if len(watched) != 1 else ''}: "
            + ", ".join(f"{w.name} ({w.target})" for w in watched[:8]) + (" ..." if len(watched) > 8 else ""))
        try:
            searches = SearchProgress(client, say, {k: j.search for k, j in jobs.items() if j.search is not None})
            live = LiveMetrics(client, say, jobs)  # running jobs' latest metric values (progress.py)
            hooks = [h for h in (searches if searches.searches else None, live if live else None) if h is not None]

            def on_poll(polled: list[tuple[Watched, Any]]) -> None:
                for hook in hooks:
                    hook(polled)

            results = Watcher(client, say, alive=engine_alive, cancelled=cancelled,
                              on_poll=on_poll if hooks else None).run(watched)
        except WaitCancelled as err:
            raise ProviderError(f"{err}; they stay in the state, and the next `pulumi up` waits for them again") from None
        except WaitAborted as err:
            raise ProviderError(f"waiting for training jobs stopped: {err}") from None
        return {r.watched.key: AwaitedStatus(job_id=r.watched.job_id, job_name=r.watched.name,
                                             wait_for=r.watched.target, phase=r.phase,
                                             reached=r.outcome.verdict is Verdict.REACHED,
                                             workspace_id=r.watched.workspace_id)
                for r in results}, results

    def _tags_written(self, args: JobsAwaitArgs, olds: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """After the wait: this process's tag calls of the jobs waited for joined (they left their creates:
        core/deferred_tags.py), and those a failed `up` recorded written again. The jobs still untagged (UNTAGGED)
        and the refusal naming them (None: every job is tagged)."""
        ids = {j.job_id for j in args.jobs.values()}
        left = TAG_WRITES.join(ids)
        failed = {u.job_id for u in left}
        recorded = _untagged(olds).get(UNTAGGED, {})
        for job_id, entry in recorded.items():
            if job_id not in ids or job_id in failed or not isinstance(entry, dict):
                continue  # a job no longer waited for went with its TrainingJob (deleted or replaced)
            name, tags = str(entry.get("name") or job_id), dict(entry.get("tags") or {})
            try:
                self._api().create_job_tags(job_id, tags)
            except ModelArtsError as err:
                left.append(Unwritten(job_id, name, tags, f"{err.error_code} {err.error_msg}"))
        if not left:
            return {}, None
        n = len(left)
        return ({UNTAGGED: {u.job_id: {"name": u.name, "tags": u.tags} for u in left}},
                f"the owner tags of {n} training job{'s' if n != 1 else ''} were not written ("
                + "; ".join(u.line for u in left) + "): each carries its owner mark in its annotations; "
                "run `pulumi up` again to write the tags")

    def _settle(self, args: JobsAwaitArgs, kept: dict[str, AwaitedStatus], waited: set[str],
                olds: dict[str, Any] | None = None) -> tuple[dict[str, AwaitedStatus], dict[str, Any], str | None,
                                                             dict[str, Any]]:
        """Wait for the `waited` keys, judge the failures (accepted, or within their sweeps' bounds, with the `kept`
        statuses), read the new objectives, print the tables, make sure the jobs carry their owner tags. Returns the
        statuses, the run history, the report that fails the `up` (None: it succeeds) and the jobs left untagged
        ({UNTAGGED: ...} or {}): recorded either way."""
        fresh, results = self._wait({k: j for k, j in args.jobs.items() if k in waited})
        statuses = {k: s for k, s in {**kept, **fresh}.items() if k in args.jobs}
        statuses = {k: statuses[k] for k in args.jobs if k in statuses}
        failed = [r for r in results if r.outcome.verdict is not Verdict.REACHED]
        refusal = None
        if failed:
            client = self._api()
            over = over_bound(args, statuses, results)
            # Each job's part of the report is masked with that job's secrets (report.py): not with every job's.
            per_job = args.per_job()
            if over is not None:
                said = "; ".join(part for part in (over, tolerated_note(args, statuses)) if part)
                refusal = failure_report(client, results, tolerated=said, secrets=per_job) or over
            else:
                say(failure_report(client, results, tolerated=tolerated_note(args, statuses), secrets=per_job) or "")
        if results:
            # The runs that succeeded are scored and shown even when another one fails the `up` (issue 56).
            enrich(self._api(), args, statuses, results)
            for line in report_tables(args, statuses):
                say(line)  # masked there, each job's values with its own secrets
        if failed:  # the failures this wait settled, as every later diff will say them (accepted.py)
            keys = {r.watched.key for r in failed}
            for line in settled_lines({k: args.jobs[k].model_dump(mode="json") for k in keys},
                                      {k: statuses[k].model_dump(mode="json") for k in keys if k in statuses},
                                      args.max_failures, {k: args.secrets_of(k) for k in keys}):
                say(line)
        untagged, unwritten = self._tags_written(args, olds or {})
        if unwritten is not None:
            refusal = f"{refusal}; {unwritten}" if refusal else unwritten
        return statuses, self._history(olds or {}, statuses, results, args), refusal, untagged

    def _history(self, olds: dict[str, Any], statuses: dict[str, AwaitedStatus],
                 results: list[Result], args: JobsAwaitArgs) -> dict[str, Any]:
        """The `runs` output (history.py): each run stays on record after it is replaced or removed."""
        seen = {r.watched.job_id: r.job for r in results if r.job is not None}

        def read(job_id: str, _workspace: str | None) -> Any:
            return self._api().get_job(job_id)  # a run that left before its phase was final: once

        def replaced(job_id: str) -> tuple[str, ...]:  # what the job's create wrote into it (core/replaced_runs.py)
            job = seen.get(job_id)
            return replaced_runs.replaced_by(job_id, job.metadata.annotations if job is not None else None)

        return history.dumped(history.merged(olds.get("runs"), statuses, seen, read, olds.get("statuses"),
                                             args.per_job(), replaced))

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = JobsAwaitArgs.model_validate(_inputs(props))
        statuses, runs, refusal, untagged = self._settle(args, {}, set(args.jobs))
        digest = hashlib.sha256(",".join(sorted(args.jobs)).encode()).hexdigest()[:12]
        outs = {**args.model_dump(mode="json"), **JobsAwaitOutputs.of(statuses, runs, args.per_job()), **untagged}
        if refusal is not None:  # the up fails; what the wait saw is recorded all the same
            raise RecordedFailure(refusal, f"jobs-await-{digest}", outs)
        return CreateResult(f"jobs-await-{digest}", outs)

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        args = JobsAwaitArgs.model_validate(_inputs(news))
        dumped = args.model_dump(mode="json")
        changed = set(self._changed(olds, dumped["jobs"], dumped["max_failures"]))
        kept = {k: AwaitedStatus.model_validate(v) for k, v in (olds.get("statuses") or {}).items()
                if k in args.jobs and k not in changed}
        statuses, runs, refusal, untagged = self._settle(args, kept, {k for k in args.jobs if k in changed}, olds)
        outs = {**dumped, **JobsAwaitOutputs.of(statuses, runs, args.per_job()), **untagged}
        if refusal is not None:
            raise RecordedFailure(refusal, _id, outs)
        return UpdateResult(outs)

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        statuses = {k: AwaitedStatus.model_validate(v) for k, v in (props.get("statuses") or {}).items()}
        if statuses:
            fresh = Watcher(self._api(), say).fetch([(s.job_id, s.workspace_id) for s in statuses.values()])
            for s in statuses.values():
                job = fresh.get(s.job_id)
                if job is None or not hasattr(job, "phase"):
                    continue  # gone or not answered: the TrainingJob's own refresh says so
                s.phase = job.phase
                s.reached = s.reached or reached(s.wait_for, job.phase)
        try:
            per_job = JobsAwaitArgs.model_validate(_inputs(props)).per_job()
        except ValidationError:
            per_job = {}
        return ReadResult(id_, {**_inputs(props), **JobsAwaitOutputs.of(statuses, props.get("runs"), per_job),
                                **_untagged(props)})

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        return None
