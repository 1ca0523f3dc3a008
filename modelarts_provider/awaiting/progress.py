"""Live progress while a JobsAwait waits: each running job's latest objective and metric values, from its log.

The Watcher's poll hook (as searches.SearchProgress). For the running jobs that declare an objective or metrics,
it reads the log now and then and says one line per job when its latest values changed:

    lr-sweep-lr0p1-3f2a1c: Running, step 4: loss 0.4123, accuracy 0.8801

(the step where the metric's regex captures one, a group named step or epoch; the latest match is found from
the log's end, so a long log costs little).

Bounded, so that a 1,000-job sweep stays readable and cheap:
- a job's log is read at most once every READ_EVERY_S (and never before its poll found it Running);
- at most READS_PER_POLL logs per poll (those read longest ago first), CONCURRENCY at a time: 1,000 running
  jobs cost READS_PER_POLL log reads per poll, not 1,000;
- when more than LINES_PER_POLL jobs changed in one poll, one summary line (how many, and the best latest
  value of each metric with its job) instead of a line each, and at most one summary every SUMMARY_EVERY_S.
It never raises: a log that cannot be read is skipped (the end of the wait reads every completed job's log).
Lines go through say(): stderr for the Python program's dynamic provider, the engine's diagnostics for the
plugin (plugin/diagnostics.py): both doors show them under the JobsAwait.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..client.models import task_ids
from ..core.linear_regex import last_captures
from ..results.curves import better, number
from .args import AwaitedJob, Metric, Objective

READ_EVERY_S = 10.0
READS_PER_POLL = 16
LINES_PER_POLL = 8
SUMMARY_EVERY_S = 30.0
CONCURRENCY = 4

Latest = dict[str, tuple[float | None, float]]  # metric name -> (step or None, value) of its last match


def short(value: float) -> str:
    """A value in a progress line: 4 significant digits."""
    return f"{value:.4g}"


def latest(text: str, series: list[Objective | Metric]) -> Latest:
    """Each series' last point in `text` (a series without a match is left out)."""
    out: Latest = {}
    for s in series:
        found = last_captures(s.regex, text)
        value = number(found[1]) if found is not None else None
        if found is not None and value is not None:
            out[s.name] = (number(found[0]), value)
    return out


def _step(step: float) -> str:
    return str(int(step)) if step.is_integer() else short(step)


def line(name: str, phase: str, values: Latest) -> str:
    """`name: Running, step 4: loss 0.4123, accuracy 0.8801`: the step the regexes that capture one agree on
    (values without one are the latest all the same); the step per value when they differ."""
    steps = {step for step, _ in values.values() if step is not None}
    plain = ", ".join(f"{n} {short(v)}" for n, (_, v) in values.items())
    if len(steps) <= 1:
        return f"{name}: {phase}, " + (f"step {_step(steps.pop())}: " if steps else "") + plain
    return f"{name}: {phase}, " + ", ".join(
        f"{n} {short(v)}" + (f" (step {_step(s)})" if s is not None else "") for n, (s, v) in values.items())


class LiveMetrics:
    """The poll hook: `specs` are the awaited jobs by key (only those with an objective or metrics are read)."""

    def __init__(self, client: Any, say: Callable[[str], None], specs: dict[str, AwaitedJob], *,
                 clock: Callable[[], float] = time.monotonic, read_every_s: float = READ_EVERY_S,
                 reads_per_poll: int = READS_PER_POLL, lines_per_poll: int = LINES_PER_POLL,
                 summary_every_s: float = SUMMARY_EVERY_S) -> None:
        self.client, self.say, self.clock = client, say, clock
        self.series = {k: j.series() for k, j in specs.items() if j.series()}
        self.goals = {s.name: s.goal for series in self.series.values() for s in series}
        self.read_every_s, self.reads_per_poll = read_every_s, reads_per_poll
        self.lines_per_poll, self.summary_every_s = lines_per_poll, summary_every_s
        self._read_at: dict[str, float] = {}
        self._said: dict[str, Latest] = {}
        self._names: dict[str, str] = {}
        self._summary_at = -math.inf
        self.reads = 0  # log reads so far (tests and benchmarks count them)

    def __bool__(self) -> bool:
        return bool(self.series)

    def __call__(self, polled: list[tuple[Any, Any]]) -> None:
        now = self.clock()
        due = [(w, view) for w, view in polled
               if w.key in self.series and getattr(view, "phase", None) == "Running"
               and now - self._read_at.get(w.key, -math.inf) >= self.read_every_s]
        due.sort(key=lambda wv: self._read_at.get(wv[0].key, -math.inf))  # never read first, then the oldest
        due = due[:self.reads_per_poll]
        if not due:
            return
        for w, _ in due:
            self._read_at[w.key] = now
            self._names[w.key] = w.name
        self.reads += len(due)
        with ThreadPoolExecutor(max_workers=min(CONCURRENCY, len(due))) as pool:
            found = list(pool.map(self._read, due))
        changed = [(w, values) for (w, _), values in zip(due, found) if values and values != self._said.get(w.key)]
        for w, values in changed:
            self._said[w.key] = values
        if len(changed) <= self.lines_per_poll:
            for w, values in changed:
                self.say(line(w.name, "Running", values))
        elif now - self._summary_at >= self.summary_every_s:
            self._summary_at = now
            self.say(self.summary(len(changed)))

    def _read(self, item: tuple[Any, Any]) -> Latest:
        watched, view = item
        try:
            text = self.client.get_task_log_preview(watched.job_id, task_ids(view)[0]).text
        except Exception:  # noqa: BLE001 - progress only: the wait goes on, its end reads the logs again
            return {}
        return latest(text or "", self.series[watched.key])

    def summary(self, changed: int) -> str:
        """`progress: 37 jobs report new values; best loss 0.2103 (key), best accuracy 0.93 (key)`."""
        best: dict[str, tuple[float, str]] = {}
        for key, values in self._said.items():
            for name, (_, value) in values.items():
                if name not in best or better(value, best[name][0], self.goals.get(name, "max")):
                    best[name] = (value, self._names.get(key, key))
        parts = [f"best {n} {short(v)} ({who})" for n, (v, who) in best.items()]
        return f"progress: {changed} jobs report new values" + (f"; {', '.join(parts)}" if parts else "")
