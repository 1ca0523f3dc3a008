"""End to end: the real Pulumi CLI runs the repository's stack program against the emulator over HTTP."""

from __future__ import annotations

import copy
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from testkit.harness import REPO_ROOT, Stack, new_stack
from testkit.faults import assert_refused_by_preview_and_up, provider_config, up_advancing

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"  # in the emulator catalog
CPU = "modelarts.vm.cpu.2u"
GPU = "modelarts.p3.large.public"
pytestmark = pytest.mark.engine  # every test here runs the stack program under the real engine
PHASE_SECONDS = 0.2
RUN_SECONDS = 600  # no job ends by itself during a test: a test that wants it ended moves the clock
FINISH = 2 * PHASE_SECONDS + RUN_SECONDS + 1  # a clock step that ends every job submitted before it


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "emulator", run_seconds=RUN_SECONDS, phase_seconds=PHASE_SECONDS) as e:
        yield e


def job(**over: Any) -> dict[str, Any]:
    base = {"pool": "cpu", "algorithmId": ALGORITHM_ID, "parameters": {"epochs": 1},
            "pollIntervalSeconds": 0.2, "description": "first"}
    base.update(over)
    return base


def stack_config(jobs: dict[str, Any], sweeps: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "modelarts-jobs:obs": {"main": {"bucket": "emulator-bucket"}},
        "modelarts-jobs:pools": {"cpu": {"flavor": CPU, "maxNodes": 4}, "gpu": {"flavor": GPU, "maxNodes": 2}},
        "modelarts-jobs:jobs": jobs,
        **({"modelarts-jobs:sweeps": sweeps} if sweeps else {}),
    }


def make_stack(tmp_path: Path, emu: Any, jobs: dict[str, Any], sweeps: dict[str, Any] | None = None) -> Stack:
    plain, secrets = provider_config(emu)
    st = new_stack(tmp_path, REPO_ROOT, config=plain, secrets=secrets)
    st.write_config(stack_config(jobs, sweeps))
    return st


def live_jobs(emu: Any) -> dict[str, dict[str, Any]]:
    return {j["metadata"]["name"]: j for j in emu.jobs()}


def running(emu: Any) -> list[str]:
    return [n for n, j in live_jobs(emu).items() if j["status"]["phase"] in ("Creating", "Pending", "Running")]


