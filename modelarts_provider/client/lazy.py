"""A module of the client imported at its first use, for the operations that need its wire models only when they are
called: `status` and `logs` make no pool, network or search call and so never build those models (issue 56: the
tools answer in under a second)."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType


def loaded(module: str) -> ModuleType:
    """`module` (relative to the client, e.g. ".pool_models"), imported once, at the first call."""
    return import_module(module, __package__)
