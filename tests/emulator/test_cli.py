"""Command line, catalog extension and default state folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from local_cloud.server import REPO_ROOT
from modelarts_emulator.testing import running_emulator
from tests.emulator.helpers import Api, minimal_job

FLAGS = ["--host", "--port", "--db", "--project-id", "--access-key", "--secret-key",
         "--security-token", "--run-seconds", "--phase-seconds", "--latency-ms", "--catalog",
         "--allow-duplicate-names", "--search-offset", "--search-all-workspaces", "--environments-shape"]


def test_switch_flags_reach_the_config():
    from modelarts_emulator.cli import config_from_args

    cfg = config_from_args(["--allow-duplicate-names", "--search-offset", "items", "--search-all-workspaces",
                            "--environments-shape", "array"])
    assert (cfg.allow_duplicate_names, cfg.search_offset, cfg.search_all_workspaces,
            cfg.environments_shape) == (True, "items", True, "array")
    cfg = config_from_args([])
    assert (cfg.allow_duplicate_names, cfg.search_offset, cfg.search_all_workspaces,
            cfg.environments_shape) == (False, "pages", False, "map")


def test_help_documents_every_flag():
    out = subprocess.run([sys.executable, "-m", "modelarts_emulator", "--help"], cwd=REPO_ROOT,
                         capture_output=True, text=True, check=True).stdout
    for flag in FLAGS:
        assert flag in out


def test_catalog_file_extends_builtin(tmp_path):
    extra = tmp_path / "catalog.json"
    extra.write_text(json.dumps({
        "flavors": [{"flavor_id": "custom.gpu.big", "flavor_name": "Big GPU", "max_num": 32}],
        "engines": [{"engine_id": "jax-0.4", "engine_name": "JAX", "engine_version": "0.4"}],
        "algorithms": [{"id": "algo-custom", "name": "custom", "code_dir": "/b/c/",
                        "boot_file": "/b/c/run.py", "engine_id": "jax-0.4"}],
        "pools": [{"pool_id": "pool-custom", "max_nodes": 2, "flavors": ["custom.gpu.big"]}],
    }))
    with running_emulator(tmp_path / "emu", catalog=extra) as emu:
        api = Api(emu)
        body = minimal_job("custom")
        body["algorithm"] = {"id": "algo-custom"}
        body["spec"]["resource"] = {"flavor_id": "custom.gpu.big", "node_count": 20}
        job = api.create(body).json()
        assert job["algorithm"]["engine"]["engine_name"] == "JAX"
        assert job["spec"]["resource"]["flavor_name"] == "Big GPU"
        body = minimal_job("builtin-still-there")  # the built-in catalog is kept
        assert api.create(body).status_code == 201


def test_default_db_is_in_a_git_ignored_state_folder(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "modelarts_emulator", "--port", "0"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("ModelArts emulator listening on http://127.0.0.1:")
        assert "a1b2c3d4e5f60718293a4b5c6d7e8f90" in line
        assert (tmp_path / ".state" / "emulator.db").exists()
        assert (tmp_path / ".state" / ".gitignore").read_text() == "*\n"
    finally:
        proc.terminate()
        assert proc.wait(5) == 0