def wait_until(pred, timeout: float = 30, step: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(step)
    raise AssertionError("condition not reached in time")


def assert_no_plaintext_secrets(st: Stack, emu: Any) -> None:
    blob = json.dumps(st.export()) + "".join(p.stdout + p.stderr for p in st.history)
    assert emu.secret_key not in blob


def outputs_jobs(st: Stack) -> dict[str, Any]:
    return st.outputs()["jobs"]


def job_state(st: Stack, key: str) -> dict[str, Any]:
    """The TrainingJob resource's outputs in the state (refresh updates these, not stack outputs)."""
    (res,) = [r for r in st.resources() if r["urn"].endswith(f"TrainingJob::{key}")]
    return res["outputs"]


def test_up_preview_refresh_destroy(tmp_path: Path, emu: Any) -> None:
    st = make_stack(tmp_path, emu, {"explicit": job(name="explicit-job"), "derived": job(pool="gpu")})
    up = st.up()
    names = set(live_jobs(emu))
    assert len(names) == 2 and "explicit-job" in names
    derived = next(n for n in names if n != "explicit-job")
    assert derived.startswith("derived-") and len(derived) == len("derived-") + 6
    # Phase changes are printed; which phase the first poll finds depends on the machine's speed.
    assert re.search(r"explicit-job: (Creating|Pending|Running)\b", up.stdout), up.stdout

    out = outputs_jobs(st)
    assert set(out) == {"explicit", "derived"}
    assert out["explicit"]["name"] == "explicit-job" and out["explicit"]["id"]
    assert out["explicit"]["outputPath"] == "obs://emulator-bucket/outputs/explicit/"
    assert out["explicit"]["phase"] in ("Pending", "Running")

    before = emu.counters()["total"]
    st.preview("--expect-no-changes")
    assert emu.counters()["total"] == before  # preview makes zero API calls

    emu.advance(FINISH)
    assert {j["status"]["phase"] for j in emu.jobs()} == {"Completed"}
    st.refresh()  # records Completed
    assert job_state(st, "explicit")["phase"] == "Completed"
    st.refresh("--expect-no-changes")
    st.preview("--expect-no-changes")  # a finished job is not re-created
    assert set(live_jobs(emu)) == names

    st.destroy()
    assert emu.jobs() == []
    assert_no_plaintext_secrets(st, emu)


def test_description_update_and_flavor_replace(tmp_path: Path, emu: Any) -> None:
    jobs = {"train": job(name="train-a")}
    st = make_stack(tmp_path, emu, jobs)
    st.up()
    first_id = outputs_jobs(st)["train"]["id"]
    c0 = emu.counters()

    jobs["train"]["description"] = "second"
    st.write_config(stack_config(jobs))
    st.up()
    c1 = emu.counters()
    assert c1["update"] - c0["update"] == 1 and c1["create"] == c0["create"]
    assert outputs_jobs(st)["train"]["id"] == first_id
    assert live_jobs(emu)["train-a"]["metadata"]["description"] == "second"

    jobs["train"]["pool"] = "gpu"  # flavor change: replace
    st.write_config(stack_config(jobs))
    st.up()
    new_id = outputs_jobs(st)["train"]["id"]
    assert new_id != first_id
    ids = [j["metadata"]["id"] for j in emu.jobs()]
    assert ids == [new_id]  # old one terminated and deleted
    assert live_jobs(emu)["train-a"]["spec"]["resource"]["flavor_id"] == GPU
    st.destroy()
    assert emu.jobs() == []
    assert_no_plaintext_secrets(st, emu)


def test_out_of_band_terminate_and_delete_seen_by_refresh(tmp_path: Path, emu: Any) -> None:
    st = make_stack(tmp_path, emu, {"a": job(name="oob-a"), "b": job(name="oob-b")})
    st.up()
    ids = {k: v["id"] for k, v in outputs_jobs(st).items()}
    s = emu.session()
    base = f"{emu.url}/v2/{emu.project_id}/training-jobs"
    assert s.post(f"{base}/{ids['a']}/actions", json={"action_type": "terminate"}).status_code < 300
    emu.advance(PHASE_SECONDS)  # Terminating -> Terminated (b stays Running: its run is far longer)
    assert live_jobs(emu)["oob-a"]["status"]["phase"] == "Terminated"
    assert s.delete(f"{base}/{ids['b']}").status_code < 300

    st.refresh()
    assert job_state(st, "a")["phase"] == "Terminated"
    urns = [r["urn"] for r in st.resources()]
    assert not any(u.endswith("TrainingJob::b") for u in urns)  # dropped from the state
    st.destroy()
    assert emu.jobs() == []


def test_wait_completed_on_failing_job_fails_up_and_leaves_nothing_running(tmp_path: Path, emu: Any) -> None:
    fail = {"emulator/outcome": "fail", "emulator/exit-code": "7", "emulator/run-seconds": "0.5"}
    st = make_stack(tmp_path, emu, {"bad": job(name="bad-job", waitFor="completed", annotations=fail)})
    up = st.up(check=False)
    assert up.returncode != 0
    text = up.stdout + up.stderr
    assert "bad-job" in text and "Failed" in text and "exit code 7" in text
    assert running(emu) == []
    assert_no_plaintext_secrets(st, emu)


def test_wait_timeout_terminates_job(tmp_path: Path, emu: Any) -> None:
    slow = {"emulator/outcome": "hang"}  # never completes: only the deadline ends the wait
    st = make_stack(tmp_path, emu, {"slow": job(name="slow-job", waitFor="completed", waitTimeoutSeconds=1,
                                                annotations=slow)})
    up = st.up(check=False)
    assert up.returncode != 0 and "timed out" in up.stdout + up.stderr
    assert running(emu) == []


def test_up_killed_during_create_then_rerun_gives_one_job_per_declaration(tmp_path: Path, emu: Any) -> None:
    # Held jobs (RUN_SECONDS): the first up is still waiting when it is killed, however slow the machine.
    jobs = {"k1": job(waitFor="completed"), "k2": job(name="k2-job", waitFor="completed")}
    st = make_stack(tmp_path, emu, jobs)
    proc = subprocess.Popen(["pulumi", "up", "--yes", "--skip-preview", "--non-interactive", "--stack", st.name],
                            cwd=st.workdir, env=st.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        wait_until(lambda: len(emu.jobs()) == 2, timeout=120)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its provider processes
        proc.wait()
    # A killed CLI leaves the file-backend lock behind; `pulumi cancel` removes it.
    st.run("cancel", "--yes", check=False)
    up_advancing(st, emu, FINISH, log=tmp_path / "up2.log", once="waiting for 2 training jobs")
    names = sorted(live_jobs(emu))
    assert len(names) == 2 and "k2-job" in names
    assert sorted(v["name"] for v in outputs_jobs(st).values()) == names
    st.destroy()
    assert emu.jobs() == []


def test_sweep_3x3_creates_9_jobs_with_distinct_deterministic_names(tmp_path: Path, emu: Any) -> None:
    sweep = {"lr-sweep": {**job(waitFor="none"), "parameters": {},
                          "grid": {"lr": [0.1, 0.01, 0.001], "batch_size": [32, 64, 128]}}}
    st = make_stack(tmp_path, emu, {}, sweeps=sweep)
    st.up()
    from modelarts_provider.stack.sweep import point_names
    from modelarts_provider.core.identity import SUFFIX_LENGTH
    from modelarts_provider.training_job.naming import name_prefix
    from testkit.faults import owner_key

    jobs = emu.jobs()
    keys = sorted(owner_key(j) or "" for j in jobs)
    expected = sorted(n for n, _ in point_names("lr-sweep", {"batch_size": [32, 64, 128], "lr": [0.1, 0.01, 0.001]}))
    assert keys == expected and sorted(outputs_jobs(st)) == keys  # resource key = export key
    # Each point's job: its key and a random suffix (unique per stack, like any derived name).
    for j in jobs:
        prefix = name_prefix(owner_key(j) or "") + "-"
        name = j["metadata"]["name"]
        assert name.startswith(prefix) and len(name) == len(prefix) + SUFFIX_LENGTH, name
    st.preview("--expect-no-changes")
    st.destroy()
    assert emu.jobs() == []
    assert_no_plaintext_secrets(st, emu)


# One bad config through the real engine; this and every other bad key or value (an unknown pool, too many
# nodes, an unknown section, a provider-setting typo, ...) is in the bad-input table with its exact message
# (tests/bad_input), checked where it is made, and each kind of message path once under the engine.
@pytest.mark.parametrize("mutate,fragment", [
    (lambda c: c["modelarts-jobs:jobs"]["j"].update(pool="nope"), "modelarts-jobs:jobs.j.pool: unknown pool"),
])
def test_bad_config_fails_preview_with_one_line_and_no_api_call(tmp_path: Path, emu: Any, mutate, fragment) -> None:
    st = make_stack(tmp_path, emu, {})
    cfg = stack_config({"j": job()})
    mutate(cfg)
    st.write_config(cfg)
    p = st.preview(check=False)
    assert p.returncode != 0
    assert fragment in p.stdout + p.stderr
    assert "Traceback" not in p.stdout + p.stderr
    assert emu.counters()["total"] == 0


def test_local_stack_file_runs_against_the_emulator(tmp_path: Path) -> None:
    """stacks/Pulumi.local.yaml as shipped (secure secret key, passphrase `local`), pointed at a test
    emulator and a test local OBS: its code uploads reach the OBS, and the emulator in execution mode (as
    ./dev starts it) runs training/mnist for real: every model is in the local OBS afterwards."""
    from billing_emulator.testing import running_billing
    from modelarts_emulator.testing import running_emulator
    from obs_emulator.testing import running_obs

    with running_obs(tmp_path / "obs") as obs, running_billing(tmp_path / "billing") as billing, \
            running_emulator(tmp_path / "emulator", run_seconds=2, phase_seconds=0.2, obs_endpoint=obs.url,
                             execute=True) as emu:
        _run_local_stack(tmp_path, emu, obs, billing)


def _run_local_stack(tmp_path: Path, emu: Any, obs: Any, billing: Any) -> None:
    st = new_stack(tmp_path, REPO_ROOT, stack="local")
    st.env["PULUMI_CONFIG_PASSPHRASE"] = "local"
    shipped = yaml.safe_load((REPO_ROOT / "stacks" / "Pulumi.local.yaml").read_text())
    (st.workdir / "Pulumi.local.yaml").write_text(yaml.safe_dump(shipped, sort_keys=False))
    st.set_config("modelarts:endpoint", emu.url)
    st.set_config("modelarts:obsEndpoint", obs.url)
    st.set_config("modelarts:billingEndpoint", billing.url)
    cfg = copy.deepcopy(shipped["config"])
    for section in ("modelarts-jobs:jobs", "modelarts-jobs:sweeps"):
        for spec in cfg.get(section, {}).values():
            if "code" in spec:  # relative to the project directory, which is the repository for ./dev
                spec["code"]["localDir"] = str(REPO_ROOT / spec["code"]["localDir"])
                assert spec["waitFor"] == "completed"  # run for real, in seconds: the shipped wait is kept
            else:
                spec["waitFor"] = "created"  # a generated run lasts run_seconds: not worth waiting for
    st.write_config({k: v for k, v in cfg.items() if k.startswith("modelarts-jobs:")})
    preview = st.preview()  # first preview: derived names are still unknown, check must accept them
    c = emu.counters()  # and it reads the service's catalogs once each, nothing else (catalog_check.py)
    assert c["total"] == c["flavors"] + c["engines"] + c["algorithm"] + c.get("search_algorithms", 0)
    assert c["engines"] == 1 and c.get("search_algorithms") == 1  # the tune job's search
    # the flavor list twice: the provider's catalog check and the program's prices (cost/prices.py), which
    # rates every flavor in one request to the local billing service
    assert c["flavors"] == 2 and billing.counters()["rate_on_demand"] == 1
    assert "cost: total: up to " in preview.stdout + preview.stderr
    st.up()
    out = outputs_jobs(st)
    declared = len(cfg["modelarts-jobs:jobs"]) + 4  # 2x2 sweep
    assert len(out) == declared == len(emu.jobs())
    assert all(v["id"] and v["phase"] for v in out.values())
    assert not [j for j in emu.jobs() if j["status"]["phase"] == "Failed"], "a boot file was not in OBS"
    own_code = [k for k in out if "code" in cfg["modelarts-jobs:jobs"].get(k, {})] + [
        k for k in out for sweep, spec in cfg["modelarts-jobs:sweeps"].items()
        if "code" in spec and k.startswith(f"{sweep}-")]
    assert len(own_code) == 6 and all(out[k]["phase"] == "Completed" for k in own_code)
    models = [o["Key"] for o in obs.client().list_objects_v2(Bucket="emulator-bucket", Prefix="outputs/")["Contents"]
              if o["Key"].endswith("/model.npz")]
    plain = [m for m in models if not m.startswith("outputs/tune/")]
    assert len(plain) == 5, models  # resnet and the four sweep points each wrote theirs
    search = st.outputs()["searches"]["tune"]  # the service's own search: 8 trials, the best exported
    assert len(search["trials"]) == 8 and search["best"] is not None, search
    assert search["best"]["reward"] == max(t["reward"] for t in search["trials"] if t["reward"] is not None)
    # Issue 41: the 8 trials left 8 folders in OBS, each with its model, and the best one's folder is exported
    run = out["tune"]["name"]
    trial_models = sorted(m for m in models if m.startswith("outputs/tune/"))
    assert trial_models == sorted(f"outputs/tune/{run}/{t['trialId']}/model.npz" for t in search["trials"])
    assert search["best"]["outputPath"] == f"obs://emulator-bucket/outputs/tune/{run}/{search['best']['trialId']}/"
    st.destroy()
    assert emu.jobs() == []
    assert_no_plaintext_secrets(st, emu)


def test_derived_name_is_stable_across_updates_and_renewed_on_replace(tmp_path: Path, emu: Any) -> None:
    jobs = {"auto": job()}
    st = make_stack(tmp_path, emu, jobs)
    st.up()
    first = outputs_jobs(st)["auto"]["name"]
    jobs["auto"]["description"] = "second"
    jobs["auto"]["waitFor"] = "none"  # provider-only option
    st.write_config(stack_config(jobs))
    st.up()
    assert outputs_jobs(st)["auto"]["name"] == first and emu.counters()["create"] == 1
    jobs["auto"]["pool"] = "gpu"
    st.write_config(stack_config(jobs))
    st.up()
    renewed = outputs_jobs(st)["auto"]["name"]
    assert renewed != first and renewed.startswith("auto-")
    assert sorted(live_jobs(emu)) == [renewed]
    st.destroy()
    assert emu.jobs() == []


def test_a_flavor_typo_fails_preview_and_up_before_touching_the_finished_run(tmp_path: Path, emu: Any) -> None:
    """Issue 21 item 1: a misspelt flavor used to preview clean, and `up` deleted the finished run before
    the service refused the new one. Now the catalog check refuses it at preview, naming the config key
    and the close match; `up` stops at its preview too, and the finished run is untouched."""
    jobs = {"mnist": job(pool="gpu")}
    st = make_stack(tmp_path, emu, jobs)
    st.up()
    emu.advance(FINISH)
    (done,) = emu.jobs()
    assert done["status"]["phase"] == "Completed"
    cfg = stack_config(jobs)
    cfg["modelarts-jobs:pools"]["gpu"]["flavor"] = "modelarts.p3.largee.public"
    st.write_config(cfg)
    before = emu.counters()
    change = assert_refused_by_preview_and_up(
        st, emu, "modelarts-jobs:pools.gpu.flavor: unknown flavor 'modelarts.p3.largee.public' in cn-north-4; "
                 "did you mean modelarts.p3.large.public?")
    assert change["flavors"] == 2  # read once per command (one provider process each)
    assert [j["metadata"]["id"] for j in emu.jobs()] == [done["metadata"]["id"]]
    assert emu.jobs()[0]["status"]["phase"] == "Completed"
    # The typo fixed: the finished run is still the stack's job, nothing re-run.
    st.write_config(stack_config(jobs))
    st.up()
    assert outputs_jobs(st)["mnist"]["id"] == done["metadata"]["id"] and emu.counters()["create"] == before["create"]
