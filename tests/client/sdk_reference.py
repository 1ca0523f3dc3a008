"""The official SDK's models (huaweicloudsdkmodelarts, pinned in the test extra) as a shape reference.

Only the SDK's declarative metadata is used: each model class names its fields in ``openapi_types``
(python name -> type string: ``str``, ``int``, ``float``, ``bool``, ``object``, ``list[T]``,
``dict(str, T)`` or another model class) and ``attribute_map`` (python name -> JSON key).

* :func:`fit` deserialises a JSON body into the SDK's model objects, recursively, and lists every
  key the SDK does not know and every value of another JSON type than the SDK declares;
  ``huaweicloudsdkcore``'s own ``sanitize_for_serialization`` then turns the objects back into what
  the SDK would send, which must equal the body (no value lost).
* :func:`synthetic` builds a body holding every field of a model tree, for response tests.
"""

from __future__ import annotations

from typing import Any, Callable

import huaweicloudsdkmodelarts.v1.model as sdk_models
from huaweicloudsdkcore.utils.http_utils import sanitize_for_serialization

PRIMITIVES = {"str", "int", "float", "bool", "object", "date", "datetime"}


def sdk_class(name: str) -> type:
    cls = getattr(sdk_models, name, None)
    if cls is None or not hasattr(cls, "openapi_types"):
        raise LookupError(f"no SDK model {name}")
    return cls


def _inner(t: str) -> tuple[str, str]:
    """("list", T) / ("dict", T) / ("", t)."""
    if t.startswith("list[") and t.endswith("]"):
        return "list", t[5:-1]
    if t.startswith("dict(") and t.endswith(")"):
        return "dict", t[t.index(",") + 1:-1].strip()
    return "", t


def _json_type_ok(value: Any, t: str) -> bool:
    if t == "str":
        return isinstance(value, str)
    if t == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "bool":
        return isinstance(value, bool)
    return True  # object, date, datetime


def fit(value: Any, sdk_type: str, path: str = "body") -> tuple[Any, list[str]]:
    """(SDK objects for ``value``, problems). No problems: every key known, every type as declared."""
    problems: list[str] = []

    def build(v: Any, t: str, where: str) -> Any:
        container, inner = _inner(t)
        if v is None:
            return None
        if container == "list":
            if not isinstance(v, list):
                problems.append(f"{where}: the SDK has an array ({t}), got {type(v).__name__}")
                return v
            return [build(x, inner, f"{where}[{i}]") for i, x in enumerate(v)]
        if container == "dict":
            if not isinstance(v, dict):
                problems.append(f"{where}: the SDK has a map ({t}), got {type(v).__name__}")
                return v
            return {k: build(x, inner, f"{where}.{k}") for k, x in v.items()}
        if t in PRIMITIVES:
            if not _json_type_ok(v, t):
                problems.append(f"{where}: the SDK has {t}, got {type(v).__name__} {v!r}")
            return v
        cls = sdk_class(t)
        if not isinstance(v, dict):
            problems.append(f"{where}: the SDK has an object ({t}), got {type(v).__name__}")
            return v
        attr_of = {wire: attr for attr, wire in cls.attribute_map.items()}
        kwargs = {}
        for key, x in v.items():
            if key not in attr_of:
                problems.append(f"{where}.{key}: not a field of the SDK's {t}")
                continue
            attr = attr_of[key]
            kwargs[attr] = build(x, cls.openapi_types[attr], f"{where}.{key}")
        return cls(**kwargs)

    return build(value, sdk_type, path), problems


def round_trip(value: Any, sdk_type: str) -> tuple[Any, list[str]]:
    """What the SDK would send for ``value`` (deserialised as ``sdk_type``), and the fit problems."""
    obj, problems = fit(value, sdk_type)
    return sanitize_for_serialization(obj), problems


def body_type(request_class: str) -> str:
    """The type of the ``body`` of an SDK request class (e.g. CreateTrainingJobRequest -> Job)."""
    return sdk_class(request_class).openapi_types["body"]


def synthetic(sdk_type: str, scalar: Callable[[str, str], Any], *, skip: frozenset[str] = frozenset(),
              one_for_many: bool = False, depth: int = 8) -> Any:
    """A body with every field of ``sdk_type``'s tree. ``scalar(type, path)`` gives the leaves;
    keys in ``skip`` are left out; ``one_for_many`` puts one object where the SDK has an array of
    objects (the tolerance rule's other shape)."""

    def make(t: str, where: str, left: int) -> Any:
        container, inner = _inner(t)
        if container == "list":
            item = make(inner, f"{where}[0]", left)
            if one_for_many and inner not in PRIMITIVES and not inner.startswith(("list[", "dict(")):
                return item
            return [item]
        if container == "dict":
            return {"k": make(inner, f"{where}.k", left)}
        if t in PRIMITIVES:
            return scalar(t, where)
        cls = sdk_class(t)
        if left == 0:
            return {}
        return {cls.attribute_map[a]: make(at, f"{where}.{cls.attribute_map[a]}", left - 1)
                for a, at in cls.openapi_types.items() if cls.attribute_map[a] not in skip}

    return make(sdk_type, "body", depth)
