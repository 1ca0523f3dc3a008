"""The plugin's tests drive its async handlers with asyncio.run(), which leaves the thread without an event
loop. Pulumi's in-process runtime (mocks, in-process programs) of tests that run after them in the same
worker keeps its root stack resource bound to the loop it was made on, so the loop the thread had before is
put back: the worker is left as it was found (a new loop instead fails them with "await wasn't used with
future")."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _the_threads_event_loop_put_back() -> Iterator[None]:
    policy = asyncio.get_event_loop_policy()
    try:
        before = policy.get_event_loop()
    except RuntimeError:
        before = None
    yield
    policy.set_event_loop(before if before is not None and not before.is_closed() else policy.new_event_loop())
