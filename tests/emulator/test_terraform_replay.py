"""Terraform's official Huawei Cloud provider, replayed (issue 57): what it asked of a local ModelArts and what it
was answered, recorded by scripts/terraform_record.py into tests/fixtures/terraform/, asked again of a fresh local
ModelArts over HTTP, signed by this test. Neither Go nor terraform is needed here.

Each request goes in its recorded order, with the emulator's clock first moved to its recorded time (the
provider waits 10 s after a create, then polls every 20 s: the replay meets the phases the provider met), and the
ids the emulator makes (a job's id, a pool's or network's name) swapped for the ones it makes now. Each answer
must carry the recorded status and the recorded values of the fields the provider reads from it (READS, from its
resource code: huaweicloud/services/modelarts/resource_huaweicloud_modelarts_*.go). A status the provider does
not accept (tags/create answering 200 where it requires 204) fails here as it failed terraform.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from testkit.terraform import PROJECT_PLACEHOLDER
from tests.emulator.helpers import Api

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "terraform"
RECORDINGS = sorted(p.stem for p in FIXTURES.glob("*.json"))

# The fields of each answer the provider reads (utils.PathSearch in its resource code); "[]" projects a list, a
# quoted key may hold dots. An error answer's error_code is read too (ModelArts.2775: a job is gone).
JOB = r"/v2/[^/]+/training-jobs/[^/]+"
POOL = r"/v2/[^/]+/pools/[^/]+"
NETWORK = r"/v1/[^/]+/networks/[^/]+"
NAME, WORKSPACE = 'metadata.labels."os.modelarts/name"', 'metadata.labels."os.modelarts/workspace.id"'
READS: list[tuple[str, str, tuple[str, ...]]] = [
    ("POST", r"/v2/[^/]+/training-jobs", ("metadata.id",)),
    ("GET", JOB, (
        "kind", "status.phase", "metadata.name", "metadata.workspace_id", "metadata.description",
        "metadata.training_experiment_reference.id", "algorithm.code_dir", "algorithm.boot_file",
        "algorithm.command", "algorithm.engine.engine_id", "algorithm.engine.engine_name",
        "algorithm.engine.engine_version", "algorithm.engine.image_url", "algorithm.outputs[].name",
        "algorithm.outputs[].remote.obs.obs_url", "algorithm.outputs[].local_dir", "algorithm.outputs[].access_method",
        "algorithm.parameters[].name", "algorithm.parameters[].value", "algorithm.parameters[].description",
        "algorithm.environments", "spec.resource.node_count", "spec.resource.flavor_id", "spec.resource.pool_id",
        "spec.resource.pool_group_id", "spec.runtime_type", "spec.log_export_path", "spec.auto_stop",
        "spec.schedule_policy", "spec.volumes", "endpoints")),
    ("GET", r"/v2/[^/]+/modelarts-training-job/[^/]+/tags", ("tags",)),
    ("POST", r"/v1/[^/]+/networks", ("metadata.name",)),
    ("GET", NETWORK, (NAME, WORKSPACE, "spec.cidr", "spec.connection.peerConnectionList",
                      "spec.connection.sfsTurboConnectionList", "status.connectionStatus.sfsTurboStatus",
                      "status.phase", "status.subnets[].networkId")),
    ("POST", r"/v2/[^/]+/pools", ("metadata.name", 'metadata.labels."os.modelarts/order.name"')),
    ("PATCH", POOL, ('metadata.labels."os.modelarts/order.name"',)),
    ("GET", POOL, (NAME, WORKSPACE, 'metadata.annotations."os.modelarts/description"',
                   'metadata.annotations."os.modelarts/billing.mode"', "spec.scope", "spec.resources",
                   "spec.network.name", "spec.network.vpcId", "spec.network.subnetId", "spec.userLogin.keyPairName",
                   "spec.clusters", "status.phase", "status.scope")),
    ("GET", POOL + "/nodes", ("items[].metadata.name", "items[].status.driver.phase")),
    ("GET", r"/v1/[^/]+/orders", ("items[].orderName", "items[].phase", "items[].failReason")),
    ("GET", r"/v1/[^/]+/orders/[^/]+", ("items[].resourceName", "items[].status", "items[].message")),
]
NUMBERS = {"GET": ("metadata.create_time",)}  # read, but a new value each run: a number in both is enough


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def _get(doc: Any, path: str | list[str]) -> Any:
    """The value at a dotted `path` ("a.b[].c": c of every item of the list a.b; 'a."b.c"': key b.c of a); None
    where it is missing."""
    keys = [k.strip('"') for k in re.findall(r'"[^"]+"(?:\[\])?|[^.]+', path)] if isinstance(path, str) else path
    if not keys:
        return doc
    head, rest = keys[0], keys[1:]
    if head.endswith("[]"):
        items = doc.get(head[:-2]) if isinstance(doc, dict) else None
        return [_get(i, rest) for i in items] if isinstance(items, list) else None
    return _get(doc.get(head) if isinstance(doc, dict) else None, rest)


def _reads(method: str, path: str) -> tuple[str, ...]:
    return next((fields for m, pattern, fields in READS if m == method and re.fullmatch(pattern, path)), ())


# What the service makes up for each run: UUIDs (a job's id, a subnet's), and names of a word or two and 8 hex
# digits with what follows (network-1a2b3c4d, a pool's, its orders' and nodes' names). A replay meets others.
MADE_UP = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z]+(-[a-z]+)?-[0-9a-f]{8}[a-z0-9.-]*")


class Replay:
    """The recorded exchanges asked again of `emu`, in order, at their recorded times."""

    def __init__(self, emu: RunningEmulator, recording: dict[str, Any]) -> None:
        self.emu, self.api, self.recording = emu, Api(emu), recording
        self.ids: dict[str, str] = {}  # recorded made-up id -> the one the emulator made this time
        self.started = time.monotonic()
        self.advanced = 0.0

    def _swap(self, text: str) -> str:
        """A recorded request's text with this run's ids and project."""
        for old in sorted(self.ids, key=len, reverse=True):
            text = text.replace(old, self.ids[old])
        return text.replace(PROJECT_PLACEHOLDER, self.emu.project_id)

    def _at(self, seconds: float) -> None:
        """The emulator's clock moved to `seconds` after the replay began (never back)."""
        behind = seconds - (time.monotonic() - self.started + self.advanced)
        if behind > 0:
            self.emu.advance(behind)
            self.advanced += behind

    def _same(self, recorded: Any, got: Any) -> bool:
        """Equal, but that a made-up id may be another, as long as it is the same other each time."""
        if isinstance(recorded, dict) and isinstance(got, dict):
            return recorded.keys() == got.keys() and all(self._same(v, got[k]) for k, v in recorded.items())
        if isinstance(recorded, list) and isinstance(got, list):
            return len(recorded) == len(got) and all(self._same(a, b) for a, b in zip(recorded, got))
        if isinstance(recorded, str) and isinstance(got, str) and recorded != got:
            if MADE_UP.fullmatch(recorded) and MADE_UP.fullmatch(got):
                return self.ids.setdefault(recorded, got) == got
            return False
        return recorded == got

    def run(self) -> list[str]:
        """Every difference found, as lines ("" none): the test shows them all at once."""
        exchanges, problems = self.recording["exchanges"], []
        first = exchanges[0]["at_s"]
        for i, ex in enumerate(exchanges):
            self._at(ex["at_s"] - first)
            path = self._swap(ex["path"])
            query = urllib.parse.parse_qsl(self._swap(ex["query"]), keep_blank_values=True)
            body = json.loads(self._swap(json.dumps(ex["body"]))) if ex["body"] is not None else None
            answer = self.api.call(ex["method"], path, body, query=query)
            got = answer.json() if answer.content else None
            where = f"#{i} {ex['step']}: {ex['method']} {ex['path']}"
            if answer.status_code != ex["status"]:
                problems.append(f"{where}: status {answer.status_code}, recorded {ex['status']}: {answer.text[:200]}")
                continue
            recorded = ex["response"]
            for field in _reads(ex["method"], ex["path"]) if ex["status"] < 400 else ("error_code",):
                if not self._same(_get(recorded, field), _get(got, field)):
                    problems.append(f"{where}: {field} = {_get(got, field)!r}, recorded {_get(recorded, field)!r}")
            for field in NUMBERS.get(ex["method"], ()) if ex["status"] < 400 and _reads(ex["method"], ex["path"]) else ():
                if isinstance(_get(recorded, field), (int, float)) and not isinstance(_get(got, field), (int, float)):
                    problems.append(f"{where}: {field} = {_get(got, field)!r}, recorded a number")
        return problems


