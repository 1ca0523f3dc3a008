"""Fault suite: real `pulumi up` (engine + dynamic provider + client) against the emulator's fault
injection. For every fault: the first `pulumi up` either succeeds or fails with a clear one-line
message (no Python traceback); a second `pulumi up` converges to exactly the declared jobs, with no
duplicate and no orphan (counted in the emulator), and the state tracks exactly those jobs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


from modelarts_provider.stack.sweep import point_names
from testkit.faults import (TRACEBACK_RE, assert_converged, converge, job, job_stack, name_of, output_of,
                              sweep, update_config)

GRID = {"lr": [0.1, 0.2]}
JOBS = {"a": job(name="fault-a"), "b": job(name="fault-b", parameters={"lr": 0.5})}
SWEEPS = {"s": sweep(GRID)}
EXPECTED = {"fault-a", "fault-b", *(n for n, _ in point_names("s", GRID))}


def no_duplicates(emu: Any) -> None:
    names = [name_of(j) for j in emu.jobs()]
    assert len(names) == len(set(names)), f"duplicate job names in the emulator: {sorted(names)}"


def assert_clear_failure(proc: Any) -> str:
    """A failed command's message is readable: an `error:` line, no Python traceback."""
    out = output_of(proc)
    assert proc.returncode != 0
    assert not TRACEBACK_RE.search(out), f"a Python traceback in the output:\n{out}"
    errors = [line.strip() for line in out.splitlines() if "error:" in line]
    assert errors, f"no error line in the output:\n{out}"
    return out


def fault_case(tmp_path: Path, emu: Any, rules: list[dict[str, Any]], *, must_succeed: bool,
               expect_in_error: str | None = None, settings: dict[str, str] | None = None) -> Any:
    st = job_stack(tmp_path, emu, jobs=JOBS, sweeps=SWEEPS)
    if settings:
        update_config(st, settings)
    emu.set_faults(rules)
    first = st.up(check=False)
    emu.clear_faults()
    no_duplicates(emu)
    if must_succeed:
        assert first.returncode == 0, f"up failed under a fault the client must absorb:\n{output_of(first)}"
        assert_converged(emu, st, EXPECTED)
    elif first.returncode != 0:
        out = assert_clear_failure(first)
        if expect_in_error:
            assert re.search(expect_in_error, out), f"error does not say {expect_in_error!r}:\n{out}"
    converge(st, emu, EXPECTED)
    return first


# --- throttling and server errors ---------------------------------------------------------------


def test_429_burst_with_retry_after_is_absorbed(tmp_path: Path, emu: Any) -> None:
    # Every API call (create, search, get) answers 429 Retry-After: 0.3 s for the next 8 calls.
    fault_case(tmp_path, emu, [{"operation": "any", "kind": "status", "status": 429, "retry_after": 0.3,
                                "times": 8}], must_succeed=True)
    # The burst was really served (and retried).
    assert emu.counters()["total"] > 0


def test_5xx_on_create_never_duplicates(tmp_path: Path, emu: Any) -> None:
    # A 5xx on POST is ambiguous (non-idempotent): it may not be blindly retried; the client looks the
    # job up by name first and only then sends it again. Either up succeeds, or it fails naming the
    # status; never two jobs for one declaration. 500, 502 and 503 each hit one create.
    fault_case(tmp_path, emu, [{"operation": "create", "kind": "status", "status": status, "times": 1}
                               for status in (500, 502, 503)],
               must_succeed=False, expect_in_error="50[023]")
    assert emu.counters()["create"] >= len(EXPECTED) + 3


def test_5xx_on_reads_is_retried(tmp_path: Path, emu: Any) -> None:
    # Reads (search by name, get while waiting) are idempotent: retried with backoff, up succeeds.
    fault_case(tmp_path, emu, [{"operation": op, "kind": "status", "status": status, "times": 1}
                               for op in ("search", "get") for status in (500, 502, 503)],
               must_succeed=True)


def test_persistent_503_fails_clearly(tmp_path: Path, emu: Any) -> None:
    # More 503s than the retry budget allows: up fails with the status in the message, nothing duplicated.
    # The budget is the provider setting (default 60 s per call), 5 s here so the test does not sleep minutes.
    first = fault_case(tmp_path, emu, [{"operation": "any", "kind": "status", "status": 503, "times": 200}],
                       must_succeed=False, expect_in_error="503",
                       settings={"modelarts:retryTimeoutSeconds": "5"})
    assert first.returncode != 0


# --- network faults -----------------------------------------------------------------------------


def test_connection_resets(tmp_path: Path, emu: Any) -> None:
    # Resets on reads and on create (the create is refused before it commits).
    fault_case(tmp_path, emu, [{"operation": "search", "kind": "reset", "times": 2},
                               {"operation": "get", "kind": "reset", "times": 2},
                               {"operation": "create", "kind": "reset", "times": 1}],
               must_succeed=False)


def test_latency_spikes(tmp_path: Path, emu: Any) -> None:
    # 1.5 s spikes on a few calls: below the read timeout, so up just takes longer.
    fault_case(tmp_path, emu, [{"operation": "any", "kind": "latency", "latency_ms": 1500, "times": 4}],
               must_succeed=True)


def test_create_commits_then_drops_response(tmp_path: Path, emu: Any) -> None:
    # The job is created but the client never hears of it: the provider must find it by name and take
    # it over, not start a second one; up succeeds on the first run.
    fault_case(tmp_path, emu, [{"operation": "create", "kind": "drop_after_commit", "times": 2}],
               must_succeed=True)
