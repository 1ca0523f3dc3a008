"""How the command-line tools print: every line through the one masking step (results.show.printable), tables
on stdout, errors on stderr in one line each, Ctrl-C and a closed pipe ending quietly."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, TextIO

from ..core.extras import MissingExtra
from ..results.show import printable
from .stack_reader import LogsError


def print_line(out: TextIO, text: str) -> None:
    out.write(printable(text) + "\n")
    out.flush()


def note(message: str) -> None:
    print(printable(message), file=sys.stderr, flush=True)


def guarded(name: str, fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except (LogsError, MissingExtra) as err:
            note(f"{name}: {err}")
            return 1
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            sys.stderr.close()
            return 0
    return handler
