"""What a killed `./dev up` can leave behind, put right by `./dev` at its next command (issue 44).

- State the backend cannot read: the file backend writes a checkpoint (`<stack>.json`) and, beside it, its
  attributes (`<stack>.json.attrs`, JSON). A SIGKILL between the two can leave the attributes file empty, and
  then every command, `pulumi cancel` included, fails with `failed to load checkpoint: EOF`. The attributes are
  metadata only (content type, checksum); without them the checkpoint is read as it is. So an empty or unreadable
  `.attrs` file of OUR file backend (the stacks under $MODELARTS_STATE/backend) is removed, with one line. Nothing
  else is touched: not the checkpoint, not another backend.
- Processes the killed engine left running: its language host (pulumi-language-python and the program it ran) and
  plugins without a watchdog of their own (the random provider). Ended only when they are ours: started from this
  set-up's engine (their executable under $MODELARTS_ENGINE_CACHE or this repository), for this state directory
  (MODELARTS_STATE in their environment), and orphaned (no `pulumi` parent any more). Another user's, another
  checkout's or a running `pulumi`'s processes never match.

    python scripts/dev_recover.py STATE_DIR ENGINE_CACHE REPO_ROOT     (./dev runs it; one line per repair)
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

# Executables the engine starts for a stack of ./dev (the provider processes run the venv's python).
ENGINE_CHILDREN = ("pulumi-language-python", "pulumi-language-python-exec", "pulumi-resource-random",
                   "pulumi-resource-pulumi-python", "pulumi-language-yaml", "python", "python3")


def bad_attrs(backend: Path) -> list[Path]:
    """The `.json.attrs` files of the file backend's stacks that are empty or not JSON."""
    stacks = backend / ".pulumi" / "stacks"
    out = []
    for path in sorted(stacks.rglob("*.json.attrs")) if stacks.is_dir() else []:
        try:
            json.loads(path.read_text() or "x")
        except (OSError, ValueError):
            out.append(path)
    return out


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _ppid(pid: int) -> int:
    stat = _read(f"/proc/{pid}/stat")
    try:
        return int(stat.rsplit(b")", 1)[1].split()[1])
    except (IndexError, ValueError):
        return -1


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _cmdline(pid: int) -> list[str]:
    return [a.decode(errors="replace") for a in _read(f"/proc/{pid}/cmdline").split(b"\0") if a]


def _engine_alive(pid: int) -> bool:
    """Whether a `pulumi` process is among the process's ancestors (its command still runs)."""
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        pid = _ppid(pid)
        if pid > 1 and Path(_exe(pid)).name == "pulumi":
            return True
    return False


def orphans(state: Path, roots: list[Path]) -> list[tuple[int, str]]:
    """(pid, what) of the processes a killed engine of ./dev left running for `state` (see the module)."""
    marker = f"MODELARTS_STATE={state}".encode()
    me = os.getpid()
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        if marker not in _read(f"/proc/{pid}/environ").split(b"\0"):
            continue
        argv = _cmdline(pid)
        program = next((a for a in argv[:3] if Path(a).name in ENGINE_CHILDREN and "/" in a), argv[0] if argv else "")
        name = Path(program).name
        if name not in ENGINE_CHILDREN or not any(str(program).startswith(str(r)) for r in roots):
            continue
        if name.startswith("python") and not any(a in ("pulumi.dynamic", "pulumi_language_python")
                                                 or a.endswith("__main__.py") for a in argv):
            continue  # a python of the venv that is not the engine's (an emulator, a test): never ours to end
        if _engine_alive(pid):
            continue  # a running command's
        out.append((pid, name))
    return out


def main(argv: list[str]) -> int:
    state, cache, repo = (Path(a) for a in argv[1:4])
    for path in bad_attrs(state / "backend"):
        path.unlink()
        print(f"dev: removed {path} (empty or unreadable after a killed command; the checkpoint beside it is "
              "intact and read without it)", file=sys.stderr)
    for pid, name in orphans(state, [cache, repo]):
        try:
            os.kill(pid, signal.SIGTERM)
            print(f"dev: ended {name} (pid {pid}), left running by a killed pulumi command", file=sys.stderr)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
