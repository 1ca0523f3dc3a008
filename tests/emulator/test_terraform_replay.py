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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import RunningEmulator, running_emulator
from tests.emulator.helpers import Api

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "terraform"
RECORDINGS = sorted(p.stem for p in FIXTURES.glob("*.json"))
PROJECT_PLACEHOLDER = "{project_id}"

# The fields of each answer the provider reads (utils.PathSearch in its resource code); "[]" projects a list.
# An error answer's error_code is read too (ModelArts.2775 is how it knows a job is gone).
JOB = r"/v2/[^/]+/training-jobs/[^/]+"
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
]
NUMBERS = {"GET": ("metadata.create_time",)}  # read, but a new value each run: a number in both is enough


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def _get(doc: Any, path: str) -> Any:
    """The value at a dotted `path` ("a.b[].c": c of every item of the list a.b); None where it is missing."""
    head, _, rest = path.partition(".")
    if head.endswith("[]"):
        items = doc.get(head[:-2]) if isinstance(doc, dict) else None
        return [_get(i, rest) if rest else i for i in items] if isinstance(items, list) else None
    value = doc.get(head) if isinstance(doc, dict) else None
    return _get(value, rest) if rest else value


def _reads(method: str, path: str) -> tuple[str, ...]:
    return next((fields for m, pattern, fields in READS if m == method and re.fullmatch(pattern, path)), ())


def _strings(doc: Any, at: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _strings(v, f"{at}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _strings(v, f"{at}[{i}]")
    elif isinstance(doc, str):
        yield at, doc


class Replay:
    """The recorded exchanges asked again of `emu`, in order, at their recorded times."""

    def __init__(self, emu: RunningEmulator, recording: dict[str, Any]) -> None:
        self.emu, self.api, self.recording = emu, Api(emu), recording
        self.ids: dict[str, str] = {}  # recorded id -> the one the emulator made this time
        self.started = time.monotonic()
        self.advanced = 0.0

    def _swap(self, text: str) -> str:
        for old in sorted(self.ids, key=len, reverse=True):
            text = text.replace(old, self.ids[old])
        return text.replace(PROJECT_PLACEHOLDER, self.emu.project_id)

    def _at(self, seconds: float) -> None:
        """The emulator's clock moved to `seconds` after the replay began (never back)."""
        behind = seconds - (time.monotonic() - self.started + self.advanced)
        if behind > 0:
            self.emu.advance(behind)
            self.advanced += behind

    def _learn(self, recorded: Any, answered: Any, later: str) -> None:
        """Ids the emulator made: strings that differ at one place of both answers and that a later request uses."""
        now = dict(_strings(answered))
        for at, old in _strings(recorded):
            new = now.get(at)
            if new is not None and new != old and len(old) >= 6 and old in later:
                self.ids[old] = new

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
            recorded = json.loads(self._swap(json.dumps(ex["response"])))
            later = json.dumps([(e["path"], e["query"], e["body"]) for e in exchanges[i + 1:]])
            self._learn(ex["response"], got, later)
            fields = _reads(ex["method"], ex["path"]) if ex["status"] < 400 else ("error_code",)
            for field in fields:
                if _get(got, field) != _get(json.loads(self._swap(json.dumps(recorded))), field):
                    problems.append(f"{where}: {field} = {_get(got, field)!r}, recorded {_get(recorded, field)!r}")
            for field in NUMBERS.get(ex["method"], ()) if ex["status"] < 400 and fields else ():
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
        assert emu.jobs() == [] or all(j["status"]["phase"] == "Terminated" for j in emu.jobs()), \
            "terraform destroyed everything it made: so must the replay"


def _calls(name: str) -> set[tuple[str, str, str]]:
    """(step, method, path with the project and ids as placeholders) of every recorded request."""
    uuid = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    return {(e["step"], e["method"], re.sub(uuid, "{id}", e["path"])) for e in _load(name)["exchanges"]}


def test_the_recordings_cover_what_terraform_does_and_hold_no_credential() -> None:
    """apply with tags, plan, an update of description and tags in place, plan, destroy, from a run whose plans
    found no changes; no header (key, signature, token) is kept, and the project id is a placeholder."""
    job, tags = "/v2/{project_id}/training-jobs/{id}", "/v2/{project_id}/modelarts-training-job/{id}/tags"
    assert {("apply", "POST", "/v2/{project_id}/training-jobs"), ("apply", "POST", tags + "/create"),
            ("plan", "GET", job), ("plan", "GET", tags),
            ("update", "PUT", job), ("update", "DELETE", tags + "/delete"), ("update", "POST", tags + "/create"),
            ("plan-after-update", "GET", job), ("destroy", "DELETE", job)} <= _calls("training_jobs")
    for name in RECORDINGS:
        recording = _load(name)
        assert [s["command"].split()[0] for s in recording["steps"]] == \
            ["init", "apply", "plan", "apply", "plan", "destroy"]
        text = (FIXTURES / f"{name}.json").read_text()
        assert not re.search(r"headers|authorization|x-sdk-date|x-security-token|signature", text, re.I)
        assert all(e["path"].startswith(("/v2/{project_id}/", "/v1/{project_id}/", "/v3/"))
                   for e in recording["exchanges"])
