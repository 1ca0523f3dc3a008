"""The provider plugin's adapter without the engine: the same providers behind it, its hooks, its schema."""

from __future__ import annotations

import asyncio
import inspect
import time
from pathlib import Path
from typing import Any

import pytest

import modelarts_provider
from modelarts_provider.plugin import doors
from modelarts_provider.plugin.names import camel
from modelarts_provider.plugin.doors import DOORS, Context, jobs_await_timeouts, prepare_training_job
from modelarts_provider.plugin.provider import ModelArtsPlugin, _config_of
from modelarts_provider.plugin.schema import schema
from modelarts_provider.plugin.values import from_plain, plain_map, property_map, to_plain
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.training_job.args import TrainingJobArgs
from modelarts_provider.core.unknowns import UNKNOWN
from modelarts_provider.training_job.naming import with_identity
from pulumi.provider.experimental import provider as p

ALGORITHM_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"
URN = "urn:pulumi:dev::proj::modelarts:index:{}::{}"


def test_every_resource_of_the_package_is_served() -> None:
    """A resource type exported by the package (its provider class) without a row in DOORS fails here."""
    exported = {getattr(modelarts_provider, n) for n in modelarts_provider.__all__ if n.endswith("Provider")}
    assert exported == {d.provider for d in DOORS.values()}


def test_schema_types_and_describes_every_property() -> None:
    s = schema("0.1.0")
    assert set(s["resources"]) == {f"modelarts:index:{n}" for n in DOORS}
    tables = [(name, spec["properties"]) for name, spec in s["types"].items()]
    for name, spec in s["resources"].items():
        tables += [(name, spec["properties"]), (name, spec["inputProperties"])]
    for where, props in tables:
        for key, prop in props.items():
            assert prop.get("type") or prop.get("$ref"), f"{where}.{key} has no type"
            assert prop.get("description"), f"{where}.{key} has no description"
    job = s["resources"]["modelarts:index:TrainingJob"]
    internal = {"owner", "derived_name", "config_keys", "secret_paths"}
    assert set(job["inputProperties"]) == {camel(k) for k in set(TrainingJobArgs.model_fields) - internal}
    assert {"owner", "jobId", "phase", "consoleUrl", "flavorId", "waitFor"} <= set(job["properties"])
    assert not {"configKeys", "secretPaths", "config_keys", "secret_paths"} & set(job["properties"])


def test_values_round_trip_with_unknowns() -> None:
    plain = {"a": 1.0, "b": [True, None, "x"], "c": {"d": UNKNOWN}}
    assert plain_map(property_map(plain)) == plain
    assert from_plain(UNKNOWN).marshal().string_value == UNKNOWN  # the engine reads it as computed
    assert to_plain(p.PropertyValue.computed()) == UNKNOWN
    assert to_plain(p.PropertyValue("s", is_secret=True)) == "s"


def test_config_from_the_modelarts_namespace() -> None:
    req = p.ConfigureRequest({"modelarts:config:cloud": "otc"},
                             property_map({"region": "eu-de", "verifyTls": False, "retryTimeoutSeconds": 30.0}),
                             False, False)
    assert _config_of(req) == {"modelarts:cloud": "otc", "modelarts:region": "eu-de",
                               "modelarts:verifyTls": "false", "modelarts:retryTimeoutSeconds": "30"}


def _job_inputs(**extra: Any) -> dict[str, Any]:
    return {"algorithm": {"id": ALGORITHM_ID}, "flavor_id": "modelarts.vm.cpu.2u", **extra}


def _plugin_job(**extra: Any) -> dict[str, Any]:
    """A TrainingJob's inputs as a program declares them to the plugin (the schema's camelCase)."""
    return {"algorithm": {"id": ALGORITHM_ID}, "flavorId": "modelarts.vm.cpu.2u", **extra}


SEED, OTHER_SEED = "a" * 64, "b" * 64


