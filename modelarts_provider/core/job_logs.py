"""Task logs for people: the tail of a failed job's logs in its error, and safe log text.

``failure_log_tail(client, job)`` is called where a wait ends badly (awaiting/report.py). It fetches
each failing task's log once, never raises (a log that cannot be fetched becomes a one-line note, so
it can never hide the failure it explains) and never shows a credential: the client's own secret
values, the job's own secrets (handed in: masking.Secrets) and secret-looking values are masked by the one
masking step (masking.py), whatever the service already did.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Protocol

from . import masking
from ..client.models import TaskLogPreview, TrainingJob, task_ids

__all__ = ["LogSource", "failure_log_tail", "failing_tasks", "safe_line", "safe_lines",
           "client_secrets", "one_line_error"]

INDENT = "    "
MAX_TASKS = 4  # an error naming every node of a big job would bury the failure itself
LINE_MAX = 400
ERROR_MAX = 240
MASK = masking.MASK
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")  # ANSI colours, controls
# The service's environment boilerplate (`[ModelArts Service Log] env MA_NUM_HOSTS=1`, one line per variable
# it sets): in a failure's tail it pushes out the lines that say why the code failed.
_ENV_BOILERPLATE = re.compile(r"^(?:\S+\s+)?(?:\[ModelArts Service Log\]\s*)?env (?:MA|VC)_[A-Za-z0-9_]*=")


def boilerplate(line: str) -> bool:
    """A line of the service's environment listing, left out of failure tails."""
    return bool(_ENV_BOILERPLATE.match(line.strip()))


class LogSource(Protocol):
    """What the log helpers need of a client (ModelArtsClient has it)."""

    def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview: ...


def client_secrets(client: Any) -> list[str]:
    """The client's credential values (ModelArtsClient._secret_values), for redaction; [] if none."""
    try:
        values = getattr(client, "_secret_values", None)
        return [v for v in (values() if callable(values) else []) if isinstance(v, str) and v]
    except Exception:  # noqa: BLE001 - a client without secrets to tell redacts nothing extra
        return []


def safe_line(line: str, secrets: Iterable[str] = (), known: masking.Secrets | None = None) -> str:
    """One log line fit to show: no control characters, secret-looking values masked, secrets (values, and
    `known`: else the running call's) redacted, at most LINE_MAX characters."""
    text = masking.mask(_CONTROL.sub("", line.replace("\t", "    ")).rstrip(), known, values=secrets)
    return text if len(text) <= LINE_MAX else text[: LINE_MAX - 1] + "…"


def safe_lines(text: str, secrets: Iterable[str] = (), known: masking.Secrets | None = None) -> list[str]:
    secrets = list(secrets)
    return [safe_line(line, secrets, known) for line in text.splitlines()]


def one_line_error(exc: BaseException, secrets: Iterable[str] = (), known: masking.Secrets | None = None) -> str:
    """An exception as one short line without secrets (ModelArtsError already is one)."""
    text = str(exc) or type(exc).__name__
    if not type(exc).__name__.startswith("ModelArts"):
        text = f"{type(exc).__name__}: {text}"
    text = masking.mask(" ".join(text.split()), known, values=secrets)
    return text if len(text) <= ERROR_MAX else text[: ERROR_MAX - 1] + "…"


def failing_tasks(job: TrainingJob) -> list[str]:
    """Tasks that reported a non-zero exit code; none did (still running, timed out): every task."""
    bad = []
    for status in job.task_statuses:
        try:
            code = int(float(str(status.exit_code)))
        except (TypeError, ValueError):
            continue
        if code != 0 and status.task:
            bad.append(str(status.task))
    return list(dict.fromkeys(bad)) or task_ids(job)


def failure_log_tail(client: LogSource, job: TrainingJob, lines: int = 20, known: masking.Secrets | None = None) -> str:
    """Text to append to the error of a failed or timed-out job: per failing task (at most
    MAX_TASKS), a blank line, ``last N lines of <task>:`` and those lines indented; or a one-line
    note when its log cannot be fetched. One preview request per task. Never raises. `known`: the job's
    secrets (else the running call's)."""
    secrets = client_secrets(client)
    lines = max(lines, 1)
    try:
        job_id = job.id
        tasks = failing_tasks(job)
    except Exception as exc:  # noqa: BLE001 - never hide the failure being reported
        return f"\n(logs unavailable: {one_line_error(exc, secrets, known)})"
    if not job_id:
        return "\n(logs unavailable: the job has no id)"
    blocks: list[str] = []
    for i, task in enumerate(tasks[:MAX_TASKS]):
        block, service_down = _task_tail(client, job_id, task, lines, secrets, known)
        blocks.append(block)
        if service_down and i + 1 < len(tasks):
            # the client already retried for a while: do not make the failed command wait again per task
            blocks.append(f"({len(tasks) - i - 1} more failing tasks not fetched)")
            break
    else:
        if len(tasks) > MAX_TASKS:
            blocks.append(f"({len(tasks) - MAX_TASKS} more failing tasks not shown)")
    return "".join("\n" + block for block in blocks)


def _task_tail(client: LogSource, job_id: str, task: str, lines: int, secrets: list[str],
               known: masking.Secrets | None) -> tuple[str, bool]:
    """(the block of ``task``, whether the service looked unreachable)."""
    try:
        text = client.get_task_log_preview(job_id, task).text
        shown = [line for line in safe_lines(text, secrets, known) if line.strip() and not boilerplate(line)][-lines:]
    except Exception as exc:  # noqa: BLE001 - a log we cannot fetch must not replace the error
        down = bool(getattr(exc, "retryable", True))  # throttled, 5xx, network, or not even an API error
        return f"(logs of {task} unavailable: {one_line_error(exc, secrets, known)})", down
    if not shown:
        return f"(the log of {task} is empty)", False
    return f"last {lines} lines of {task}:\n" + "\n".join(INDENT + line for line in shown), False
