"""Run the real Pulumi CLI against throwaway projects in temp directories.

Every test stack gets its own file backend and passphrase, and runs offline: no update checks, no
plugin downloads. The engine is the one `scripts/install_engine.sh` built (or a pinned `pulumi` on PATH).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# A state value as `pulumi stack output --json` shows it (secrets "[secret]"), read as the command-line tools read it.
from modelarts_provider.cli.stack_state import secrets_hidden as _secrets_hidden

REPO_ROOT = Path(__file__).resolve().parents[1]
PULUMI_VERSION = next(
    line.split("=", 1)[1].strip()
    for line in (REPO_ROOT / "scripts" / "versions.env").read_text().splitlines()
    if line.startswith("PULUMI_VERSION=")
)
TEST_PASSPHRASE = "test-passphrase"
STACK_TYPE = "pulumi:pulumi:Stack"
CHECKPOINT_VERSION = 3
# (project, stack, passphrase) -> a directory holding the backend and settings `pulumi stack init` made
# (Stack.init); ((passphrase, salt), value) -> the ciphertext `pulumi config set --secret` gave the value
# (Stack.set_all_config). Held per process, and on disk under $MODELARTS_TEST_SHARED_CACHE when that is set
# (tests/conftest.py: one folder for a test session's workers), so each is made by the CLI once per session
# rather than once per worker.
_TEMPLATES: dict[tuple[str, str, str], Path] = {}
_CIPHERTEXTS: dict[tuple[tuple[str, object], str], str] = {}
SHARED_CACHE_ENV = "MODELARTS_TEST_SHARED_CACHE"


def _shared_entry(kind: str, key: object) -> Path | None:
    """Where the session's workers keep `key`'s entry of `kind`, or None outside such a session."""
    root = os.environ.get(SHARED_CACHE_ENV)
    if not root:
        return None
    digest = hashlib.sha256(json.dumps(key, default=str).encode()).hexdigest()[:24]
    return Path(root) / kind / digest


def _publish(made: Path, entry: Path | None) -> Path:
    """`made` (a file or folder this process wrote beside `entry`) as the shared `entry`, by one rename. A worker
    that lost the race to another keeps using its own (the stack it just made has that salt, so its ciphertexts
    stay good for the stacks it copies from it); the other workers read the winner's."""
    if entry is None:
        return made
    try:
        os.rename(made, entry)
    except OSError:  # another worker's is there
        return made
    return entry

# Set per test by tests/conftest.py: False in a test not marked `engine`, where starting Pulumi is a bug
# of the test's marking (it would slow the fast tier), reported as such.
engine_allowed = True


def require_engine(what: str) -> None:
    if not engine_allowed:
        raise AssertionError(f"{what} runs the Pulumi engine, but this test is not marked engine: request the "
                             "pulumi_engine fixture (or mark it pytest.mark.engine)")


def engine_dir() -> Path:
    """Mirrors scripts/env.sh: the versioned engine cache outside the repository."""
    cache = os.environ.get("MODELARTS_ENGINE_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "modelarts-pulumi"
    )
    return Path(cache) / f"engine-v{PULUMI_VERSION}"


def engine_bin_dir() -> Path:
    return engine_dir() / "bin"


# `metadata=skip`: the file backend writes no `.attrs` sidecar beside each checkpoint. The sidecar is written in
# place (not renamed into place as the checkpoint is), so a SIGKILL during that write left it empty and every
# later command failed with `failed to load checkpoint: EOF`. Without it a killed `up` leaves the checkpoint
# before or after its write, never torn. scripts/env.sh gives ./dev's backend the same option.
FILE_BACKEND_OPTIONS = "metadata=skip"


def file_backend_url(directory: Path) -> str:
    return f"file://{directory}?{FILE_BACKEND_OPTIONS}"


def file_backend_dir(url: str) -> Path:
    """The directory of a `file://` backend URL (its query options dropped)."""
    return Path(url.removeprefix("file://").partition("?")[0])


