"""A training job's secrets, from its own inputs: the values at its `secret_paths` (masking.Secrets).

The stack program records which inputs of a TrainingJob are secret (`secret_paths`, dotted paths: the dynamic
provider gets plain values, the program knows its Pulumi secrets); the plugin adds the paths of the secret
markers the engine sends. The TrainingJob's own calls mask with these (training_job/provider.py), and its
JobsAwait gets the same map per job (`secrets`: {job key: {path: value}}), so that what is printed of a job is
masked with that job's secrets, not with every secret the process ever saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .masking import Secrets

# A secret section's pool, flavor and node count are names and counts, printed in every progress line.
NAMES_AND_COUNTS = frozenset({"flavor_id", "pool_id", "node_count"})
# An environment value is a secret of its own (set with --secret --path): masked whatever its length or shape.
EXPLICIT_UNDER = "algorithm.environments."


def at_path(props: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted input path (list items by index), or None."""
    value: Any = props
    for part in dotted.split("."):
        if isinstance(value, Mapping):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def secret_inputs(props: Mapping[str, Any]) -> dict[str, Any]:
    """{path: value} of the job's scalar secret inputs (its `secret_paths`)."""
    out: dict[str, Any] = {}
    for dotted in props.get("secret_paths") or []:
        value = at_path(props, str(dotted))
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out[str(dotted)] = value
    return out


def job_secrets(by_path: Mapping[str, Any], names: Iterable[object] = ()) -> Secrets:
    """The Secrets of one job from {secret input path: value}: an environment value is masked whatever it is, any
    other value when it is secret material (a count, a phase or `fail` is not; nor its pool, flavor or node
    count); every value stays out of records. The job's own names are shown as they are (a failure names it)."""
    secrets = Secrets.of((), shown=names)
    for path, value in by_path.items():
        if path in NAMES_AND_COUNTS:
            continue
        secrets |= Secrets.of([value], explicit=path.startswith(EXPLICIT_UNDER))
    return secrets


def of_props(props: Mapping[str, Any]) -> Secrets:
    """A TrainingJob's Secrets from its inputs (or recorded outputs, which hold them)."""
    return job_secrets(secret_inputs(props), (props.get("name"), props.get("job_name")))
