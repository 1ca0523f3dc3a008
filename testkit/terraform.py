"""Terraform's official Huawei Cloud provider (built by scripts/terraform_provider.sh) against a local ModelArts,
every request it makes recorded on the way (issue 57).

    with recording_proxy(emu.url) as proxy:            # the provider's endpoints point at proxy.url
        tf = Terraform(workdir, proxy.url, emu)          # a working folder, offline CLI config, credentials
        tf.write(training_jobs_config(...)); tf.init(); tf.apply()
        proxy.exchanges                                  # [Exchange]: method, path, query, body, status, response

The proxy passes each request on as it came (the signed Host header included, so the local gateway checks the
signature the provider made) and records what the fixtures keep: never a header, so no key, signature or token.
scripts/terraform_record.py writes the fixtures; tests/terraform runs the same end to end when the provider is built.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import BaseModel

REPO = Path(__file__).resolve().parents[1]
PROVIDER_SCRIPT = REPO / "scripts" / "terraform_provider.sh"
# What the fixtures hold in place of the local ModelArts' project id (made up too, but one name for every recording).
PROJECT_PLACEHOLDER = "{project_id}"
REGION = "cn-north-4"


class Exchange(BaseModel):
    """One request of the provider and the local ModelArts' answer, as the fixtures keep them."""

    at_s: float  # seconds since the recording began (the replay moves the emulator's clock to the same time)
    step: str  # the terraform command it belongs to (apply, plan, update, destroy, ...)
    method: str
    path: str
    query: str
    body: Any = None  # the JSON body sent (None: none)
    status: int
    response: Any = None  # the JSON answer (None: an empty body)


