"""A Pulumi program run in this process under Pulumi's own mocks (`pulumi.runtime.set_mocks`), with every
dynamic resource's inputs put through its provider's real `check`, as a preview would.

What a `pulumi preview` of a bad config shows is made by plain Python: the program's validation (a
`pulumi.RunError`) or a provider's `check` (a `CheckFailure`). This runs both where they are made, in
milliseconds instead of an engine start-up, and returns the refusal in the form the real preview suite
reads it (`refusal()` of tests/bad_input/test_engine_paths.py): `error:` texts joined by '; ', a check
failure as `<property>: <reason>` (a nested one's path leads its reason).

Faithful to the engine where it matters for messages: config values reach the program as the engine
hands them over (strings; maps and lists as JSON; the keys in PULUMI_CONFIG; secret keys marked), and
resource inputs cross the same protobuf serialization (whole numbers arrive as floats) before `check`.
tests/bad_input/test_engine_paths.py runs one case per kind of message path through a real preview and
asserts the same line, so the two cannot drift apart unnoticed.
"""

from __future__ import annotations

import asyncio

import base64
import json
import os
import runpy
import socket
from collections.abc import Iterator, Mapping
from contextlib import chdir, contextmanager
from unittest import mock
from pathlib import Path
from typing import Any

import dill
import pulumi
from pulumi.dynamic import ConfigureRequest
from pulumi.dynamic.dynamic import Config as DynamicConfig
from pulumi.runtime import mocks, settings
from pulumi.runtime.stack import wait_for_rpcs
from pulumi.runtime.sync_await import _sync_await

from modelarts_provider.stack.run import InputRefused

PROVIDER_KEY = "__provider"


def engine_value(value: Any) -> str:
    """A config value as the engine passes it to a program: a string as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


class CheckingMocks(pulumi.runtime.Mocks):
    """Resources are accepted as declared, after their provider's `check` (dynamic resources only)."""

    def __init__(self, config: Mapping[str, str]) -> None:
        self.config = dict(config)
        self.failures: list[str] = []
        self.types: list[str] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.types.append(args.typ)
        inputs = dict(args.inputs)
        state = dict(inputs)
        if PROVIDER_KEY in inputs:
            provider = dill.loads(base64.b64decode(inputs[PROVIDER_KEY]))
            # configure() as the dynamic-provider process calls it, without its orphan watchdog (this
            # process has no engine to outlive).
            with mock.patch("modelarts_provider.core.provider_base.start_orphan_watchdog", lambda: None):
                provider.configure(ConfigureRequest(DynamicConfig(self.config, pulumi.get_project())))
            result = provider.check({}, inputs)
            # as the engine prints them: a failure without a property is the resource's (failures.for_engine)
            self.failures += [f"{f.property}: {f.reason}" if f.property else f.reason for f in result.failures or []]
        if args.typ == "random:index/randomPassword:RandomPassword":
            state.setdefault("result", "s" * 48)  # the stack's owner seed (modelarts_provider.core.identity)
        elif args.typ.startswith("random:"):
            state.setdefault("result", "abcdef")
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        return {}, []


# Connections attempted in this process under no_network() (each one refused).
REFUSED: list[Any] = []


@contextmanager
def no_network() -> Iterator[None]:
    """Every connection is refused, as at the suite's OFFLINE address: validation and the static checks
    make no API call (a bad config is refused before any), and the catalog check of a valid job
    (training_job/catalog_check.py) finds the catalogs unreadable and skips with its note. Attempts are
    recorded in REFUSED."""
    def refuse(*args: Any, **_kw: Any) -> None:
        REFUSED.append(args[1:] or args)
        raise ConnectionRefusedError(111, "Connection refused (tests/bad_input: no network)")

    with mock.patch.object(socket.socket, "connect", refuse), mock.patch.object(socket, "create_connection", refuse):
        yield


# Credentials and settings a developer's shell may hold must not reach the program (the real preview
# suite's stacks run with them removed too: tests/e2e/harness.pulumi_env).
_CLEARED_PREFIXES = ("PULUMI_", "HW_", "OS_")


def _ensure_event_loop() -> None:
    """The SDK registers resources on the main thread's current loop; an earlier test's `asyncio.run` in this
    worker leaves none (it sets it to None), which would fail this program whatever its config."""
    try:
        asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())


def run_program(program: Path, config: Mapping[str, Any], secret_keys: set[str], *, cwd: Path,
                project: str, stack: str = "test") -> tuple[str, CheckingMocks]:
    """Run `program` (a `__main__.py`) at preview under mocks with `config` (YAML-shaped values, secrets in
    plaintext and named in `secret_keys`), in `cwd`. Returns (the refusal, or '' when accepted; the mocks)."""
    engine_config = {k: engine_value(v) for k, v in config.items()}
    fake = CheckingMocks(engine_config)
    texts: list[str] = []
    handed_over = {"PULUMI_CONFIG": json.dumps(engine_config),
                   "PULUMI_CONFIG_SECRET_KEYS": json.dumps(sorted(secret_keys))}
    with mock.patch.dict(os.environ, handed_over), no_network(), chdir(cwd):
        for key in [k for k in os.environ if k.startswith(_CLEARED_PREFIXES) and k not in handed_over]:
            del os.environ[key]  # patch.dict puts them back
        settings.reset_options()
        _ensure_event_loop()
        mocks.set_mocks(fake, project=project, stack=stack, preview=True)
        pulumi.runtime.set_all_config(engine_config, sorted(secret_keys))
        try:
            runpy.run_path(str(program), run_name="__main__")
            _sync_await(wait_for_rpcs())
        except (pulumi.RunError, InputRefused) as err:  # the program's refusal (stack/run.py)
            texts.append(str(err))
    texts += fake.failures
    return "; ".join(dict.fromkeys(texts)), fake
