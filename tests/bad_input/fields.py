"""Which model fields a config path names, and every field of a config's models.

The suite's coverage rule (issue 13): every field of the stack config (modelarts-jobs:* sections and
the modelarts:* provider settings) and of the TrainingJob args is the subject of at least one case.
Fields are named by the model that declares them, so a sweep's `pool` counts for JobEntry.pool.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from modelarts_provider.core.provider_config import ProviderSettings
from modelarts_provider.stack.config import PROJECT, StackConfig
from modelarts_provider.training_job.args import TrainingJobArgs

FieldId = tuple[str, str]  # (declaring model, field name)


def _options(tp: Any) -> list[Any]:
    """The types a value of `tp` may have: Annotated, Optional and unions flattened."""
    origin = get_origin(tp)
    if origin is Annotated:
        return _options(get_args(tp)[0])
    if origin in (Union, types.UnionType):
        return [o for arg in get_args(tp) for o in _options(arg)]
    return [] if tp is type(None) else [tp]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _owner(model: type[BaseModel], name: str) -> str:
    for klass in model.__mro__:
        if name in klass.__dict__.get("__annotations__", {}):
            return klass.__name__
    return model.__name__


def _field_named(model: type[BaseModel], part: str) -> str | None:
    for name, info in model.model_fields.items():
        if part in (name, info.alias, to_camel(name)):
            return name
    return None


def _step(tp: Any, part: Any) -> tuple[FieldId | None, Any] | None:
    for opt in _options(tp):
        if _is_model(opt) and isinstance(part, str):
            name = _field_named(opt, part)
            if name is not None:
                return (_owner(opt, name), name), opt.model_fields[name].annotation
        elif get_origin(opt) is dict and not isinstance(part, int):
            return None, get_args(opt)[1]
        elif get_origin(opt) is list and isinstance(part, int):
            return None, get_args(opt)[0]
    return None


def field_at(root: type[BaseModel], path: tuple[Any, ...]) -> FieldId | None:
    """The last field `path` names under `root` (a map key or list index counts for its map or
    list's field), or None when the path leaves the models (an unknown key)."""
    tp: Any = root
    last: FieldId | None = None
    for part in path:
        step = _step(tp, part)
        if step is None:
            return None
        named, tp = step
        last = named or last
    return last


def stack_field_at(path: tuple[Any, ...]) -> FieldId | None:
    """A path of the stack's config file: (`modelarts-jobs:<section>`, ...) or (`modelarts:<setting>`,)."""
    head, rest = str(path[0]), path[1:]
    namespace, _, key = head.partition(":")
    if namespace == PROJECT:
        return field_at(StackConfig, (key, *rest))
    if namespace == "modelarts" and not rest:
        return field_at(ProviderSettings, (key,))
    return None


def args_field_at(path: tuple[Any, ...]) -> FieldId | None:
    """A path of the TrainingJob args (Python names)."""
    return field_at(TrainingJobArgs, path)


def all_fields(*roots: type[BaseModel]) -> set[FieldId]:
    """Every field of every model reachable from `roots`."""
    out: set[FieldId] = set()
    seen: set[type] = set()

    def walk(tp: Any) -> Iterator[Any]:
        for opt in _options(tp):
            if _is_model(opt):
                yield opt
            elif get_origin(opt) in (dict, list):
                for arg in get_args(opt):
                    yield from walk(arg)

    todo = list(roots)
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            out.add((_owner(model, name), name))
            todo.extend(walk(info.annotation))
    return out


STACK_FIELDS = all_fields(StackConfig, ProviderSettings)
ARGS_FIELDS = all_fields(TrainingJobArgs)
