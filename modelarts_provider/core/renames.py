"""A renamed stack keeps managing what it made: `modelarts:renamedFrom`, the stack's former names.

The proof an object carries names the stack that made it (core/ownership.py), and the stack acting is the one each
engine call's URN names. After `pulumi stack rename`, the state is the same and the URNs name the new stack, so
the proofs written before no longer verify: the safe side, since a copied stack (`stack export`, URNs renamed,
`stack import`) holds the same state and seed, and nothing in the state or the service tells a rename from a copy.
So the person who renamed it says so, in the stack's config (both front doors read it as a provider setting):

    pulumi config set modelarts:renamedFrom old-name        # several: comma separated

and the product checks what it can before believing it: a former name that is still a stack of this project in the
backend in use is a copy's original, never a former name of this stack, and the whole setting is refused (one line,
naming it) at configure, so every preview fails and nothing under it verifies. A proof made for a former name then
verifies (in this stack's project only); new objects are marked with the new name. Keep the setting for as long as
an object made before the rename lives: its annotations and labels keep naming the former stack.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from functools import lru_cache

RENAMED_FROM_KEY = "renamedFrom"
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{1,100}\Z")  # a Pulumi stack name's characters
LIST_TIMEOUT_S = 60
# What a refusal says to a stack that may have been renamed since it made the object.
RENAMED_HINT = f"a stack renamed since it made it: `pulumi config set modelarts:{RENAMED_FROM_KEY} <its former name>`"


class RenameRefused(ValueError):
    """`modelarts:renamedFrom` cannot be believed; one line naming the setting and why."""


def parse(value: object) -> tuple[str, ...]:
    """The former stack names of the setting (`name` or `org/project/name`, comma separated; the name is kept)."""
    if value is None or value == "":
        return ()
    if not isinstance(value, str):
        raise RenameRefused(f"modelarts:{RENAMED_FROM_KEY} must be a stack name (several: comma separated), "
                            f"not {type(value).__name__}")
    names = []
    for item in (part.strip() for part in value.split(",")):
        name = item.rsplit("/", 1)[-1]
        if not _NAME_RE.match(name) or item.count("/") > 2:
            raise RenameRefused(f"modelarts:{RENAMED_FROM_KEY}: {item!r} is not a stack name (letters, digits, "
                                "'-', '_' and '.'; several: comma separated)")
        names.append(name)
    return tuple(dict.fromkeys(names))


def _listed_stacks() -> frozenset[str]:
    """The stack names of this project in the backend in use (`pulumi stack ls`, run where the engine runs its
    program and providers: the project's directory, with the engine's environment)."""
    from .engine_cli import find_pulumi

    env = {**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"}
    try:
        proc = subprocess.run([find_pulumi(env), "stack", "ls", "--json", "--non-interactive"], env=env, text=True,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=LIST_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise RenameRefused(f"modelarts:{RENAMED_FROM_KEY}: the backend's stacks could not be listed "
                            f"({type(err).__name__}); a former name is believed only once that is known") from None
    try:
        listed = json.loads(proc.stdout or "null") if proc.returncode == 0 else None
    except ValueError:
        listed = None
    if not isinstance(listed, list):
        last = next((line.strip() for line in reversed(proc.stderr.splitlines()) if line.strip()), "no reason given")
        raise RenameRefused(f"modelarts:{RENAMED_FROM_KEY}: `pulumi stack ls` failed ({last}); a former name is "
                            "believed only once the backend's stacks are known")
    return frozenset(str(s.get("name", "")).rsplit("/", 1)[-1] for s in listed if isinstance(s, dict))


@lru_cache(maxsize=8)
def _believed(names: tuple[str, ...], listed: Callable[[], frozenset[str]]) -> tuple[str, ...]:
    live = sorted(set(names) & listed())
    if live:
        raise RenameRefused(
            f"modelarts:{RENAMED_FROM_KEY} names {', '.join(live)}, a stack of this project in the backend in use: "
            "a stack that still exists is a copy's original, not this stack's former name; remove the setting "
            "(a copy never manages the original's jobs, pools, networks or buckets)")
    return names


class Renames:
    """The former names believed in this provider process (one stack per process: the engine's)."""

    def __init__(self, listed: Callable[[], frozenset[str]] = _listed_stacks) -> None:
        self._listed = listed
        self.former: tuple[str, ...] = ()

    def configure(self, value: object) -> None:
        """Believe the setting's names, or refuse it (and believe none)."""
        self.former = ()
        names = parse(value)
        if names:
            self.former = _believed(names, self._listed)

    def stacks(self, here: str | None) -> tuple[str, ...]:
        """`project/stack` of each former name, in the project of `here` (the stack acting now)."""
        if not here or "/" not in here:
            return ()
        project, current = here.rsplit("/", 1)
        return tuple(f"{project}/{name}" for name in self.former if name != current)


RENAMES = Renames()