def pulumi_home(base: Path) -> Path:
    """A Pulumi home of `base`'s own (`base/pulumi-home`) whose plugins/ is the engine's (the random plugin we
    built). Not the engine's home itself: the CLI writes a log of every command into $PULUMI_HOME/logs and, at
    every start, lists and stats each log there to rotate them (7 days kept). A home shared by every test run
    held 35,000 logs after a day, and they cost each CLI start 0.3 CPU-s (`pulumi version`: 0.48 against 0.20
    CPU-s with an empty logs/)."""
    home = base / "pulumi-home"
    home.mkdir(parents=True, exist_ok=True)
    # And no logs at all: a file where the CLI would make its logs/ folder. The CLI then says "automatic logging
    # unavailable" at debug level only and runs as before, without writing every engine debug line (gRPC calls
    # with their properties) as gzipped JSON: 0.02-0.06 CPU-s less per command, 5-12% of the CLI's own. No test
    # reads these logs; a failing command's output is in the test's report.
    logs = home / "logs"
    if not logs.exists():
        logs.touch()
    plugins = home / "plugins"
    if not plugins.is_symlink():
        plugins.symlink_to(engine_dir() / "home" / "plugins", target_is_directory=True)
    return home


def pulumi_env(base: Path) -> dict[str, str]:
    """An environment for one isolated, offline Pulumi backend under `base`."""
    venv_bin = REPO_ROOT / ".venv" / "bin"
    path = os.pathsep.join([str(engine_bin_dir()), str(venv_bin), os.environ.get("PATH", "")])
    home = pulumi_home(base)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "HW_", "OS_"))}
    env.update(
        PATH=path,
        PULUMI_HOME=str(home),
        PULUMI_BACKEND_URL=file_backend_url(base / "backend"),
        PULUMI_CONFIG_PASSPHRASE=TEST_PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        PULUMI_SKIP_CONFIRMATIONS="true",
        PULUMI_RUNTIME_VIRTUALENV=str(REPO_ROOT / ".venv"),
        PYTHONUNBUFFERED="1",
        # The language host runs pip for `pulumi install`; offline, pip's self version check is waste.
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        # The engine's Go processes collect garbage a quarter as often: ~10% less CPU per CLI start, the same
        # behaviour (a test command lives seconds and holds ~100 MB).
        GOGC="400",
    )
    (base / "backend").mkdir(parents=True, exist_ok=True)
    return env


class PulumiError(AssertionError):
    """A pulumi command failed; carries its full output for the assertion message."""