def _checked(ctx: Context, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
    """What the plugin's check records: its prepare, then the providers' shared naming step."""
    return with_identity(prepare_training_job(ctx, olds, news), olds)


def test_derived_name_kept_for_the_same_spec_and_renewed_on_a_new_one() -> None:
    ctx = Context(URN.format("TrainingJob", "train"), SEED)
    first = _checked(ctx, {}, _job_inputs())
    assert first["derived_name"] is True and first["name"].startswith("train-") and len(first["name"]) == 12
    assert "owner_seed" not in first
    # The next check has the recorded inputs as olds: same owner, and a description change keeps the name.
    again = _checked(Context(ctx.urn, OTHER_SEED), first, _job_inputs(description="new"))
    assert again["owner"] == first["owner"] and again["name"] == first["name"]
    replaced = _checked(ctx, first, _job_inputs(node_count=2))
    assert replaced["name"] != first["name"] and replaced["owner"] == first["owner"]
    # A killed `up` and the same edit again, and the engine's check of a replacement (no old inputs): the same
    # name and token (found and taken over, not created twice).
    assert _checked(ctx, first, _job_inputs(node_count=2)) == replaced == _checked(ctx, {}, _job_inputs(node_count=2))
    other = _checked(Context(URN.format("TrainingJob", "train"), OTHER_SEED), {}, _job_inputs())
    assert other["owner"]["token"] != first["owner"]["token"] and other["name"] != first["name"]
    assert first["owner"]["stack"] == "organization/proj/dev" and first["owner"]["resource"] == "train"


def test_custom_timeout_replaces_the_job_deadlines_either_way() -> None:
    props = {"jobs": {"a": {"job_id": "1", "timeout_seconds": 3600}, "b": {"job_id": "2", "timeout_seconds": 1}}}
    bounded = jobs_await_timeouts("create", props, 30.0)
    assert [j["timeout_seconds"] for j in bounded["jobs"].values()] == [30.0, 30.0]
    assert jobs_await_timeouts("delete", props, 30.0) == props
    assert doors.training_job_timeouts("delete", {"delete_timeout_seconds": 900}, 5.0)["delete_timeout_seconds"] == 5.0


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def _configured(emulator: Any) -> ModelArtsPlugin:
    plugin = ModelArtsPlugin()
    args = {"region": "cn-north-4", "projectId": emulator.project_id, "endpoint": emulator.url,
            "accessKey": emulator.access_key, "secretKey": emulator.secret_key}
    # As the engine does: check_config (which adds the stack's owner seed), then configure with its inputs.
    checked = _run(plugin.check_config(p.CheckRequest("urn:pulumi:dev::proj::pulumi:providers:modelarts::default",
                                                      {}, property_map(args), b"")))
    _run(plugin.configure(p.ConfigureRequest({}, checked.inputs, False, False)))
    return plugin


def _create(plugin: ModelArtsPlugin, type_: str, name: str, inputs: dict[str, Any], timeout: float = 0) -> Any:
    urn = URN.format(type_, name)
    checked = _run(plugin.check(p.CheckRequest(urn, {}, property_map(inputs), b"seed-" + name.encode())))
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    return _run(plugin.create(p.CreateRequest(urn, checked.inputs, timeout, False)))


def test_custom_timeout_takes_precedence_over_a_shorter_job_deadline(emulator: Any) -> None:
    """The job completes after ~2.4 s; its own 0.5 s deadline would fail the wait, the custom 60 s does not,
    and the state keeps the declared deadline."""
    plugin = _configured(emulator)
    job = _create(plugin, "TrainingJob", "short", _plugin_job(name="short-job"))
    jobs = {"short": {"jobId": job.resource_id, "jobName": "short-job", "waitFor": "completed",
                      "timeoutSeconds": 0.5, "pollSeconds": 0.1}}
    waited = _create(plugin, "JobsAwait", "waited", {"jobs": jobs}, timeout=60)
    state = plain_map(waited.properties)
    assert state["phases"] == {"short": "Completed"}
    assert state["jobs"]["short"]["timeoutSeconds"] == 0.5


def test_custom_timeout_ends_a_longer_wait(emulator: Any) -> None:
    plugin = _configured(emulator)
    job = _create(plugin, "TrainingJob", "slow", _plugin_job(name="slow-job", annotations={"emulator/run-seconds": "600"}))
    jobs = {"slow": {"jobId": job.resource_id, "jobName": "slow-job", "waitFor": "completed",
                     "timeoutSeconds": 3600, "pollSeconds": 0.1}}
    started = time.monotonic()
    with pytest.raises(ProviderError, match="slow-job"):
        _create(plugin, "JobsAwait", "waited", {"jobs": jobs}, timeout=1)
    assert time.monotonic() - started < 15
    assert {j["metadata"]["name"]: j["status"]["phase"] for j in emulator.jobs()}["slow-job"] in (
        "Terminating", "Terminated")


def test_calls_run_beside_each_other() -> None:
    """No 4-call cap: the adapter's pool holds far more calls than the dynamic-provider server's 4 threads."""
    plugin = ModelArtsPlugin()
    assert plugin._pool._max_workers >= 64
    assert all(inspect.iscoroutinefunction(getattr(plugin, m)) for m in ("check", "diff", "create", "read",
                                                                         "update", "delete"))


def test_engine_cancel_reaches_the_waits() -> None:
    """The engine's Cancel (first Ctrl-C) arrives first-hand: the flag every wait of the process checks."""
    from modelarts_provider.wait_engine import cancel

    assert not cancel.cancelled()
    try:
        _run(ModelArtsPlugin().cancel())
        assert cancel.cancelled()
    finally:
        cancel._CANCELLED.clear()  # process-wide: other tests of this worker wait normally


def _import(plugin: ModelArtsPlugin, name: str, job_id: str) -> Any:
    return _run(plugin.read(p.ReadRequest(URN.format("TrainingJob", name), job_id, {}, {})))


def test_outputs_read_back_every_property_with_its_default_and_inputs_store_what_was_declared(emulator: Any) -> None:
    """The schema's outputs of a job: a YAML/TypeScript/Go program reads `waitFor` or `nodeCount` back whether it
    declared them or not; the recorded inputs are the stored form (no defaults), as on the Python door."""
    plugin = _configured(emulator)
    urn = URN.format("TrainingJob", "defaults")
    checked = plain_map(_run(plugin.check(p.CheckRequest(urn, {}, property_map(_plugin_job(name="defaults-job")),
                                                         b"seed-defaults"))).inputs)
    assert "waitFor" not in checked and "nodeCount" not in checked and checked["flavorId"] == "modelarts.vm.cpu.2u"
    outs = plain_map(_create(plugin, "TrainingJob", "defaults", _plugin_job(name="defaults-job")).properties)
    assert outs["waitFor"] == "created" and outs["nodeCount"] == 1 and outs["kind"] == "job"
    assert outs["jobName"] == "defaults-job" and outs["phase"] and outs["flavorId"] == "modelarts.vm.cpu.2u"


def test_import_follows_the_ownership_rules(emulator: Any) -> None:
    plugin = _configured(emulator)
    made = _create(plugin, "TrainingJob", "train", _plugin_job(name="train-job"))
    token = plain_map(made.properties)["owner"]["token"]
    # This very resource's job, imported again (e.g. after `pulumi state delete`): ours again, same token.
    again = plain_map(_import(plugin, "train", made.resource_id).inputs)
    assert {k: v for k, v in again["owner"].items() if k != "key"} == {
        "stack": "organization/proj/dev", "resource": "train", "token": token}
    assert again["owner"]["key"] == plain_map(made.properties)["owner"]["key"]  # the stack's mark key
    assert again["name"] == "train-job" and again["algorithm"] == {"id": ALGORITHM_ID, "parameters": [
        {"name": "epochs", "value": "10"}, {"name": "lr", "value": "0.01"}]}  # the algorithm's defaults, filled in
    # Another resource's job is not taken; nothing changed on it.
    with pytest.raises(doors.ImportRefused, match=r"not this resource's to import: it belongs to "
                                                  r"organization/proj/dev::train"):
        _import(plugin, "other", made.resource_id)
    with pytest.raises(doors.ImportRefused, match="no such job"):
        _import(plugin, "other", "00000000-0000-0000-0000-000000000000")
    assert [j["status"]["phase"] for j in emulator.jobs()] in (["Creating"], ["Pending"], ["Running"])


def test_custom_delete_timeout_bounds_the_stop(tmp_path: Any) -> None:
    """customTimeouts.delete replaces delete_timeout_seconds (900 s): a job that takes 60 s to stop fails the
    delete after the custom 1 s, naming it, and stays in the service (the next destroy goes on)."""
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "slow-stop", phase_seconds=60, run_seconds=600) as emu:
        plugin = _configured(emu)
        made = _create(plugin, "TrainingJob", "train", _plugin_job(name="slow-stop", pollIntervalSeconds=0.1))
        started = time.monotonic()
        with pytest.raises(Exception, match=r"slow-stop .* did not stop within 1s"):
            _run(plugin.delete(p.DeleteRequest(URN.format("TrainingJob", "train"), made.resource_id,
                                               made.properties, 1.0)))
        assert time.monotonic() - started < 15
        assert [j["status"]["phase"] for j in emu.jobs()] == ["Terminating"]


