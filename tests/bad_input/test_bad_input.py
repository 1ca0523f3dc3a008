"""Bad-input suite: invalid stack configs and TrainingJob args, each run through a real `pulumi preview`
of one stack (reconfigured per case by rewriting its config file; the encrypted secret key stays).

Each case: non-zero exit; a message naming the offending key or field and saying what is allowed; no
Python traceback; zero API calls (emulator counters).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import Stack, new_stack
from tests.faults.kit import (FAST_EMULATOR, OBS, POOLS, PROJECT, TRACEBACK_RE, job, job_stack,
                              output_of, read_config, replace_config, sweep)

DELETE = object()
J = f"{PROJECT}:jobs"
S = f"{PROJECT}:sweeps"
P = f"{PROJECT}:pools"
O = f"{PROJECT}:obs"

# "what is allowed": every message must carry one of these phrasings of a rule or of the choices.
ALLOWED_RE = re.compile(
    r"must|allowed|known|expected|required|should|one of|exceeds|at least|at most|less than|greater than|"
    r"valid|only|needs|need|set |e\.g\.|pattern|match|permitted|supported|cannot|more than|distinct|"
    r"not a known field|unknown|missing", re.I)


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(cfg: dict[str, Any]) -> None:
        cur = cfg
        for part in path[:-1]:
            cur = cur.setdefault(part, {})
        if value is DELETE:
            cur.pop(path[-1], None)
        else:
            cur[path[-1]] = copy.deepcopy(value)
    return mutate


def _all(*fns: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(cfg: dict[str, Any]) -> None:
        for fn in fns:
            fn(cfg)
    return mutate


def a(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set jobs.a.<field> (DELETE removes it)."""
    return _set((J, "a", field), value)