@dataclass
class Stack:
    workdir: Path
    name: str
    env: dict[str, str]
    history: list[subprocess.CompletedProcess[str]] = field(default_factory=list)

    def run(self, *args: str, check: bool = True, timeout: float = 600,
            stack_flag: bool = True) -> subprocess.CompletedProcess[str]:
        require_engine(f"`pulumi {args[0]}`")
        cmd = ["pulumi", *args, "--non-interactive"]
        if stack_flag:
            cmd += ["--stack", self.name]
        proc = subprocess.run(cmd, cwd=self.workdir, env=self.env, text=True,
                              capture_output=True, timeout=timeout)
        self.history.append(proc)
        if check and proc.returncode != 0:
            raise PulumiError(f"`{' '.join(cmd)}` exited {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
        return proc

    def up(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("up", "--yes", "--skip-preview", *extra, check=check)

    def preview(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("preview", *extra, check=check)

    def refresh(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("refresh", "--yes", "--skip-preview", *extra, check=check)

    def destroy(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("destroy", "--yes", "--skip-preview", *extra, check=check)

    # Reads: with a file backend, from its checkpoint (what the engine last wrote, secrets encrypted) rather than
    # through the CLI, whose every start costs about 0.3 CPU-s (Go start-up, config, secrets manager): the same
    # data (tests/smoke/test_engine_smoke.py compares both ways). Other backends, and secrets shown, go through it.

    def outputs(self, show_secrets: bool = False) -> dict:
        """The stack's outputs as `pulumi stack output --json [--show-secrets]` prints them."""
        deployment = None if show_secrets else self._deployment()
        if deployment is not None:
            root = next((r for r in deployment.get("resources") or [] if r.get("type") == STACK_TYPE), {})
            shown = _secrets_hidden(root.get("outputs") or {})
            if shown is not None:
                return shown
        return self.cli_outputs(show_secrets)

    def cli_outputs(self, show_secrets: bool = False) -> dict:
        args = ["stack", "output", "--json"] + (["--show-secrets"] if show_secrets else [])
        return json.loads(self.run(*args).stdout or "{}")

    def export(self) -> dict:
        """The stack's deployment as `pulumi stack export` prints it (secrets encrypted)."""
        deployment = self._deployment()
        if deployment is not None:
            return {"version": CHECKPOINT_VERSION, "deployment": deployment}
        return self.cli_export()

    def cli_export(self) -> dict:
        return json.loads(self.run("stack", "export").stdout)

    def resources(self) -> list[dict]:
        """The resources as the engine last wrote them."""
        return self.export().get("deployment", {}).get("resources", []) or []

    def _deployment(self) -> dict | None:
        checkpoint = self._checkpoint_path()
        if checkpoint is None or not checkpoint.exists():
            return None
        doc = json.loads(checkpoint.read_text())
        if doc.get("version") != CHECKPOINT_VERSION:
            return None
        return doc["checkpoint"].get("latest") or {}

    def _checkpoint_path(self) -> Path | None:
        backend = self.env.get("PULUMI_BACKEND_URL", "")
        if not backend.startswith("file://") or "/" in self.name:
            return None
        project = self._project().get("name")
        return file_backend_dir(backend) / ".pulumi" / "stacks" / project / f"{self.name}.json" if project else None

    def set_config(self, key: str, value: str, secret: bool = False) -> None:
        """`pulumi config set KEY VALUE --plaintext` (or `--secret`): written as set_all_config writes."""
        self.set_all_config({} if secret else {key: value}, {key: value} if secret else {})

    def set_all_config(self, plain: dict[str, str], secrets: dict[str, str]) -> None:
        """What `pulumi config set-all --plaintext K=V... --secret K=V...` sets, as strings under the project's
        namespace where a key has none. Written into the stack's settings file; a secret as the ciphertext the
        passphrase secrets manager gave it, which holds for every stack with the same salt (a stack made by
        `Stack.init` has the template's): only a secret value not encrypted before starts the CLI."""
        secrets = {k: str(v) for k, v in secrets.items()}
        salt = (self.env.get("PULUMI_CONFIG_PASSPHRASE", ""), self._settings().get("encryptionsalt"))
        new = {k: v for k, v in secrets.items() if _ciphertext(salt, v) is None}
        if new:
            self.run("config", "set-all", *[arg for k, v in new.items() for arg in ("--secret", f"{k}={v}")])
            held = self._settings().get("config") or {}
            for k, v in new.items():
                _keep_ciphertext(salt, v, held[self._config_key(k)]["secure"])
        values: dict[str, object] = {self._config_key(k): str(v) for k, v in plain.items()}
        values.update({self._config_key(k): {"secure": _CIPHERTEXTS[(salt, v)]} for k, v in secrets.items()})
        if values:
            self.write_config(values)

    def _config_key(self, key: str) -> str:
        return key if ":" in key else f"{self._project().get('name')}:{key}"

    def _project(self) -> dict:
        manifest = self.workdir / "Pulumi.yaml"
        return (yaml.safe_load(manifest.read_text()) if manifest.exists() else None) or {}

    def settings_path(self) -> Path:
        """Pulumi.<stack>.yaml, where the engine keeps it: in the project's `stackConfigDir` when it names one."""
        return self.workdir / self._project().get("stackConfigDir", ".") / f"Pulumi.{self.name}.yaml"

    def _settings(self) -> dict:
        path = self.settings_path()
        return (yaml.safe_load(path.read_text()) if path.exists() else None) or {}

    def write_config(self, values: dict[str, object]) -> None:
        """Config (also objects and lists, which `pulumi config set` takes only as `--path` leaves) straight into
        the stack's settings file. Keeps the encryption salt and existing secrets."""
        doc = self._settings()
        doc.setdefault("config", {}).update(values)
        self.settings_path().write_text(yaml.safe_dump(doc, sort_keys=False))

    def init(self) -> None:
        """`pulumi stack init`. The first stack of a project and name in this process is made by the CLI; a later
        one in a backend of its own is a copy of what that made (its checkpoint, its settings with the
        passphrase's salt), which is what the CLI would make (tests/smoke compares): a CLI start costs ~0.4 CPU-s."""
        url = self.env.get("PULUMI_BACKEND_URL", "")
        backend = file_backend_dir(url) if url.startswith("file://") else None
        key = (str(self._project().get("name")), self.name, self.env.get("PULUMI_CONFIG_PASSPHRASE", ""))
        template = _TEMPLATES.get(key)
        shared = _shared_entry("stack-templates", key)
        if template is None and shared is not None and shared.is_dir():
            template = _TEMPLATES[key] = shared
        if backend is None or (backend / ".pulumi" / "stacks").exists() or self.settings_path().exists():
            self.run("stack", "init", self.name, stack_flag=False)  # not a fresh file backend: as it is
        elif template is None:
            self.run("stack", "init", self.name, stack_flag=False)
            if shared is not None:
                shared.parent.mkdir(parents=True, exist_ok=True)
            made = Path(tempfile.mkdtemp(prefix="stack-template-", dir=shared.parent if shared else None))
            if shared is None:  # outside a test session (a benchmark, a script): this process's own, gone with it
                atexit.register(shutil.rmtree, made, ignore_errors=True)
            shutil.copytree(backend / ".pulumi", made / ".pulumi")
            shutil.copy(self.settings_path(), made / "settings.yaml")
            _TEMPLATES[key] = _publish(made, shared)
        else:
            shutil.copytree(template / ".pulumi", backend / ".pulumi")
            self.settings_path().parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(template / "settings.yaml", self.settings_path())


def _ciphertext(salt: tuple[str, object], value: str) -> str | None:
    """The ciphertext a passphrase and salt gave `value` before, in this process or another of the session."""
    held = _CIPHERTEXTS.get((salt, value))
    if held is None:  # the disk only for what this process has not seen
        entry = _shared_entry("ciphertexts", [salt, value])
        if entry is not None and entry.is_file():
            held = _CIPHERTEXTS[(salt, value)] = entry.read_text()
    return held


def _keep_ciphertext(salt: tuple[str, object], value: str, ciphertext: str) -> None:
    _CIPHERTEXTS[(salt, value)] = ciphertext
    entry = _shared_entry("ciphertexts", [salt, value])
    if entry is not None and not entry.exists():
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, made = tempfile.mkstemp(dir=entry.parent)
        with os.fdopen(fd, "w") as f:
            f.write(ciphertext)
        _publish(Path(made), entry)


def new_stack(base: Path, program: str | Path | None = None, *, stack: str = "test",
              project: str = "test-project", config: dict[str, str] | None = None,
              secrets: dict[str, str] | None = None) -> Stack:
    """A fresh project in `base/project` with one initialised stack.

    `program`: Python source for `__main__.py`, or a directory whose `__main__.py` (and `Pulumi.yaml`'s
    project name) is used, e.g. the repository itself. Config values are set plaintext, `secrets` as secrets.
    """
    workdir = base / "project"
    workdir.mkdir(parents=True, exist_ok=True)
    if isinstance(program, Path):
        shutil.copy(program / "__main__.py", workdir / "__main__.py")
        for line in (program / "Pulumi.yaml").read_text().splitlines():
            if line.startswith("name:"):
                project = line.split(":", 1)[1].strip()
    elif isinstance(program, str):
        (workdir / "__main__.py").write_text(program)
    (workdir / "Pulumi.yaml").write_text(
        f"name: {project}\nruntime:\n  name: python\n  options:\n    virtualenv: {REPO_ROOT / '.venv'}\n"
    )
    st = Stack(workdir=workdir, name=stack, env=pulumi_env(base))
    st.init()
    st.set_all_config(config or {}, secrets or {})
    return st
