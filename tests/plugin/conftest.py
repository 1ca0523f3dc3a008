"""The plugin's tests drive its async handlers with asyncio.run(), which leaves the thread without an event
loop; Pulumi's synchronous APIs in tests that run after them in the same worker need one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _an_event_loop_for_the_next_test() -> Iterator[None]:
    yield
    asyncio.set_event_loop(asyncio.new_event_loop())
