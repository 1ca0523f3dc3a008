"""``python -m modelarts_provider status``: the live phase of every training job of a stack.

    python -m modelarts_provider status --stack STACK [--cwd DIR]

Lists the jobs of the stack's state (either front door) with their live phase from ONE list-API call (a page
holds 50 jobs; a stack whose jobs are not all on the newest page costs a page more each), so nobody needs
`pulumi refresh` to see where a sweep stands, and their tags as the service holds them (one call of the tag
filter per workspace: every job carrying the owner mark's tag, with its tags; the owner mark's own tags are not
shown). The table on stdout, errors on stderr, one line each.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from ..client.errors import ModelArtsError
from ..client.owner_token import TAG_PREFIX, TOKEN_TAG
from ..results.show import duration_text
from .output import guarded, print_line
from .stack_reader import LogsError, PulumiCli, StackExport, job_in_state, prefetch_config, stack_settings

PAGE = 50  # jobs on one page of the list API


def stack_jobs(pulumi: PulumiCli) -> list[tuple[str, str, str | None, str | None]]:
    """(key, job id, job name, workspace id) of every training job in the stack's state."""
    try:
        exported = StackExport.model_validate(pulumi.json("stack", "export"))
    except ValidationError:
        exported = StackExport()
    found = []
    for res in exported.deployment.resources or []:
        job = job_in_state(res)
        if job is not None:
            found.append((res.urn.rsplit("::", 1)[-1], *job))
    return found


def live_views(client: Any, jobs: list[tuple[str, str, str | None, str | None]]) -> dict[str, Any]:
    """{job id: live job} from the list API: one page per workspace when the jobs are among its newest 50."""
    wanted: dict[str | None, set[str]] = {}
    for _, job_id, _, workspace in jobs:
        wanted.setdefault(workspace, set()).add(job_id)
    views: dict[str, Any] = {}
    for workspace, ids in wanted.items():
        budget = (math.ceil(len(ids) / PAGE) + 1) * PAGE  # a page more than they fill, as the wait does
        for seen, job in enumerate(client.iter_job_summaries(workspace_id=workspace), start=1):
            if job.id in ids:
                views[job.id] = job
                ids.discard(job.id)
            if not ids or seen >= budget:
                break
    return views


def live_tags(client: Any, jobs: list[tuple[str, str, str | None, str | None]]) -> dict[str, dict[str, str]]:
    """{job id: its tags} as the service holds them, for the stack's jobs (the ids its state records; a tag decides
    nothing here). One tag filter per workspace reads every job carrying the owner mark's tag; a job it misses (one
    tagged only after it was created, by a version that wrote no owner tag on it) is read on its own."""
    wanted = {job_id for _, job_id, _, _ in jobs}
    out: dict[str, dict[str, str]] = {}
    for workspace in {w for _, _, _, w in jobs}:
        for found in client.iter_jobs_tagged(TOKEN_TAG, workspace_id=workspace):
            if found.resource_id in wanted:
                out[found.resource_id] = _shown({t.key: t.value for t in found.tags})
    for job_id in sorted(wanted - set(out)):
        try:
            out[job_id] = _shown(client.get_job_tags(job_id))
        except ModelArtsError:
            continue  # gone meanwhile (its phase says so), or unreadable: shown as "-"
    return out


def _shown(tags: dict[str, str]) -> dict[str, str]:
    """The user's tags: the owner mark's own are not shown."""
    return {k: v for k, v in tags.items() if not k.startswith(TAG_PREFIX)}


def tags_text(tags: dict[str, str] | None) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(tags.items())) if tags else "-"


def status_lines(jobs: list[tuple[str, str, str | None, str | None]], views: dict[str, Any],
                 tags: dict[str, dict[str, str]] | None = None) -> list[str]:
    rows = [["key", "name", "phase", "duration", "tags"]]
    phases: Counter[str] = Counter()
    for key, job_id, name, _ in sorted(jobs):
        view = views.get(job_id)
        phase = (view.phase or "unknown") if view is not None else "not listed"
        phases[phase] += 1
        duration = None
        if view is not None:
            try:
                duration = float(str(view.status.duration)) / 1000
            except (TypeError, ValueError):
                duration = None
        rows.append([key, name or "-", phase, duration_text(duration), tags_text((tags or {}).get(job_id))])
    widths = [max(len(r[c]) for r in rows) for c in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    summary = ", ".join(f"{n} {p}" for p, n in sorted(phases.items()))
    lines.append(f"{len(jobs)} job{'s' if len(jobs) != 1 else ''}: {summary or 'none'}")
    if phases.get("not listed"):
        lines.append("not listed: deleted, or older than the newest jobs of the project (`logs` GETs one job)")
    return lines


def run_status(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from ..client import ModelArtsClient, ModelArtsError  # noqa: PLC0415
    from ..core.job_logs import client_secrets, one_line_error  # noqa: PLC0415

    pulumi = PulumiCli(Path(args.cwd).resolve(), args.stack)
    jobs = stack_jobs(pulumi)
    if jobs:
        prefetch_config(pulumi)  # the client's credentials: decrypted while the client loads
    views: dict[str, Any] = {}
    tags: dict[str, dict[str, str]] = {}
    if jobs:
        with ModelArtsClient(stack_settings(pulumi, dict(os.environ))) as client:
            try:
                views = live_views(client, jobs)
                tags = live_tags(client, jobs)
            except ModelArtsError as err:
                raise LogsError(one_line_error(err, client_secrets(client))) from None
    for line in status_lines(jobs, views, tags):
        print_line(out, line)
    from ..cost.show import total_line  # noqa: PLC0415

    try:
        outputs = pulumi.json("stack", "output", "--json")  # what the runs cost (cost/spent.py), when exported
    except LogsError:
        outputs = None  # the table stands without it
    spent = total_line(outputs.get("cost") if isinstance(outputs, dict) else None)
    if spent:
        print_line(out, spent)
    return 0


def register(subparsers: Any) -> None:
    s = subparsers.add_parser("status", help="print the live phase and tags of every job of a stack (one list call, one tag call)",
                              description="Print the live phase of every training job of a stack.")
    s.add_argument("--stack", required=True, help="Pulumi stack (e.g. local)")
    s.add_argument("--cwd", default=".", help="the Pulumi project directory (default: .)")
    s.set_defaults(handler=guarded("status", run_status))