@pytest.mark.parametrize("name", RECORDINGS)
def test_the_providers_recorded_requests_meet_the_same_answers(name: str, tmp_path: Path) -> None:
    recording = _load(name)
    assert all(s["rc"] == 0 for s in recording["steps"]), "recorded from a terraform run that failed"
    with running_emulator(tmp_path / "emulator", **recording["emulator_flags"]) as emu:
        problems = Replay(emu, recording).run()
        assert problems == [], "\n".join(problems)
        assert emu.jobs() == [] and all(item["gone"] for item in emu.pools()["items"]), \
            "terraform destroyed everything it made: so must the replay"


def _calls(name: str) -> set[tuple[str, str, str]]:
    """(step, method, path with the project and ids as placeholders) of every recorded request."""
    def general(path: str) -> str:
        return "/".join("{id}" if MADE_UP.fullmatch(part) else part for part in path.split("/"))

    return {(e["step"], e["method"], general(e["path"])) for e in _load(name)["exchanges"]}


def test_the_recordings_cover_what_terraform_does_and_hold_no_credential() -> None:
    """apply (jobs with tags), plan, an update in place (jobs: description and tags; networks: peer connections;
    pools: description and nodes), plan, destroy, from runs whose plans found no changes; no header (key,
    signature, token) is kept, and the project id is a placeholder."""
    job, tags = "/v2/{project_id}/training-jobs/{id}", "/v2/{project_id}/modelarts-training-job/{id}/tags"
    assert {("apply", "POST", "/v2/{project_id}/training-jobs"), ("apply", "POST", tags + "/create"),
            ("plan", "GET", job), ("plan", "GET", tags),
            ("update", "PUT", job), ("update", "DELETE", tags + "/delete"), ("update", "POST", tags + "/create"),
            ("plan-after-update", "GET", job), ("destroy", "DELETE", job)} <= _calls("training_jobs")
    network, pool = "/v1/{project_id}/networks/{id}", "/v2/{project_id}/pools/{id}"
    assert {("apply", "POST", "/v1/{project_id}/networks"), ("plan", "GET", network), ("update", "PATCH", network),
            ("destroy", "DELETE", network)} <= _calls("networks")
    assert {("apply", "POST", "/v2/{project_id}/pools"), ("apply", "GET", "/v1/{project_id}/orders/{id}"),
            ("apply", "GET", pool + "/nodes"), ("plan", "GET", pool), ("update", "PATCH", pool),
            ("destroy", "DELETE", pool)} <= _calls("resource_pools")
    for name in RECORDINGS:
        recording = _load(name)
        assert [s["command"].split()[0] for s in recording["steps"]] == \
            ["init", "apply", "plan", "apply", "plan", "destroy"]
        text = (FIXTURES / f"{name}.json").read_text()
        assert not re.search(r"headers|authorization|x-sdk-date|x-security-token|signature", text, re.I)
        assert all(e["path"].startswith(("/v2/{project_id}/", "/v1/{project_id}/", "/v3/"))
                   for e in recording["exchanges"])
