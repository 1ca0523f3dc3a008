"""What every resource's provider does alike with the properties the engine hands it, written once:

- `inputs_among`: its inputs among them, every key but the outputs its declaration lists (an outputs model's
  fields, or the keys its provider adds) and the engine's own `__` keys;
- `Checked`: what its check makes of the inputs, in one shape for every resource (the inputs as checked, its
  args or None; one Failure per bad field);
- `model_check`: the check of a resource whose inputs are one pydantic model (a Network, a ResourcePool), the
  values still unknown at preview standing in with values of the right shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from .failures import Failure, failures_from
from .unknowns import contains_unknown

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Props = Mapping[str, Any]


def inputs_among(outputs: type[BaseModel] | Iterable[str], *,
                 drop_none: bool = False) -> Callable[[Props], dict[str, Any]]:
    """A resource's `strip_outputs`: `outputs` is its outputs model or the output keys its provider adds. With
    `drop_none`, an input recorded as None is left out too (its model's default, or "is required", speaks)."""
    keys = frozenset(outputs.model_fields if isinstance(outputs, type) else outputs)

    def strip_outputs(props: Props) -> dict[str, Any]:
        return {k: v for k, v in props.items()
                if k not in keys and not k.startswith("__") and not (drop_none and v is None)}

    return strip_outputs


class Checked(NamedTuple, Generic[T]):
    """A check's answer: what it made of the inputs (canonical inputs, validated args; None when they fail) and
    one Failure per bad field (none: the inputs are good, or only a value unknown at preview hides a problem)."""

    value: T
    failures: list[Failure]


def model_check(model: type[M], raw: dict[str, Any], stand_ins: Mapping[str, Any], *, whole: str,
                other: Any = None) -> Checked[M | None]:
    """`raw` validated against `model`, each value unknown at preview replaced by its stand-in (`stand_ins`, else
    `other`; None: left out); a failure of the whole model is named `whole`."""
    known = {k: v for k, v in raw.items() if not contains_unknown(v)}
    stood_in = {k: stand_ins.get(k, other) for k in raw if k not in known}
    known = {**{k: v for k, v in stood_in.items() if v is not None}, **known}
    try:
        return Checked(model.model_validate(known), [])
    except ValidationError as err:
        return Checked(None, failures_from(err, known, whole=whole))
