"""``python -m modelarts_provider COMMAND``: the provider's command-line tools.

    logs     print (and follow) a training job's task logs (logs_cli.py)
    results  a sweep's results table, best first, and --chart PNG (results/cli.py)
    status   the live phase of every job of a stack, one list call (results/cli.py)
"""

from __future__ import annotations

import argparse
import sys

from .cli import logs as logs_cli
from .cli import results as results_cli


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modelarts_provider",
                                     description="Command-line tools of the ModelArts provider.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    logs_cli.register(commands)
    results_cli.register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