def s(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return _set((S, "s", field), value)


def with_sweep(**fields: Any) -> Callable[[dict[str, Any]], None]:
    base = sweep({"lr": [0.1, 0.2]})
    base.update(fields)
    return _set((S, "s"), {k: v for k, v in base.items() if v is not DELETE})


NO_ALG = _all(a("codeDir", DELETE), a("bootFile", DELETE), a("engine", DELETE))

# (id, mutation of the valid config, text the message must contain: the offending key or field)
STACK_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str | tuple[str, ...]]] = [
    # missing required fields
    ("job-pool-missing", a("pool", DELETE), "jobs.a.pool"),
    ("no-algorithm", NO_ALG, "algorithm"),
    ("codedir-without-bootfile", a("bootFile", DELETE), "boot"),
    ("subscription-missing-version", _all(NO_ALG, a("subscription", {"id": "sub-1"})), "subscription.versionId"),
    ("volume-missing-server", a("volumes", [{"localPath": "/mnt/nfs"}]), "volumes[0].nfsServerPath"),
    ("dataset-missing-version", a("inputs", {"data_url": {"dataset": {"id": "ds1"}}}), "inputs"),
    ("obs-bucket-missing", _set((O, "main", "bucket"), DELETE), "obs.main.bucket"),
    ("pool-without-flavor-or-id", _set((P, "gpu"), {"maxNodes": 2}), "pools.gpu"),
    # wrong types
    ("nodes-not-int", a("nodes", "two"), "jobs.a.nodes"),
    ("nodes-float", a("nodes", 1.5), "jobs.a.nodes"),
    ("parameters-list-value", a("parameters", {"lr": [1, 2]}), "jobs.a.parameters"),
    ("environments-map-value", a("environments", {"X": {"y": 1}}), "jobs.a.environments"),
    ("logs-not-bool", a("logs", "sometimes"), "jobs.a.logs"),
    ("jobs-not-a-map", _set((J,), "mnist"), J),
    ("pools-is-list", _set((P,), ["gpu"]), P),
    ("job-entry-is-string", _set((J, "a"), "gpu"), "jobs.a"),
    ("annotations-non-string", a("annotations", {"team": {"x": 1}}), "jobs.a.annotations"),
    ("maxnodes-not-int", _set((P, "gpu", "maxNodes"), "many"), "pools.gpu.maxNodes"),
    ("delete-before-replace-not-bool", a("deleteBeforeReplace", "perhaps"), "jobs.a.deleteBeforeReplace"),
    # out-of-range numbers
    ("nodes-zero", a("nodes", 0), "jobs.a.nodes"),
    ("nodes-over-pool-limit", a("nodes", 5), "jobs.a.nodes"),
    ("nodes-huge", a("nodes", 100000), "jobs.a.nodes"),
    ("maxnodes-zero", _set((P, "gpu", "maxNodes"), 0), "pools.gpu.maxNodes"),
    ("wait-timeout-negative", a("waitTimeoutSeconds", -1), "jobs.a.waitTimeoutSeconds"),
    ("poll-interval-zero", a("pollIntervalSeconds", 0), "jobs.a.pollIntervalSeconds"),
    ("delete-timeout-zero", a("deleteTimeoutSeconds", 0), "jobs.a.deleteTimeoutSeconds"),
    ("auto-stop-zero", a("autoStopHours", 0), "jobs.a.autoStopHours"),
    ("description-too-long", a("description", "d" * 300), "description"),
    # bad names and keys
    ("name-with-space", a("name", "bad name"), "name"),
    ("name-too-long", a("name", "n" * 65), "name"),
    ("name-with-slash", a("name", "team/job"), "name"),
    ("job-key-bad-chars", _set((J, "a b!"), job(name="bad-key")), "jobs"),
    ("pool-key-bad-chars", _all(_set((P, "g p"), {"flavor": "x"}), a("pool", "g p")), "pools"),
    ("unknown-job-field", a("flavour", "x"), "jobs.a.flavour"),
    ("misspelt-boot-file", _all(a("bootFile", DELETE), a("bootfile", "train.py")), "jobs.a.bootfile"),
    ("unknown-section", _set((f"{PROJECT}:job",), {"a": job(name="x")}), f"{PROJECT}:job"),
    ("wait-for-not-a-choice", a("waitFor", "finished"), "jobs.a.waitFor"),
    ("env-name-invalid", a("environments", {"1BAD NAME": "x"}), "environments"),
    # bad OBS paths
    ("bucket-uppercase", _set((O, "main", "bucket"), "My_Bucket"), "obs.main.bucket"),
    ("bucket-too-short", _set((O, "main", "bucket"), "ab"), "obs.main.bucket"),
    ("obs-prefix-absolute", _set((O, "main", "data"), "/abs/data/"), "obs.main.data"),
    ("obs-prefix-url", _set((O, "main", "code"), "obs://other/code/"), "obs.main.code"),
    ("input-s3-url", a("inputs", {"data_url": "s3://bucket/data/"}), "inputs"),
    ("code-dir-bad-url", a("codeDir", "obs:/bucket/code"), "codeDir"),
    ("boot-file-other-scheme", a("bootFile", "https://example.com/train.py"), "boot"),
    ("log-export-no-obs", _all(_set((O,), DELETE), a("codeDir", "obs://emulator-bucket/code/"),
                               a("bootFile", "obs://emulator-bucket/code/train.py")), "jobs.a.obs"),
    # passed preview and failed at up before (issue 15.7), or were silently sent (issue 13.3)
    ("boot-file-outside-code-dir", a("bootFile", "obs://emulator-bucket/elsewhere/train.py"), "bootFile"),
    ("code-dir-dot-dot", a("codeDir", "../../etc/"), "codeDir"),
    ("input-double-slash", a("inputs", {"data_url": "mnist//train/"}), "inputs"),
    ("input-control-character", a("inputs", {"data_url": "mnist/\x07train/"}), "inputs"),
    ("sweep-bool-and-its-string", with_sweep(grid={"flag": [True, "true"]}), "sweeps.s.grid.flag"),
    ("region-underscore", _set(("modelarts:region",), "eu_de"), "modelarts:region"),
    # conflicting algorithm forms
    ("algorithm-id-and-code", a("algorithmId", "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"), "algorithm"),
    # engine (preset) and image (custom) both given: one silently wins today; must be refused
    ("image-and-engine", _all(a("image", "swr.cn-north-4.myhuaweicloud.com/team/img:1"),
                              a("command", "python train.py")), ("image", "engine")),
    ("engine-name-without-version", a("engine", {"name": "PyTorch"}), "engine"),
    ("subscription-and-algorithm-id", _all(NO_ALG, a("subscription", {"id": "s", "versionId": "v"}),
                                           a("algorithmId", "abc")), "algorithm"),
    ("image-without-command", _all(NO_ALG, a("image", "swr.cn-north-4.myhuaweicloud.com/team/img:1")), "command"),
    # unknown references
    ("unknown-pool", a("pool", "tpu"), "jobs.a.pool"),
    ("unknown-obs-location", a("obs", "archive"), "jobs.a.obs"),
    ("no-pools-defined", _set((P,), DELETE), "jobs.a.pool"),
    # malformed sweeps
    ("sweep-empty-grid", with_sweep(grid={}), "sweeps.s.grid"),
    ("sweep-empty-values", with_sweep(grid={"lr": []}), "sweeps.s.grid"),
    ("sweep-duplicate-values", with_sweep(grid={"lr": [0.1, 0.1]}), "sweeps.s.grid"),
    ("sweep-too-many-points", with_sweep(grid={"lr": list(range(30)), "bs": list(range(20))}), "sweeps.s.grid"),
    ("sweep-with-name", with_sweep(name="fixed"), "sweeps.s.name"),
    ("sweep-adopt", with_sweep(adoptJobId="abc"), "sweeps.s.adoptJobId"),
    ("sweep-grid-and-parameter", with_sweep(parameters={"lr": 0.5}), "sweeps.s.grid.lr"),
    ("sweep-same-key-as-job", _all(with_sweep(), _set((S, "a"), sweep({"lr": [1]}))), "sweeps.a"),
    ("sweep-grid-missing", with_sweep(grid=DELETE), "sweeps.s.grid"),
    ("sweep-grid-scalar", with_sweep(grid={"lr": 0.1}), "sweeps.s.grid.lr"),
    ("sweep-max-jobs-zero", with_sweep(maxJobs=0), "sweeps.s.maxJobs"),
    ("sweep-unknown-pool", with_sweep(pool="tpu"), "sweeps.s.pool"),
    # provider settings and credentials
    ("no-credentials", _all(_set(("modelarts:accessKey",), DELETE), _set(("modelarts:secretKey",), DELETE)),
     "modelarts:accessKey"),
    ("access-key-without-secret", _set(("modelarts:secretKey",), DELETE), "modelarts:secretKey"),
    ("secret-without-access-key", _set(("modelarts:accessKey",), DELETE), "modelarts:accessKey"),
    ("region-missing", _set(("modelarts:region",), DELETE), "modelarts:region"),
    ("project-id-missing", _set(("modelarts:projectId",), DELETE), "modelarts:projectId"),
    ("provider-key-typo", _set(("modelarts:secretkey",), "x"), "modelarts:secretkey"),
    ("endpoint-not-http", _set(("modelarts:endpoint",), "ftp://127.0.0.1:1"), "modelarts:endpoint"),
    ("verify-tls-not-bool", _set(("modelarts:verifyTls",), "maybe"), "modelarts:verifyTls"),
    ("cloud-unknown", _set(("modelarts:cloud",), "aws"), "modelarts:cloud"),
    ("iam-user-without-password", _all(_set(("modelarts:accessKey",), DELETE), _set(("modelarts:secretKey",), DELETE),
                                       _set(("modelarts:iamUser",), "u")), "modelarts:iamPassword"),
]


