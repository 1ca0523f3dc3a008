"""Run the real Pulumi CLI against throwaway projects in temp directories.

Every test stack gets its own file backend and passphrase, and runs offline: no update checks, no
plugin downloads. The engine is the one `scripts/install_engine.sh` built (or a pinned `pulumi` on PATH).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
PULUMI_VERSION = next(
    line.split("=", 1)[1].strip()
    for line in (REPO_ROOT / "scripts" / "versions.env").read_text().splitlines()
    if line.startswith("PULUMI_VERSION=")
)
TEST_PASSPHRASE = "test-passphrase"

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


def pulumi_env(base: Path) -> dict[str, str]:
    """An environment for one isolated, offline Pulumi backend under `base`."""
    venv_bin = REPO_ROOT / ".venv" / "bin"
    path = os.pathsep.join([str(engine_bin_dir()), str(venv_bin), os.environ.get("PATH", "")])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "HW_", "OS_"))}
    env.update(
        PATH=path,
        PULUMI_HOME=str(engine_dir() / "home"),  # its plugins/ holds the random plugin we built
        PULUMI_BACKEND_URL=file_backend_url(base / "backend"),
        PULUMI_CONFIG_PASSPHRASE=TEST_PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        PULUMI_SKIP_CONFIRMATIONS="true",
        PULUMI_RUNTIME_VIRTUALENV=str(REPO_ROOT / ".venv"),
        PYTHONUNBUFFERED="1",
        # The language host runs `pip list` on every engine start; offline, pip's self version check is waste.
        PIP_DISABLE_PIP_VERSION_CHECK="1",
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

    def outputs(self, show_secrets: bool = False) -> dict:
        args = ["stack", "output", "--json"] + (["--show-secrets"] if show_secrets else [])
        return json.loads(self.run(*args).stdout or "{}")

    def export(self) -> dict:
        return json.loads(self.run("stack", "export").stdout)

    def resources(self) -> list[dict]:
        """The resources as the engine last wrote them. With a file backend, read from its checkpoint (the
        deployment `pulumi stack export` prints, secrets still encrypted) without starting the CLI, which
        costs about 0.25 CPU-s per call; any other backend through `pulumi stack export`."""
        checkpoint = self._checkpoint_path()
        if checkpoint is not None and checkpoint.exists():
            latest = json.loads(checkpoint.read_text())["checkpoint"].get("latest") or {}
            return latest.get("resources", []) or []
        return self.export().get("deployment", {}).get("resources", []) or []

    def _checkpoint_path(self) -> Path | None:
        backend = self.env.get("PULUMI_BACKEND_URL", "")
        if not backend.startswith("file://") or "/" in self.name:
            return None
        project = next((line.split(":", 1)[1].strip() for line in (self.workdir / "Pulumi.yaml").read_text().splitlines()
                        if line.startswith("name:")), None)
        return file_backend_dir(backend) / ".pulumi" / "stacks" / project / f"{self.name}.json" if project else None

    def set_config(self, key: str, value: str, secret: bool = False) -> None:
        self.run("config", "set", key, value, *(["--secret"] if secret else ["--plaintext"]))

    def set_all_config(self, plain: dict[str, str], secrets: dict[str, str]) -> None:
        """Every value in one `pulumi config set-all` (a CLI start costs about as much CPU as a preview)."""
        pairs = [arg for k, v in plain.items() for arg in ("--plaintext", f"{k}={v}")]
        pairs += [arg for k, v in secrets.items() for arg in ("--secret", f"{k}={v}")]
        if pairs:
            self.run("config", "set-all", *pairs)

    def write_config(self, values: dict[str, object]) -> None:
        """Structured config (objects, lists) straight into Pulumi.<stack>.yaml; `pulumi config set`
        only takes scalars or `--path` leaves. Keeps the encryption salt and existing secrets. The file is where
        the engine keeps it: in the project's `stackConfigDir` when `Pulumi.yaml` names one."""
        manifest = self.workdir / "Pulumi.yaml"
        project = (yaml.safe_load(manifest.read_text()) if manifest.exists() else None) or {}
        path = self.workdir / project.get("stackConfigDir", ".") / f"Pulumi.{self.name}.yaml"
        doc = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
        doc.setdefault("config", {}).update(values)
        path.write_text(yaml.safe_dump(doc, sort_keys=False))


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
    st.run("stack", "init", stack, stack_flag=False)
    st.set_all_config(config or {}, secrets or {})
    return st
