"""`./dev up` and `./dev refresh` print the stack outputs that changed, not all of them (issue 44).

The CLI prints every stack output after every `up`, changed or not (`pulumi up` shows the stack's outputs in
full by design): on the local stack about 10 KB of job, run, sweep and cost tables each time, the one line that
changed lost among them. `./dev up` runs `pulumi up --suppress-outputs` through this module instead and then
prints what changed since before the `up`, one line per changed value, named by its path (`jobs.train.phase`):
nothing when nothing changed, only a job's own lines when one job changed, everything once (the first `up`). A
new job, run or table prints each of its values on a line of its own, never a whole job as one long JSON line.
(Not pulumi's own nested listing for the first `up`: `pulumi up` prints it twice, the preview's full of
`[unknown]`.)
`pulumi stack output` still shows them all. A secret shows as `[secret]`, as `pulumi stack output` prints it.

`./dev refresh`: `pulumi refresh --run-program` (which re-runs the program so that the exported outputs are fresh)
marks every job `[diff: +config_keys,owner_seed-name~owner]` while nothing changed: the engine shows a refresh
step against the program's inputs as the program sends them, before the provider's check derives the owner
token, the job name and the run folders from them and drops the seed and the config keys, which is what the
state records (the provider's read and diff find no change: the summary says `unchanged`). So the refresh shown
is the plain `pulumi refresh`, which compares what the service holds with what the state records: no diff
where nothing changed. The program then re-runs in a second, quiet `pulumi refresh --run-program` (its output
shown only when it fails) for the exported outputs, of which the changed ones are printed as for `up`.

    python -m modelarts_provider.cli.changed_outputs up|refresh --stack NAME [PULUMI ARGS...]
    exit: pulumi's

With `--json` (machine output) or `--suppress-outputs` among the arguments, the command runs as given (a
refresh: with `--run-program`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from .output import note, print_line
from .pulumi_cli import find_pulumi

_MISSING: Any = object()
# Arguments with which pulumi up's own output stays as it is.
_AS_GIVEN = frozenset({"--json", "-j", "--suppress-outputs"})


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _changes(path: str, old: Any, new: Any) -> Iterator[str]:
    """One line per changed leaf under `path`: maps by key, lists by position (a run history grows at its end)."""
    if old == new:
        return
    if old is _MISSING and isinstance(new, (dict, list)) and new:
        # A new job, run or table: its values one per line, as the changes of a known one from empty (a long
        # JSON line of a whole job is unreadable in a terminal).
        old = type(new)()
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            yield from _changes(f"{path}.{key}", old.get(key, _MISSING), new.get(key, _MISSING))
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            yield from _changes(f"{path}[{i}]", old[i] if i < len(old) else _MISSING,
                                new[i] if i < len(new) else _MISSING)
    elif old is _MISSING:
        yield f"  + {path}: {_show(new)}"
    elif new is _MISSING:
        yield f"  - {path}"
    else:
        yield f"  ~ {path}: {_show(old)} => {_show(new)}"


def changed_lines(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The lines `./dev up` prints: none when no output changed."""
    lines: list[str] = []
    for key in [*after, *(k for k in before if k not in after)]:
        lines += _changes(key, before.get(key, _MISSING), after.get(key, _MISSING))
    return ["Outputs changed:", *lines] if lines else []


def _outputs(pulumi: str, stack: str) -> dict[str, Any]:
    """The stack's outputs now ({} before its first `up`, or when they cannot be read: then all count as new)."""
    proc = subprocess.run([pulumi, "stack", "output", "--json", "--stack", stack], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    try:
        out = json.loads(proc.stdout) if proc.returncode == 0 else {}
    except json.JSONDecodeError:
        out = {}
    return out if isinstance(out, dict) else {}


def _wait(proc: subprocess.Popen[Any]) -> int:
    """pulumi up's exit code; a Ctrl-C reaches pulumi as well (one process group): it cancels, this waits on."""
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:
            continue


def _up(pulumi: str, stack: str, args: list[str]) -> int:
    return _wait(subprocess.Popen([pulumi, "up", "--yes", "--stack", stack, *args, "--suppress-outputs"]))


def _refresh(pulumi: str, stack: str, args: list[str]) -> int:
    code = _wait(subprocess.Popen([pulumi, "refresh", "--yes", "--stack", stack, *args, "--suppress-outputs"]))
    if code != 0:
        return code
    quiet = subprocess.run([pulumi, "refresh", "--yes", "--skip-preview", "--run-program", "--suppress-outputs",
                            "--stack", stack], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if quiet.returncode != 0:  # what failed, as pulumi said it
        sys.stdout.write(quiet.stdout)
        sys.stderr.write(quiet.stderr)
    return quiet.returncode


_COMMANDS = {"up": _up, "refresh": _refresh}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or args[0] not in _COMMANDS or args[1] != "--stack":
        note("usage: python -m modelarts_provider.cli.changed_outputs up|refresh --stack NAME [PULUMI ARGS...]")
        return 2
    command, stack, given = args[0], args[2], args[3:]
    pulumi = find_pulumi()
    if any(a.split("=", 1)[0] in _AS_GIVEN for a in given):
        extra = ["--run-program"] if command == "refresh" else []
        return _wait(subprocess.Popen([pulumi, command, "--yes", "--stack", stack, *extra, *given]))
    before = _outputs(pulumi, stack)
    code = _COMMANDS[command](pulumi, stack, given)
    lines = changed_lines(before, _outputs(pulumi, stack))  # a failed command may have changed some outputs too
    for line in lines:
        print_line(sys.stdout, line)
    return code


if __name__ == "__main__":
    sys.exit(main())
