"""Run the local billing service as a subprocess for tests.

    from billing_emulator.testing import running_billing

    with running_billing(tmp_path) as bss:
        bss.url, bss.access_key, bss.secret_key
        bss.counters()   # {"rate_on_demand": n, "total": n}
        bss.set_faults([{"spec": "modelarts.vm.cpu.2u", "result": {"amount": -100}}])  # a bad answer; clear_faults()
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

from local_cloud.server import LocalServerProcess, LocalStartError, ServerKind

from . import config as c


class BillingStartError(LocalStartError):
    pass


class RunningBilling(LocalServerProcess):
    kind = ServerKind(module="billing_emulator", label="local billing", control_prefix=c.CONTROL_PREFIX,
                      log_name="billing.log", access_key=c.DEFAULT_ACCESS_KEY, secret_key=c.DEFAULT_SECRET_KEY)
    start_error = BillingStartError

    def _state_argv(self) -> list[str]:
        return []  # no state: the price list is read at start


@contextlib.contextmanager
def running_billing(tmp_path: Path | str, **flags: Any) -> Iterator[RunningBilling]:
    with RunningBilling(tmp_path, **flags).start() as bss:
        yield bss