def _json_or_none(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


@dataclass
class RecordingProxy:
    url: str
    upstream: tuple[str, int]
    started: float = field(default_factory=time.monotonic)
    step: str = "init"
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def forward(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        at = time.monotonic() - self.started
        conn = http.client.HTTPConnection(*self.upstream, timeout=120)
        try:
            # skip_host: the provider's own Host header goes on unchanged (it is signed)
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                conn.putheader(name, value)
            conn.endheaders(body or None)
            answer = conn.getresponse()
            status, reply_headers, reply = answer.status, answer.getheaders(), answer.read()
        finally:
            conn.close()
        path, _, query = target.partition("?")
        with self.lock:
            self.exchanges.append(Exchange(at_s=round(at, 3), step=self.step, method=method, path=path, query=query,
                                           body=_json_or_none(body), status=status, response=_json_or_none(reply)))
        return status, reply_headers, reply


def _handler(proxy: RecordingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet: the recording is the log
            pass

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, reply = proxy.forward(self.command, self.path, list(self.headers.items()), body)
            self.send_response_only(status)
            for name, value in headers:
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

    return Handler


@contextlib.contextmanager
def recording_proxy(upstream_url: str) -> Iterator[RecordingProxy]:
    parsed = urllib.parse.urlsplit(upstream_url)
    proxy = RecordingProxy(url="", upstream=(parsed.hostname or "127.0.0.1", parsed.port or 80))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()


def provider_config() -> Path | None:
    """The Terraform CLI config that installs the built provider from its cache (scripts/terraform_provider.sh);
    None when it is not built (the script is never run here to build it: that takes half an hour)."""
    if subprocess.run([str(PROVIDER_SCRIPT), "--check"], capture_output=True).returncode != 0:
        return None
    out = subprocess.run([str(PROVIDER_SCRIPT), "--print"], capture_output=True, text=True, check=True).stdout
    return Path(out.strip())


def provider_version() -> str:
    for line in (REPO / "scripts" / "versions.env").read_text().splitlines():
        if line.startswith("TERRAFORM_HUAWEICLOUD_VERSION="):
            return line.split("=", 1)[1].strip()
    raise LookupError("scripts/versions.env pins no TERRAFORM_HUAWEICLOUD_VERSION")


def provider_block(endpoint: str, project_id: str) -> str:
    """The provider pointed at the local ModelArts: ModelArts and IAM at `endpoint`, the project given (so it asks
    IAM for none), no website probe of BSS. The AK/SK come from HW_ACCESS_KEY / HW_SECRET_KEY (Terraform.env)."""
    return f'''terraform {{
  required_providers {{
    huaweicloud = {{
      source  = "huaweicloud/huaweicloud"
      version = "{provider_version()}"
    }}
  }}
}}

provider "huaweicloud" {{
  region                  = "{REGION}"
  project_id              = "{project_id}"
  auth_url                = "{endpoint}/v3"
  skip_check_website_type = true
  skip_check_upgrade      = true
  endpoints = {{
    modelarts = "{endpoint}/"
    iam       = "{endpoint}/"
  }}
}}
'''


def _hcl_map(values: dict[str, str]) -> str:
    return "{ " + ", ".join(f'"{k}" = "{v}"' for k, v in values.items()) + " }"


def training_jobs_config(count: int, description: str, tags: dict[str, str]) -> str:
    """`count` training jobs of one shape (code in OBS, a public CPU flavor, one parameter and output), tagged."""
    return f'''
resource "huaweicloud_modelarts_training_job" "job" {{
  count = {count}
  kind  = "job"

  metadata {{
    name        = "tf-job-${{count.index}}"
    description = "{description}"
  }}

  algorithm {{
    code_dir  = "/tf-bucket/code/"
    boot_file = "/tf-bucket/code/train.py"
    engine {{
      engine_id = "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"
    }}
    parameters {{
      name  = "lr"
      value = "0.1"
    }}
    outputs {{
      name = "train_url"
      remote {{
        obs {{
          obs_url = "/tf-bucket/out/"
        }}
      }}
    }}
  }}

  spec {{
    resource {{
      flavor_id  = "modelarts.vm.cpu.8u"
      node_count = 1
    }}
  }}

  tags = {_hcl_map(tags)}
}}
'''


def networks_config(count: int, peers: int) -> str:
    """`count` ModelArts networks, each connected by peering to `peers` VPC subnets (made-up ids)."""
    peer = """
  peer_connections {{
    vpc_id    = "5b7a3c1e-0d2f-4e6a-9b8c-7d6e5f4a3b2{i}"
    subnet_id = "9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6{i}"
  }}"""
    return f'''
resource "huaweicloud_modelarts_network" "net" {{
  count = {count}
  name  = "tf-net-${{count.index}}"
  cidr  = "172.16.0.0/12"
{"".join(peer.format(i=i) for i in range(peers))}
}}
'''


def pools_config(count: int, description: str, nodes: int) -> str:
    """`count` dedicated pools for training of `nodes` CPU nodes each, on one network of their own."""
    return f'''
resource "huaweicloud_modelarts_network" "pools" {{
  name = "tf-pools-net"
  cidr = "172.16.0.0/12"
}}

resource "huaweicloud_modelarts_resource_pool" "pool" {{
  count       = {count}
  name        = "tf-pool-${{count.index}}"
  scope       = ["Train"]
  network_id  = huaweicloud_modelarts_network.pools.id
  description = "{description}"

  resources {{
    flavor_id = "modelarts.vm.cpu.8u32g"
    count     = {nodes}
  }}
}}
'''


@dataclass
class Step:
    command: str
    seconds: float
    rc: int
    output: str


class Terraform:
    """terraform in `workdir`, offline: the provider from its cache only, no checkpoint calls, credentials in env."""

    def __init__(self, workdir: Path, cli_config: Path, access_key: str, secret_key: str) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "TF_CLI_CONFIG_FILE": str(cli_config), "TF_IN_AUTOMATION": "1",
                    "CHECKPOINT_DISABLE": "1", "HW_ACCESS_KEY": access_key, "HW_SECRET_KEY": secret_key}
        for name in ("HW_PROJECT_ID", "HW_REGION_NAME", "HW_SECURITY_TOKEN", "TF_LOG", "TF_PLUGIN_CACHE_DIR"):
            self.env.pop(name, None)

    def write(self, text: str) -> None:
        (self.workdir / "main.tf").write_text(text)

    def run(self, *args: str, timeout: float = 1800) -> Step:
        start = time.monotonic()
        done = subprocess.run(["terraform", *args, "-no-color"], cwd=self.workdir, env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        return Step(" ".join(args), round(time.monotonic() - start, 1), done.returncode, done.stdout + done.stderr)

    def init(self) -> Step:
        return self.run("init", "-input=false")

    def apply(self) -> Step:
        return self.run("apply", "-auto-approve", "-input=false")

    def plan(self) -> Step:
        """`plan -detailed-exitcode`: rc 0 no changes, 2 changes, 1 an error."""
        return self.run("plan", "-detailed-exitcode", "-input=false")

    def destroy(self) -> Step:
        return self.run("destroy", "-auto-approve", "-input=false")


# The local ModelArts of every recording and of its replay: phases long enough that no poll of the provider
# (10 s after a create, then every 20 s) lands near a change of phase, so the replay, which moves the emulator's
# clock to each recorded request's time, meets the same phases. A job runs for an hour: it is Running throughout.
EMULATOR_FLAGS: dict[str, Any] = {"phase_seconds": 3, "run_seconds": 3600, "delete_seconds": 3,
                                  "network_seconds": 3, "pool_seconds": 3}


@dataclass
class Scenario:
    """What terraform applies first, and the in-place update applied after it (jobs: description and tags;
    networks: peer connections; pools: description and node count)."""

    created: Any  # (count) -> resources' HCL
    updated: Any


SCENARIOS: dict[str, Scenario] = {
    "training_jobs": Scenario(
        created=lambda n: training_jobs_config(n, "created by terraform", {"team": "vision", "stage": "dev"}),
        updated=lambda n: training_jobs_config(n, "updated by terraform", {"team": "speech", "owner": "ml-platform"})),
    # a network's only in-place change: its peer connections
    "networks": Scenario(created=lambda n: networks_config(n, 0), updated=lambda n: networks_config(n, 1)),
    "resource_pools": Scenario(created=lambda n: pools_config(n, "created by terraform", 1),
                               updated=lambda n: pools_config(n, "updated by terraform", 2)),
}


@dataclass
class ScenarioRun:
    steps: list[Step] = field(default_factory=list)
    ok: bool = True


def run_scenario(name: str, count: int, workdir: Path, cli_config: Path, proxy: RecordingProxy, emu: Any) -> ScenarioRun:
    """init, apply, plan (no changes), the update applied, plan (no changes), destroy: each step recorded under its
    name (proxy.step). Stops at the first command that fails or plan that finds changes (run.ok False)."""
    scenario, run = SCENARIOS[name], ScenarioRun()
    form = Terraform(workdir, cli_config, emu.access_key, emu.secret_key)
    head = provider_block(proxy.url, emu.project_id)
    steps = [("init", scenario.created, Terraform.init, 0), ("apply", scenario.created, Terraform.apply, 0),
             ("plan", scenario.created, Terraform.plan, 0), ("update", scenario.updated, Terraform.apply, 0),
             ("plan-after-update", scenario.updated, Terraform.plan, 0),
             ("destroy", scenario.updated, Terraform.destroy, 0)]
    for label, config, command, expected_rc in steps:
        form.write(head + config(count))
        proxy.step = label
        step = command(form)
        run.steps.append(step)
        if step.rc != expected_rc:
            run.ok = False
            break
    return run


def fixture(name: str, run: ScenarioRun, exchanges: list[Exchange], emu: Any, terraform_version: str) -> dict[str, Any]:
    """The recording as tests/fixtures/terraform keeps it: the project id a placeholder, and never a credential
    (the proxy keeps no header; this refuses to write a body that would carry one)."""
    text = json.dumps([e.model_dump() for e in sorted(exchanges, key=lambda e: e.at_s)])
    for secret in (emu.access_key, emu.secret_key):
        if secret in text:
            raise ValueError(f"a credential is in the recorded bodies of {name}")
    return {
        "recorded_with": f"terraform {terraform_version}, registry.terraform.io/huaweicloud/huaweicloud "
                         f"{provider_version()} (scripts/terraform_provider.sh), scripts/terraform_record.py",
        "emulator_flags": EMULATOR_FLAGS,
        "steps": [{"command": s.command, "rc": s.rc} for s in run.steps],
        "exchanges": json.loads(text.replace(emu.project_id, PROJECT_PLACEHOLDER)),
    }
