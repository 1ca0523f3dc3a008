"""A stack's state and config read straight from where Pulumi keeps them, without starting the pulumi CLI.

Each start of the CLI costs 0.2-0.5 s (Go start-up, the stack's secrets manager; a passphrase's key derivation
alone is most of `config --show-secrets`), and `logs`, `results`, `status` and `outputs` asked it two to four
times. What they read is plain data:

- the stack's latest checkpoint in its backend: `<backend>/.pulumi/stacks/<project>/<stack>.json` (or `.json.gz`,
  the newer of the two when both are there, as Pulumi picks it; the older layout without the project folder
  when the backend's `meta.yaml` says version 0), in a file backend or in an OBS bucket (`s3://` with an
  `endpoint`, docs/team-state.md). `stack export` is its `latest` deployment; `stack output` the root stack
  resource's outputs, each secret shown as `[secret]` as the CLI shows it;
- the stack's config file (`<stackConfigDir>/Pulumi.<stack>.yaml`), when nothing else adds to it (a project-level
  `config:` in Pulumi.yaml, an ESC `environment:`), its `secure:` values decrypted as the passphrase secrets
  manager does (passphrase.py) when the passphrase is in PULUMI_CONFIG_PASSPHRASE.

Anything else returns None and the caller asks the CLI: another backend (Pulumi Cloud, a secret of another
secrets provider or without the passphrase at hand, an asset or resource reference in an output, a checkpoint of another
version). A stack that is not in a backend read here is a one-line error naming the backend (no query, no
credentials). Nothing read here is printed as it is; secrets stay encrypted.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

# A special value in a state (secret, asset, archive, resource reference) carries SIG_KEY; a secret's is SECRET_SIG.
from ..core.secret_leaves import SECRET_SIG, SIG_KEY
from .errors import LogsError

CHECKPOINT_VERSION = 3  # the checkpoint format the pinned engine writes (`stack export` prints it as "version")
STACK_TYPE = "pulumi:pulumi:Stack"
SECRET_SHOWN = "[secret]"  # what `pulumi stack output --json` prints for a secret

_CLI: Any = None  # "ask the CLI" (None): the data cannot be read here


# --- the shapes read (only the fields used; the rest is kept and ignored) -----------------------------------

class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class CheckpointBody(_Loose):
    stack: Optional[str] = None
    latest: Optional[dict[str, Any]] = None  # the deployment `stack export` prints; None before the first update


class CheckpointFile(_Loose):
    """`<stack>.json` of a self-managed backend: `{"version": 3, "checkpoint": {"stack": ..., "latest": ...}}`."""

    version: int
    checkpoint: CheckpointBody


class ProjectFile(_Loose):
    """What of Pulumi.yaml says where the stack's config is and whether anything else adds to it."""

    name: str
    stackConfigDir: Optional[str] = None
    config: Optional[Any] = None  # project-level config (defaults, values): the CLI merges it in


class StackConfigFile(_Loose):
    """`Pulumi.<stack>.yaml`: its config, and what would make the CLI's answer differ from the file's."""

    config: Optional[dict[str, Any]] = None
    environment: Optional[Any] = None  # ESC environments: values from elsewhere
    secretsprovider: Optional[str] = None  # absent or "passphrase": the passphrase manager (passphrase.py)
    encryptionsalt: Optional[str] = None


# --- the backend ---------------------------------------------------------------------------------------------

def shown_url(url: str) -> str:
    """The backend's URL as a line may show it: no query (options, an endpoint's keys), no user:password@."""
    return re.sub(r"^([A-Za-z0-9+.-]+://)[^/@]*@", r"\1", url.split("?", 1)[0])


def backend_url(env: Mapping[str, str]) -> str | None:
    """The backend in use: PULUMI_BACKEND_URL, else the one `pulumi login` chose (PULUMI_HOME's credentials.json),
    else None (Pulumi Cloud, the CLI's default)."""
    if env.get("PULUMI_BACKEND_URL"):
        return env["PULUMI_BACKEND_URL"]
    home = Path(env.get("PULUMI_HOME") or Path(env.get("HOME") or Path.home()) / ".pulumi")
    try:
        current = json.loads((home / "credentials.json").read_text()).get("current")
    except (OSError, ValueError, AttributeError):
        return None
    return current if isinstance(current, str) and current else None


@dataclass(frozen=True)
class StackName:
    """`name`, `org/name` or `org/project/name`, the project from Pulumi.yaml where not given."""

    project: str
    name: str

    @classmethod
    def parse(cls, stack: str, project: str) -> StackName:
        parts = stack.split("/")
        return cls(parts[1] if len(parts) == 3 else project, parts[-1])


