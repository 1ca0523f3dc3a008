"""The SDK's end-of-program wait stays linear in the number of resources (core/registration_wait.py).

The real SDK's `wait_for_rpcs` runs as the language host runs it after a synchronous program: K registrations
were scheduled, each with M Outputs that resolve when its create returns, and the "engine" returns the
creates one at a time. What is counted is the work of the SDK's Output loop: the pending Outputs it hands to
`asyncio.wait` over all its rounds (each one gets a callback added and removed). No timing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pulumi import Output
from pulumi.runtime import settings
from pulumi.runtime.settings import _get_rpc_manager
from pulumi.runtime.stack import wait_for_rpcs

from modelarts_provider.core import registration_wait
from modelarts_provider.core.registration_wait import await_registrations_first

K, M = 60, 20  # resources, Outputs per resource


def _pending_handed_to_wait(monkeypatch: pytest.MonkeyPatch, prime: bool) -> int:
    handed = [0]
    real_wait = asyncio.wait

    async def counting_wait(fs: Any, **kw: Any) -> Any:
        fs = list(fs)
        handed[0] += len(fs)
        return await real_wait(fs, **kw)

    monkeypatch.setattr(asyncio, "wait", counting_wait)

    async def program_then_wait() -> None:
        settings.reset_options(project="p", stack="s")
        loop = asyncio.get_running_loop()
        creates = [loop.create_future() for _ in range(K)]
        known = loop.create_future()
        known.set_result(True)
        for created in creates:  # the synchronous program: registrations scheduled, Outputs tracked
            async def register(created: asyncio.Future[int] = created) -> int:
                return await created
            asyncio.ensure_future(_get_rpc_manager().do_rpc("register resource", register)())
            for _ in range(M):
                Output(set(), created, known)
        if prime:
            assert await_registrations_first() is True
            assert await_registrations_first() is False  # once per program run

        async def engine() -> None:  # the creates return one by one
            for f in creates:
                await asyncio.sleep(0)
                f.set_result(1)

        asyncio.ensure_future(engine())
        await wait_for_rpcs()

    monkeypatch.setattr(registration_wait, "_PRIMED", None)
    loop = asyncio.new_event_loop()  # not asyncio.run: it would leave the thread without a current loop, which the
    try:                             # SDK's mocks of a later test in this worker need
        loop.run_until_complete(program_then_wait())
    finally:
        loop.close()
    return handed[0]


def test_end_of_program_wait_is_linear_in_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    without = _pending_handed_to_wait(monkeypatch, prime=False)
    with_first = _pending_handed_to_wait(monkeypatch, prime=True)
    # Without it the Output loop sees most of the K x M Outputs again at each of ~K rounds; with it, the
    # registrations are awaited first and the Output loop finds next to nothing pending.
    assert without > K * M * K // 8, without
    assert with_first <= K * M // 10, with_first


def test_outside_a_running_program_nothing_is_done() -> None:
    assert await_registrations_first() is False  # no running event loop: plain import, unit tests