def _ids(cases: list[tuple[Any, ...]]) -> list[str]:
    return [c[0] for c in cases]


def test_case_table_is_large_and_distinct() -> None:
    assert len(STACK_CASES) + len(ARGS_CASES) >= 50
    assert len(set(_ids(STACK_CASES))) == len(STACK_CASES)
    assert len(set(_ids(ARGS_CASES))) == len(ARGS_CASES)


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("emulator"), **FAST_EMULATOR) as e:
        yield e


def _check_refused(st: Stack, emu: Any, expect: str | tuple[str, ...]) -> str:
    before = emu.counters()
    proc = st.preview(check=False)
    after = emu.counters()
    out = output_of(proc)
    assert proc.returncode != 0, f"preview accepted the bad input:\n{out}"
    assert after["total"] == before["total"], f"preview made API calls: {before} -> {after}"
    assert not TRACEBACK_RE.search(out), f"a Python traceback in the output:\n{out}"
    errors = [line.strip() for line in out.splitlines() if "error:" in line]
    main = [e for e in errors if "an unhandled error occurred" not in e and "preview failed" not in e]
    assert main, f"no error message:\n{out}"
    message = " ".join(main)
    names = (expect,) if isinstance(expect, str) else expect
    assert any(n in message for n in names), f"the error does not name {' or '.join(names)!r}:\n{out}"
    assert ALLOWED_RE.search(message), f"the error does not say what is allowed:\n{out}"
    return message


