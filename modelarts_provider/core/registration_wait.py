"""Keep the Pulumi Python SDK's end-of-program wait linear in the number of resources.

A stack program declares its resources synchronously: the language host runs the module, then calls the
SDK's `wait_for_rpcs`. At that moment none of the scheduled registrations has started yet, so the SDK's
list of RPCs is empty and it goes straight to its last loop: `asyncio.wait(every pending Output,
FIRST_COMPLETED)` again and again until all are resolved. Each round adds and removes a callback on every
pending Output (about 50 per TrainingJob) and ends as soon as one resource's create returns: rounds x
pending grows as N². Measured under the real engine with a 300-job sweep: 399 rounds over 2.0 million
pending Outputs (up to 12,940 at once); the program used 11.7 CPU seconds, and 4.0 with this module
(`./dev bench`, the program's CPU column; docs/benchmarks.md).

One already-finished entry in that list is enough: the SDK then awaits the registrations one by one (as it
does for any program that awaits something) and reaches the Output loop only when they are all done, with
next to nothing left pending. Nothing else of the SDK's behaviour changes: the entry is done, so awaiting
it returns at once, and errors of the registrations are reported exactly as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

# The RPC list already given its entry: a new program run (Automation API) gets a new list.
_PRIMED: list[Any] | None = None


def await_registrations_first() -> bool:
    """Put one finished entry in the SDK's RPC list of this program run, once; True when it did.

    Outside a running program (no event loop running: unit tests under mocks, plain imports) it does
    nothing: there is no end-of-program wait to shape."""
    global _PRIMED
    try:
        from pulumi.runtime.settings import _get_rpc_manager

        loop = asyncio.get_running_loop()
        rpcs = _get_rpc_manager().rpcs
    except (ImportError, AttributeError, RuntimeError):
        return False
    if rpcs is _PRIMED or not isinstance(rpcs, list):
        return False
    done = loop.create_future()
    done.set_result(None)
    rpcs.append(done)
    _PRIMED = rpcs
    return True