class _Store:
    """The objects of a self-managed backend: a directory, or a bucket behind the S3 API (OBS)."""

    def read(self, key: str) -> bytes | None:  # pragma: no cover - interface
        raise NotImplementedError

    def newer(self, a: str, b: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class _Directory(_Store):
    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, key: str) -> bytes | None:
        try:
            return (self.root / key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            raise LogsError(f"cannot read {self.root / key}: {err.strerror}") from None

    def newer(self, a: str, b: str) -> str:
        return a if (self.root / a).stat().st_mtime_ns >= (self.root / b).stat().st_mtime_ns else b


class _Bucket(_Store):
    """An OBS bucket through the project's OBS client, signed as the CLI signs (the AWS SDK's variables)."""

    def __init__(self, client: Any, bucket: str, prefix: str) -> None:
        self.client, self.bucket, self.prefix = client, bucket, prefix

    def read(self, key: str) -> bytes | None:
        from ..obs.errors import ObsError  # noqa: PLC0415 - boto3 only for a backend in OBS

        try:
            return self.client.get_bytes(self.bucket, self.prefix + key)
        except ObsError as err:
            raise LogsError(str(err)) from None

    def newer(self, a: str, b: str) -> str:
        return a  # both written by different CLIs at once: rare; the gzipped one is what a gzip setting writes


def _flag(query: dict[str, list[str]], *names: str) -> bool:
    return any((query.get(n) or [""])[0].lower() == "true" for n in names)


def _store(url: str, env: Mapping[str, str]) -> _Store | None:
    """The backend's objects, when read here: a `file://` directory, or an `s3://` bucket with an endpoint (OBS)
    and the AWS SDK's key variables. None: the CLI reads it (Pulumi Cloud, another cloud's bucket, a profile)."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return _Directory(Path(os.path.expanduser(parts.netloc + parts.path)))
    if parts.scheme != "s3":
        return None
    query = parse_qs(parts.query)
    endpoint = (query.get("endpoint") or [""])[0]
    ak, sk = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
    if not endpoint or not ak or not sk:
        return None
    if "://" not in endpoint:
        endpoint = ("http://" if _flag(query, "disable_https", "disableSSL") else "https://") + endpoint
    from pydantic import SecretStr  # noqa: PLC0415

    from ..obs.client import ObsClient  # noqa: PLC0415 - boto3 only for a backend in OBS
    from ..obs.settings import ObsSettings  # noqa: PLC0415

    token = env.get("AWS_SESSION_TOKEN")
    settings = ObsSettings(
        region=(query.get("region") or [""])[0] or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "",
        endpoint=endpoint, access_key=ak, secret_key=SecretStr(sk),
        security_token=SecretStr(token) if token else None, max_attempts=2,
        addressing_style="path" if _flag(query, "s3ForcePathStyle", "use_path_style") else "virtual")
    prefix = parts.path.strip("/")
    return _Bucket(ObsClient(settings), parts.netloc, prefix + "/" if prefix else "")


def _layout_version(store: _Store) -> int:
    """The backend's layout (`.pulumi/meta.yaml`): 1 keeps stacks under their project's folder; 0 (no file in a
    backend made before 3.61) does not."""
    meta = store.read(".pulumi/meta.yaml")
    found = re.search(rb"(?m)^version:\s*(\d+)", meta or b"")
    return int(found.group(1)) if found else 0


def _checkpoint(store: _Store, stack: StackName) -> bytes | None:
    base = (f".pulumi/stacks/{stack.project}/{stack.name}" if _layout_version(store) >= 1
            else f".pulumi/stacks/{stack.name}")
    plain, zipped = store.read(base + ".json"), store.read(base + ".json.gz")
    if plain is not None and zipped is not None:
        return plain if store.newer(base + ".json", base + ".json.gz") == base + ".json" else gzip.decompress(zipped)
    return gzip.decompress(zipped) if zipped is not None else plain


# --- the project and its stack config file ---------------------------------------------------------------------

def _yaml(path: Path) -> Any:
    import yaml  # noqa: PLC0415

    try:
        return yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError):
        return None


def project_file(cwd: Path) -> ProjectFile | None:
    doc = _yaml(cwd / "Pulumi.yaml")
    try:
        return ProjectFile.model_validate(doc) if isinstance(doc, dict) else None
    except ValidationError:
        return None


@dataclass(frozen=True)
class StackState:
    """Where one stack's state and config are, and what can be read of them without the CLI."""

    cwd: Path
    stack: str
    env: Mapping[str, str]

    def _project(self) -> ProjectFile | None:
        return project_file(self.cwd)

    def deployment(self) -> dict[str, Any] | None:
        """The stack's latest deployment as `pulumi stack export` prints it under "deployment" ({} before its first
        update), or None when the CLI must read it. A stack that is not in a backend read here: LogsError."""
        url, project = backend_url(self.env), self._project()
        store = _store(url, self.env) if url and project is not None else None
        if store is None or url is None or project is None:
            return _CLI
        try:
            raw = _checkpoint(store, StackName.parse(self.stack, project.name))
        except (OSError, EOFError, gzip.BadGzipFile):
            return _CLI  # torn or unreadable here: the CLI says what is wrong
        if raw is None:
            raise LogsError(f"no stack {self.stack} in the backend in use ({shown_url(url)}): `pulumi stack ls` "
                            "lists its stacks; PULUMI_BACKEND_URL chooses the backend")
        try:
            doc = CheckpointFile.model_validate_json(raw)
        except ValidationError:
            return _CLI
        if doc.version != CHECKPOINT_VERSION:
            return _CLI
        return doc.checkpoint.latest or {}

    def outputs(self) -> dict[str, Any] | None:
        """The stack's outputs as `pulumi stack output --json` prints them, or None when the CLI must."""
        deployment = self.deployment()
        if deployment is None:
            return _CLI
        root = next((r for r in deployment.get("resources") or [] if isinstance(r, dict)
                     and r.get("type") == STACK_TYPE), {})
        return secrets_hidden(root.get("outputs") or {})

    def config(self, show_secrets: bool = False) -> dict[str, Any] | None:
        """`pulumi config --json [--show-secrets]` of the stack, when its file alone holds it and its secrets, if
        any, are shown and the passphrase decrypts them (passphrase.py); None when the CLI must read it."""
        project = self._project()
        if project is None or project.config:
            return _CLI
        name = self.stack.rsplit("/", 1)[-1]
        doc = _yaml(self.cwd / (project.stackConfigDir or ".") / f"Pulumi.{name}.yaml")
        if doc is None or not isinstance(doc, dict):
            return _CLI
        try:
            file = StackConfigFile.model_validate(doc)
        except ValidationError:
            return _CLI
        if file.environment:
            return _CLI
        config = file.config or {}
        secret = {k for k, v in config.items() if _has_secure(v)}
        if secret:
            if not show_secrets or file.secretsprovider not in (None, "passphrase"):
                return _CLI
            from .passphrase import crypter, revealed  # noqa: PLC0415 - only for a config with secrets

            decrypt = crypter(file.encryptionsalt, self.env)
            if decrypt is None:
                return _CLI
            try:
                config = {k: revealed(v, decrypt) if k in secret else v for k, v in config.items()}
            except ValueError:
                return _CLI
        return {_full_key(k, project.name): _entry(v, k in secret) for k, v in config.items()}


def _has_secure(node: Any) -> bool:
    if isinstance(node, dict):
        return "secure" in node and len(node) == 1 or any(_has_secure(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_secure(v) for v in node)
    return False


def _full_key(key: str, project: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _entry(value: Any, secret: bool = False) -> dict[str, Any]:
    """One key as `pulumi config --json` prints it: `value` a string (a map or list as JSON, beside it as
    `objectValue`), `secret` when the file marks it or a part of it `secure:`."""
    if isinstance(value, (dict, list)):
        return {"value": json.dumps(value, separators=(",", ":"), sort_keys=True), "objectValue": value,
                "secret": secret}
    return {"value": _scalar(value), "secret": secret}


def secrets_hidden(value: Any) -> Any:
    """A state value as `pulumi stack output --json` shows it: a secret at any depth is "[secret]". None for a
    value holding another special object (an asset, a resource reference): the CLI shows those."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig is not None:
            return SECRET_SHOWN if sig == SECRET_SIG else _CLI
        out = {k: secrets_hidden(v) for k, v in value.items()}
        return _CLI if any(v is None and value[k] is not None for k, v in out.items()) else out
    if isinstance(value, list):
        items = [secrets_hidden(v) for v in value]
        return _CLI if any(a is None and b is not None for a, b in zip(items, value)) else items
    return value


__all__ = ["SECRET_SIG", "SIG_KEY", "CheckpointFile", "StackState", "backend_url", "secrets_hidden", "shown_url"]
