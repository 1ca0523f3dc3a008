"""Optional parts of the package: a command that needs one names the extra that installs it, in one line.

`pip install modelarts-pulumi` brings what the provider itself uses; `[local]` the two local clouds (moto, Flask,
numpy for the example training script), `[charts]` matplotlib for `results --chart`.
"""

from __future__ import annotations

import importlib.util

PACKAGE = "modelarts-pulumi"


class MissingExtra(RuntimeError):
    """A module of an extra that is not installed."""


def missing(modules: tuple[str, ...]) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require(extra: str, what: str, *modules: str) -> None:
    """Raise MissingExtra naming the extra when any of `modules` cannot be imported."""
    absent = missing(modules)
    if absent:
        raise MissingExtra(f"{what} needs {', '.join(absent)}: install {PACKAGE}[{extra}] "
                           f"(pip install '{PACKAGE}[{extra}]')")


def exit_unless(extra: str, what: str, *modules: str) -> None:
    """For a module's __main__: one line on stderr and exit status 1 when the extra is missing."""
    try:
        require(extra, what, *modules)
    except MissingExtra as err:
        raise SystemExit(str(err)) from None
