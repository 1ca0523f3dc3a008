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
The first `up` (no outputs before it) prints a summary instead of every value (about 700 lines on the local stack,
issue 56): one line per output, and one per entry of a map of jobs, sweeps or searches (its phase, its best),
ten at most each. Each value is masked as its own key would mask it (`best.key: "..."`: a job's key, not a
secret-looking name), not as the whole dotted path reads (`sweeps.lr-sweep.best.key` looked like one).

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
from dataclasses import dataclass
from typing import Any

from ..results.show import printable
from .output import note
from .pulumi_cli import find_pulumi

_MISSING: Any = object()
# Arguments with which pulumi up's own output stays as it is.
_AS_GIVEN = frozenset({"--json", "-j", "--suppress-outputs"})


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Change:
    """One changed value: `sign` +, - or ~, its dotted `path`, the `leaf` key it is under, what it shows."""

    sign: str
    path: str
    leaf: str
    values: tuple[str, ...] = ()  # as shown: none for a removal, (old, new) for a change

    def line(self) -> str:
        return f"  {self.sign} {self.path}" + (f": {' => '.join(self.values)}" if self.values else "")

    def masked(self) -> str:
        """The line through the masking step, each value judged under its own key (results.show.printable)."""
        if not self.values:
            return printable(self.line())
        head = f"{self.leaf}: "
        shown = " => ".join(printable(head + v)[len(head):] for v in self.values)
        return f"  {self.sign} {printable(self.path)}: {shown}"


def _changes(path: str, leaf: str, old: Any, new: Any) -> Iterator[Change]:
    """One change per changed leaf under `path`: maps by key, lists by position (a run history grows at its end)."""
    if old == new:
        return
    if old is _MISSING and isinstance(new, (dict, list)) and new:
        # A new job, run or table: its values one per line, as the changes of a known one from empty (a long
        # JSON line of a whole job is unreadable in a terminal).
        old = type(new)()
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            yield from _changes(f"{path}.{key}", str(key), old.get(key, _MISSING), new.get(key, _MISSING))
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            yield from _changes(f"{path}[{i}]", leaf, old[i] if i < len(old) else _MISSING,
                                new[i] if i < len(new) else _MISSING)
    elif old is _MISSING:
        yield Change("+", path, leaf, (_show(new),))
    elif new is _MISSING:
        yield Change("-", path, leaf)
    else:
        yield Change("~", path, leaf, (_show(old), _show(new)))


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    found: list[Change] = []
    for key in [*after, *(k for k in before if k not in after)]:
        found += _changes(key, key, before.get(key, _MISSING), after.get(key, _MISSING))
    return found


def changed_lines(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The lines `./dev up` prints: none when no output changed."""
    lines = [c.line() for c in changes(before, after)]
    return ["Outputs changed:", *lines] if lines else []


# --- the first up: a summary ---------------------------------------------------------------------------------

ENTRIES_SHOWN = 10  # entries of one output listed on the first up; the rest counted


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _about(entry: Any) -> str:
    """What one entry of a map of jobs, sweeps or searches says in a word or two: its phase, its best."""
    if not isinstance(entry, dict):
        return _show(entry) if _scalar(entry) else f"{len(entry)} items"
    words = [entry["phase"]] if isinstance(entry.get("phase"), str) else []
    for many in ("points", "trials"):
        if isinstance(entry.get(many), list):
            words.append(f"{len(entry[many])} {many}")
    best = entry.get("best")
    if isinstance(best, dict):
        name = best.get("key") or best.get("trialId")
        value = next((best[k] for k in ("objective", "reward") if isinstance(best.get(k), (int, float))), None)
        if isinstance(name, str):
            words.append(f"best {name}" + (f" ({value:g})" if value is not None else ""))
    return ", ".join(words)


def summary_changes(after: dict[str, Any]) -> list[Change]:
    """The first up's lines: each output in one line (a map of entries: how many, then each entry's own line)."""
    found: list[Change] = []
    for name, value in after.items():
        if _scalar(value):
            found.append(Change("+", name, name, (_show(value),)))
        elif isinstance(value, list):
            found.append(Change("+", name, name, (f"{len(value)} items",)))
        elif value and all(isinstance(v, dict) for v in value.values()):
            found.append(Change("+", name, name, (f"{len(value)}",)))
            for key in list(value)[:ENTRIES_SHOWN]:
                about = _about(value[key])
                found.append(Change(" ", f"  {key}", str(key), (about,) if about else ()))
            if len(value) > ENTRIES_SHOWN:
                found.append(Change(" ", f"  ... and {len(value) - ENTRIES_SHOWN} more", ""))
        elif value and all(isinstance(v, list) for v in value.values()):
            records = sum(len(v) for v in value.values())
            found.append(Change("+", name, name, (f"{len(value)} keys, {records} records",)))
        else:
            plain = [f"{k}={_show(v)}" for k, v in value.items() if _scalar(v)]
            nested = [str(k) for k, v in value.items() if not _scalar(v)]
            found.append(Change("+", name, name, (", ".join(plain + nested) or "{}",)))
    return found


def summary_lines(after: dict[str, Any]) -> list[str]:
    """The first up's lines, unmasked (what the tests read): a header, then the summary."""
    return [SUMMARY_HEADER, *(c.line() for c in summary_changes(after))] if after else []


SUMMARY_HEADER = "Outputs (the first up: a summary; every value: ./dev pulumi stack output --json):"


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
    after = _outputs(pulumi, stack)  # a failed command may have changed some outputs too
    if not before and after:
        header, found = SUMMARY_HEADER, summary_changes(after)
    else:
        header, found = "Outputs changed:", changes(before, after)
    if found:
        # Each part through the masking step on its own (Change.masked): not again as one line.
        sys.stdout.write("\n".join([header, *(c.masked() for c in found)]) + "\n")
        sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