# --- stack config --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def config_stack(tmp_path_factory: pytest.TempPathFactory, emu: Any, pulumi_engine: Path) -> tuple[Stack, dict]:
    base = tmp_path_factory.mktemp("stack")
    st = job_stack(base, emu, jobs={"a": job(name="bad-input-a")})
    valid = read_config(st)
    assert set(valid) >= {"modelarts:secretKey", f"{PROJECT}:jobs", f"{PROJECT}:pools", f"{PROJECT}:obs"}
    # The valid config itself previews cleanly and without API calls (so every failure below is the case's).
    before = emu.counters()["total"]
    st.preview()
    assert emu.counters()["total"] == before
    return st, valid


@pytest.mark.parametrize("case_id,mutate,expect", STACK_CASES, ids=_ids(STACK_CASES))
def test_bad_stack_config(config_stack: tuple[Stack, dict], emu: Any, case_id: str,
                          mutate: Callable[[dict[str, Any]], None], expect: str) -> None:
    st, valid = config_stack
    cfg = copy.deepcopy(valid)
    mutate(cfg)
    replace_config(st, cfg)
    _check_refused(st, emu, expect)


# --- TrainingJob args used directly (the provider's check) ----------------------------------------

ARGS_PROGRAM = '''
import pulumi
from modelarts_provider import TrainingJob

args = pulumi.Config("case").require_object("args")
job = TrainingJob("direct", args)
pulumi.export("id", job.job_id)
'''

VALID_ARGS: dict[str, Any] = {
    "name": "direct-args-job",
    "algorithm": {"code_dir": "obs://emulator-bucket/code/", "boot_file": "obs://emulator-bucket/code/train.py",
                  "engine": {"engine_name": "PyTorch",
                             "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}},
    "flavor_id": "modelarts.p3.large.public",
}


def r(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    return _set(path, value)


ARGS_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("args-no-flavor-no-pool", r(("flavor_id",), DELETE), "flavor_id"),
    ("args-code-dir-http", r(("algorithm", "code_dir"), "http://example.com/code/"), "code_dir"),
    ("args-node-count-negative", r(("node_count",), -1), "node_count"),
    ("args-wait-for-bad", r(("wait_for",), "sometimes"), "wait_for"),
    ("args-id-and-code-dir", r(("algorithm", "id"), "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"), "algorithm"),
    ("args-unknown-field", r(("flavour_id",), "x"), "flavour_id"),
    ("args-name-with-space", r(("name",), "has space"), "name"),
    ("args-volume-missing-local-path", r(("volumes",), [{"nfs_server_path": "10.0.0.1:/data"}]), "volumes"),
    ("args-auto-stop-zero", r(("auto_stop",), {"duration": 0}), "auto_stop"),
    ("args-node-count-string", r(("node_count",), "one"), "node_count"),
    ("args-tasks-not-implemented", r(("tasks",), [{"role": "worker", "task_resource": {"node_count": 1}}]), "tasks"),
    ("args-boot-file-outside-code-dir", r(("algorithm", "boot_file"), "obs://emulator-bucket/other/train.py"),
     "boot_file"),
    ("args-code-dir-dot-dot", r(("algorithm", "code_dir"), "obs://emulator-bucket/code/../../x/"), "code_dir"),
    ("args-output-bad-obs", r(("algorithm", "outputs"), [{"name": "train_url", "obs_url": "s3://b/out/"}]), "outputs"),
]


@pytest.fixture(scope="module")
def args_stack(tmp_path_factory: pytest.TempPathFactory, emu: Any, pulumi_engine: Path) -> tuple[Stack, dict]:
    from tests.e2e.harness import REPO_ROOT
    from tests.faults.kit import provider_config, update_config

    base = tmp_path_factory.mktemp("args")
    plain, secrets = provider_config(emu)
    st = new_stack(base, ARGS_PROGRAM, config=plain, secrets=secrets)
    st.env["PYTHONPATH"] = str(REPO_ROOT)
    update_config(st, {"case:args": VALID_ARGS})
    before = emu.counters()["total"]
    st.preview()
    assert emu.counters()["total"] == before
    return st, read_config(st)


@pytest.mark.parametrize("case_id,mutate,expect", ARGS_CASES, ids=_ids(ARGS_CASES))
def test_bad_resource_args(args_stack: tuple[Stack, dict], emu: Any, case_id: str,
                           mutate: Callable[[dict[str, Any]], None], expect: str) -> None:
    st, valid = args_stack
    cfg = copy.deepcopy(valid)
    args = copy.deepcopy(cfg["case:args"])
    mutate(args)
    cfg["case:args"] = args
    replace_config(st, cfg)
    _check_refused(st, emu, expect)
