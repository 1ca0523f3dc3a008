"""`./dev up` on a terminal asks before an update deletes anything (issue 41): a preview first, then a question.

`./dev up` runs `pulumi up --yes`, so a slip that makes the program declare less (a key removed by mistake, a
section the program no longer sees) deleted what it forgot without a word. On a terminal, without `--yes`, ./dev
runs this first: `pulumi preview --json` with the same arguments, and when a step deletes a resource the
program no longer declares, the resources are listed by type and the user answers y/N; anything but yes ends
`./dev up` with nothing done. Without a terminal (CI, tests, scripts) ./dev does not ask: it runs
`pulumi up --yes` as documented, and the preview's own diagnostics say what the update deletes.

    python -m modelarts_provider.cli.deletions --stack NAME [PULUMI UP ARGS...]
    exit 0: go on (nothing deleted, or the user said yes); 1: the user said no; other: the preview failed
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import Any

from .output import note
from .pulumi_cli import find_pulumi

# Flags of `pulumi up` that `pulumi preview` does not take (the rest are shared and passed on as given).
UP_ONLY_FLAGS = frozenset({"--yes", "-y", "--skip-preview", "-f", "--continue-on-error"})
# Steps that delete a resource the program no longer declares. A replacement is not one: its successor is
# declared, and a finished training run it replaces stays a record unless the user chose otherwise.
DELETE_OPS = frozenset({"delete"})


def preview_args(up_args: Iterable[str]) -> list[str]:
    """The arguments of `pulumi up` that `pulumi preview` also takes."""
    return [a for a in up_args if a.split("=", 1)[0] not in UP_ONLY_FLAGS]


def deleted(preview: dict[str, Any]) -> list[tuple[str, str]]:
    """(type, name) of every resource the previewed update deletes, in the order of the steps."""
    out = []
    for step in preview.get("steps") or []:
        if step.get("op") in DELETE_OPS:
            urn = str(step.get("urn", ""))
            parts = urn.split("::")
            out.append((parts[-2].split("$")[-1] if len(parts) >= 3 else "resource", parts[-1]))
    return out


def summary(gone: list[tuple[str, str]], shown_per_type: int = 8) -> list[str]:
    """One line per type: 'TrainingJob (3): a, b, c'."""
    by_type: dict[str, list[str]] = {}
    for kind, name in gone:
        by_type.setdefault(kind.rsplit(":", 1)[-1], []).append(name)
    lines = []
    for kind, names in by_type.items():
        more = f", ... ({len(names) - shown_per_type} more)" if len(names) > shown_per_type else ""
        lines.append(f"  {kind} ({len(names)}): {', '.join(names[:shown_per_type])}{more}")
    return lines


def confirm(stack: str, up_args: list[str], ask: Callable[[str], str],
            say: Callable[[str], None], run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> int:
    """Preview; when the update deletes something, list it and ask. The exit code for ./dev (see the module)."""
    say("dev up: previewing first: an update that deletes anything is shown and asked about (--yes skips)")
    proc = run([find_pulumi(), "preview", "--json", "--non-interactive", "--stack", stack, *preview_args(up_args)],
               text=True, capture_output=True, stdin=subprocess.DEVNULL)
    try:
        preview = json.loads(proc.stdout or "{}")
    except json.JSONDecodeError:
        preview = {}
    if proc.returncode != 0:
        errors = [d.get("message", "").strip() for d in preview.get("diagnostics") or []
                  if d.get("severity") == "error" and d.get("message")]
        say("\n".join(errors) or proc.stderr.strip() or proc.stdout.strip() or "pulumi preview failed")
        say("dev up: the preview failed; nothing was changed")
        return proc.returncode or 2
    gone = deleted(preview)
    if not gone:
        return 0
    say(f"dev up: this update deletes {len(gone)} resource{'s' if len(gone) != 1 else ''} "
        "the program no longer declares:")
    for line in summary(gone):
        say(line)
    answer = ask(f"Delete {'them' if len(gone) != 1 else 'it'} and update the stack? [y/N] ")
    if answer.strip().lower() in ("y", "yes"):
        return 0
    say("dev up: nothing done (to delete without asking: ./dev up --yes)")
    return 1


def _ask(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    try:
        return sys.stdin.readline()
    except KeyboardInterrupt:
        return ""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] != "--stack":
        print("usage: python -m modelarts_provider.cli.deletions --stack NAME [PULUMI UP ARGS...]", file=sys.stderr)
        return 2
    return confirm(args[1], args[2:], _ask, note)


if __name__ == "__main__":
    sys.exit(main())
