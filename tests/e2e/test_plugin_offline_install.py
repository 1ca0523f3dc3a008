"""Issue 43 minors: the plugin's offline archive (`./dev package --offline`) starts with no network at all, with
and without `uv` on PATH (before: with uv the first start failed, uv asking the package index; without, pip took
315 s retrying it 195 times); a damaged venv (a package deleted from it) is made again instead of a traceback;
a failed set-up names a venv.log that exists.

The archive is built once (that step downloads the dependencies' wheels: "once the wheels are there"); each start
then runs the archive's launcher as the engine does (`pulumi-resource-modelarts ENGINE_ADDRESS`) in a network
namespace of its own (`unshare -rn`: no interface but a loopback that is down), with a fresh plugin directory, and
waits for the port on stdout, which the engine reads. The seconds each start took are printed (`-s`); the bound
below only stops a start that hangs on the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from testkit.harness import REPO_ROOT

# One xdist group: the module's tests run on one worker, so the archive (a module fixture: ~10 CPU-s of
# `./dev package --offline`) is built once, not once per worker the tests would otherwise be spread over.
pytestmark = pytest.mark.xdist_group("plugin-offline-archive")
UV = REPO_ROOT / ".venv" / "bin" / "uv"
FIRST_START_BOUND_S = 120.0  # a start asking the index offline takes minutes (pip's retries); ours seconds


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([str(REPO_ROOT / "dev"), "package", "--offline", "--out", str(out)], cwd=REPO_ROOT,
                           text=True, capture_output=True, timeout=900, stdin=subprocess.DEVNULL)
    assert built.returncode == 0, built.stderr
    return Path(built.stdout.split()[1])


def _installed(archive: Path, base: Path) -> Path:
    """The archive unpacked as `pulumi plugin install --file` does: the launcher and wheels/."""
    plugin = base / "resource-modelarts-v0.1.0"
    plugin.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        tar.extractall(plugin, filter="data")
    assert len(list((plugin / "wheels").glob("*.whl"))) > 1, "not an offline archive"
    return plugin


def _env(base: Path, with_uv: bool) -> dict[str, str]:
    tools = base / "tools"
    tools.mkdir(exist_ok=True)
    if with_uv and not (tools / "uv").exists():
        (tools / "uv").symlink_to(UV)
    path = [str(tools)] if with_uv else []
    return {"PATH": os.pathsep.join([*path, "/usr/bin", "/bin"]), "HOME": os.environ.get("HOME", str(base)),
            "MODELARTS_PLUGIN_PYTHON": sys._base_executable, "LANG": "C.UTF-8"}


def _start_offline(plugin: Path, env: dict[str, str]) -> tuple[str, str, float]:
    """Start the launcher with no network; (the port line, stderr, seconds until the port came)."""
    assert shutil.which("unshare"), "unshare (util-linux) is needed to cut the network"
    assert subprocess.run(["unshare", "-rn", "true"]).returncode == 0, "no network namespace allowed here"
    started = time.monotonic()
    proc = subprocess.Popen(["unshare", "-rn", str(plugin / "pulumi-resource-modelarts"), "127.0.0.1:1"],
                            cwd=plugin.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        out: dict[str, str] = {}

        def read() -> None:
            out["line"] = proc.stdout.readline() if proc.stdout else ""

        import threading

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(FIRST_START_BOUND_S)
        took = time.monotonic() - started
        if reader.is_alive():
            proc.kill()
            raise AssertionError(f"no port after {FIRST_START_BOUND_S:g} s: the set-up waits on the network\n"
                                 + (plugin / "venv.log").read_text(errors="replace")[-3000:])
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate(timeout=30)
    return out.get("line", "").strip(), err, took


@pytest.mark.parametrize("with_uv", [True, False], ids=["uv", "pip"])
def test_the_offline_archive_starts_with_no_network(tmp_path: Path, archive: Path, with_uv: bool) -> None:
    plugin = _installed(archive, tmp_path / "plugins")
    port, err, took = _start_offline(plugin, _env(tmp_path, with_uv))
    print(f"offline first start ({'uv' if with_uv else 'pip'} on PATH): port after {took:.1f} s")
    assert port.isdigit(), f"no port on stdout: {port!r}\n{err}\n{(plugin / 'venv.log').read_text()[-3000:]}"
    log = (plugin / "venv.log").read_text()
    assert "asking the package index" not in log, log  # from wheels/ alone


def test_a_damaged_venv_is_made_again(tmp_path: Path, archive: Path) -> None:
    plugin = _installed(archive, tmp_path / "plugins")
    env = _env(tmp_path, with_uv=True)
    port, err, _ = _start_offline(plugin, env)
    assert port.isdigit(), err
    (site,) = (plugin / "venv" / "lib").glob("python3*/site-packages")
    shutil.rmtree(site / "grpc")  # a package deleted from the venv
    port, err, took = _start_offline(plugin, env)
    print(f"damaged venv: made again and started in {took:.1f} s")
    assert port.isdigit(), f"{err}\n{(plugin / 'venv.log').read_text()[-3000:]}"
    assert "Traceback" not in err, err
    assert "is damaged (No module named 'grpc'): making it again" in (plugin / "venv.log").read_text()
    assert (site / "grpc").is_dir()


def test_a_failed_set_up_names_a_log_that_exists(tmp_path: Path, archive: Path) -> None:
    plugin = _installed(archive, tmp_path / "plugins")
    env = {**_env(tmp_path, with_uv=False), "MODELARTS_PLUGIN_PYTHON": str(tmp_path / "no-such-python")}
    proc = subprocess.run([str(plugin / "pulumi-resource-modelarts"), "127.0.0.1:1"], cwd=plugin.parent, env=env,
                          text=True, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("pulumi-resource-modelarts: could not make "), line
    log = line.rsplit("(see ", 1)[1].rstrip(")")
    assert Path(log).is_file() and "could not make" in Path(log).read_text()