def test_delete_returns_once_the_service_no_longer_has_the_job(tmp_path: Path) -> None:
    """Deletes are asynchronous (a deleted job is answered a while): the plugin's delete waits until GET says
    ModelArts.2775, as the stack program's does (the same lifecycle.stop_and_delete)."""
    from modelarts_emulator.testing import running_emulator

    with running_emulator(tmp_path / "async-delete", phase_seconds=0.2, run_seconds=600, delete_seconds=1) as emu:
        plugin = _configured(emu)
        made = _create(plugin, "TrainingJob", "train", _plugin_job(name="async-delete", pollIntervalSeconds=0.1))
        _run(plugin.delete(p.DeleteRequest(URN.format("TrainingJob", "train"), made.resource_id,
                                           made.properties, 0)))
        assert emu.jobs() == []  # gone from the service when the delete returned
        assert emu.counters()["delete"] == 1


def test_output_per_run_folders_follow_the_derived_name() -> None:
    ctx = Context(URN.format("TrainingJob", "train"), SEED)
    news = {"algorithm": {"code_dir": "obs://bkt/code/", "boot_file": "obs://bkt/code/t.py",
                          "engine": {"engine_id": "e"}, "outputs": [{"name": "out", "obs_url": "obs://bkt/out/"}]},
            "flavor_id": "f", "output_per_run": True, "log_export_path": {"obs_url": "obs://bkt/logs"}}
    first = _checked(ctx, {}, news)
    run = first["name"]
    assert first["algorithm"]["outputs"][0]["obs_url"] == f"obs://bkt/out/{run}/"
    assert first["log_export_path"]["obs_url"] == f"obs://bkt/logs/{run}/"
    assert news["algorithm"]["outputs"][0]["obs_url"] == "obs://bkt/out/"  # the declaration is not changed
    assert _checked(ctx, first, news) == first  # the next check: same run, same folders
    moved = _checked(ctx, first, {**news, "node_count": 2})  # replaced: the next run's folders
    assert moved["algorithm"]["outputs"][0]["obs_url"] == f"obs://bkt/out/{moved['name']}/" != f"obs://bkt/out/{run}/"


