"""Command line: ``python -m billing_emulator [--host H] [--port P] [--prices FILE] ...``."""

from __future__ import annotations

import sys
from pathlib import Path

from local_cloud.server import add_credential_flags, listen_parser, serve

from . import config as c
from .config import BillingConfig


def config_from_args(argv: list[str] | None = None) -> BillingConfig:
    p = listen_parser("python -m billing_emulator",
                      "Local billing: Huawei Cloud BSS's rating API for pay-per-use resources "
                      "(POST /v2/bills/ratings/on-demand-resources) with AK/SK auth and a local price list.",
                      c.DEFAULT_HOST, c.DEFAULT_PORT)
    add_credential_flags(p, c.DEFAULT_ACCESS_KEY, c.DEFAULT_SECRET_KEY, "X-Security-Token")
    p.add_argument("--prices", type=Path, default=c.DEFAULT_PRICES,
                   help="price list: {currency, hourly: {resource_spec: price per hour}}")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    a = p.parse_args(argv)
    return BillingConfig(host=a.host, port=a.port, access_key=a.access_key, secret_key=a.secret_key,
                         security_token=a.security_token, prices=a.prices, quiet=not a.verbose)


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_args(argv)
    from .server import BillingServer

    server = BillingServer(cfg)
    return serve(server, f"billing emulator listening on {server.url} (prices {cfg.prices})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