def test_a_new_resource_plugs_in_with_one_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row naming a provider class and its models: served (check routed to that provider) and in the schema."""
    from pydantic import BaseModel, Field

    from modelarts_provider.bucket.provider import BucketProvider

    class PoolArgs(BaseModel):
        pool_name: str = Field(description="The pool's name.")
        nodes: int = Field(1, description="Nodes in the pool.")

    class PoolProvider(BucketProvider):  # stands in for a new resource's provider
        def check(self, olds: dict[str, Any], news: dict[str, Any]) -> Any:
            from pulumi.dynamic import CheckResult
            return CheckResult({**news, "checked_by": "pool"}, [])

    monkeypatch.setitem(DOORS, "Pool", doors.Door(PoolProvider, "A training pool.", args_model=PoolArgs))
    spec = schema("0.1.0")["resources"]["modelarts:index:Pool"]
    assert spec["requiredInputs"] == ["poolName"]
    assert spec["inputProperties"]["nodes"] == {"type": "integer", "description": "Nodes in the pool."}
    checked = _run(ModelArtsPlugin().check(p.CheckRequest(URN.format("Pool", "p"), {},
                                                          property_map({"poolName": "a"}), b"")))
    assert plain_map(checked.inputs) == {"poolName": "a", "checked_by": "pool"}  # a key not in the schema: as is


def test_jobs_await_takes_every_argument_of_the_python_resource_and_checks_the_objective() -> None:
    """The schema has JobsAwaitArgs' every input (max_failures and each job's secrets too, the latter secret); a
    bad objective regex fails at check, not after the jobs finished."""
    from modelarts_provider.awaiting.args import JobsAwaitArgs

    s = schema("0.1.0")
    inputs = s["resources"]["modelarts:index:JobsAwait"]["inputProperties"]
    assert set(inputs) == {"jobs", "maxFailures", "secrets"} and inputs["secrets"]["secret"] is True
    assert set(JobsAwaitArgs.model_fields) == {"jobs", "max_failures", "secrets"}
    plugin = ModelArtsPlugin()
    jobs = {"a": {"jobId": "1", "objective": {"name": "acc", "regex": "acc=[0-9.]+"}}}
    checked = _run(plugin.check(p.CheckRequest(URN.format("JobsAwait", "w"), {},
                                               property_map({"jobs": jobs, "maxFailures": {"g": 1.0}}), b"")))
    assert [(f.property, f.reason) for f in checked.failures] == [
        ("", "jobs.a.objective.regex: 'acc=[0-9.]+' needs exactly one group around the number, e.g. "
             "accuracy=([0-9.]+); it has 0")]  # nested: the path leads the reason (core/failures.for_engine)


def test_progress_and_warnings_reach_the_engines_log_attached_to_the_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine hides a plugin's stderr: say() and the package's warnings go to its log service instead,
    masked, with the URN of the resource whose call printed them."""
    import logging
    from concurrent import futures

    import grpc
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import engine_pb2_grpc

    from modelarts_provider.core.masking import NONE, Secrets
    from modelarts_provider.plugin import diagnostics
    from modelarts_provider.core.output_lines import say, set_output

    got: list[Any] = []

    class Engine(engine_pb2_grpc.EngineServicer):
        def Log(self, request: Any, context: Any) -> Any:
            got.append(request)
            return empty_pb2.Empty()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    engine_pb2_grpc.add_EngineServicer_to_server(Engine(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    package = logging.getLogger("modelarts_provider")
    handlers, propagate = list(package.handlers), package.propagate
    try:
        diagnostics.route_to_engine(f"127.0.0.1:{port}")
        secrets = Secrets.of(["sup3r-secret-value"])  # the call's secret markers
        urn = URN.format("TrainingJob", "train")
        _run(ModelArtsPlugin()._run(urn, secrets, say, "train-abc: submitted with sup3r-secret-value"))
        _run(ModelArtsPlugin()._run(urn, NONE, say, "warning: catalog check skipped"))
        logging.getLogger("modelarts_provider.client.api").warning("create of %s was ambiguous", "train-abc")
    finally:
        set_output(None)
        package.handlers[:], package.propagate = handlers, propagate
        server.stop(0)
    assert [(r.message, r.urn, r.severity) for r in got] == [
        ("train-abc: submitted with ******", urn, 1), ("catalog check skipped", urn, 2),  # the engine says "warning:"
        ("create of train-abc was ambiguous", "", 2)]


def test_secrets_are_accepted_learnt_and_kept_secret_with_what_is_built_from_them(
        emulator: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A secret input is masked in what its call prints (never learnt for other calls), recorded as the job's
    secret_paths, secret again in the checked inputs and the state, and the output paths built from a secret
    OBS URL are secret too; nothing secret comes back plain."""
    from modelarts_provider.core import masking
    from modelarts_provider.plugin.doors import DOORS
    from modelarts_provider.plugin.provider import _marked
    from modelarts_provider.plugin.values import secret_paths

    plugin = _configured(emulator)
    assert _run(plugin.configure(p.ConfigureRequest({}, {}, True, False))).accept_secrets
    plugin = _configured(emulator)
    urn = URN.format("TrainingJob", "secretive")
    news = property_map(_plugin_job(name="secretive-job"))
    algorithm = dict(news["algorithm"].value)
    algorithm["environments"] = p.PropertyValue({"HF": p.PropertyValue("hf-abcdef-123", is_secret=True)})
    algorithm["outputs"] = p.PropertyValue([p.PropertyValue({
        "name": p.PropertyValue("out"),
        "obsUrl": p.PropertyValue("obs://private-bkt/out/", is_secret=True)})])
    news["algorithm"] = p.PropertyValue(algorithm)
    checked = _run(plugin.check(p.CheckRequest(urn, {}, news, b"")))
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    assert _marked(DOORS["TrainingJob"], news).mask("env HF hf-abcdef-123") == "env HF ******"  # the call's
    assert masking.mask("env HF hf-abcdef-123") == "env HF hf-abcdef-123"  # nothing kept after it
    # and the owner mark's key (core/ownership.py), a secret of its own
    assert secret_paths(checked.inputs) == ["algorithm.environments.HF", "algorithm.outputs.0.obsUrl", "owner.key"]
    # recorded as the stack program records it (an internal input: not in the schema, its own naming)
    assert to_plain(checked.inputs["secret_paths"]) == ["algorithm.environments.HF", "algorithm.outputs.0.obs_url"]
    made = _run(plugin.create(p.CreateRequest(urn, checked.inputs, 0, False)))
    secret = set(secret_paths(made.properties))
    assert {"algorithm.environments.HF", "algorithm.outputs.0.obsUrl", "outputPath", "outputPaths"} <= secret
    assert made.properties["outputPath"].is_secret and "private-bkt" in to_plain(made.properties["outputPath"])
    _run(plugin.delete(p.DeleteRequest(urn, made.resource_id, made.properties, 0)))
