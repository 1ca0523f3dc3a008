"""Record our resources' declarations without the interpreter's own frames: a smaller state for big sweeps.

The Python SDK sends, with every resource it registers, the whole call stack below the declaration, and the
engine keeps it in the state (`stackTrace`). Beneath the program's own frames lie the same ten frames for
every resource: the language host, the SDK's stack runner and asyncio's event loop. In a TrainingJob's state
they were 1,100 of 4,960 bytes; the file backend rewrites the whole state after every step, so a sweep of N
jobs writes them about N² times (the engine's checkpoints are three quarters of its CPU at 300 jobs:
benchmarks/results/scale/breakdown.md).

While a TrainingJob registers (the resource a sweep multiplies; the others are one or a few per stack),
that trailing run of frames is dropped: every frame from the declaration down to the outermost frame of the
user's program (their `__main__.py`, our library's frames in between) is kept, so the source position (the
first frame) and every frame that says something are recorded as before. Every other resource of the
program is recorded exactly as the SDK records it. The stack program's jobs keep their position alone
(`position_only`): every other frame of theirs is this package's own.
"""

from __future__ import annotations

import contextvars
import os
import pathlib
import sysconfig
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

_DROPPING: contextvars.ContextVar[bool] = contextvars.ContextVar("modelarts_short_stack_trace", default=False)
# Only the declaration's own position (the first frame): the stack program's jobs, whose every other frame is the same
# library code under each job (position_only).
_POSITION_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("modelarts_position_only", default=False)
# The language host runs the program from this script (pulumi-language-python's bin directory).
_LANGUAGE_HOST = "pulumi-language-python-exec"


class RuntimePaths(NamedTuple):
    """Where the frames beneath every declaration live, as file URI prefixes."""

    sdk: str  # the pulumi package
    stdlib: str  # the standard library (asyncio's event loop, runpy)
    installed: tuple[str, ...]  # site-packages: inside a system Python's stdlib directory, and not runtime


def _uri_prefix(path: str) -> str:
    # Not resolved: the SDK makes its URIs from the frames' file names as imported.
    return pathlib.Path(os.path.abspath(path)).as_uri().rstrip("/") + "/"


def runtime_paths() -> RuntimePaths:
    import pulumi

    paths = sysconfig.get_paths()
    return RuntimePaths(sdk=_uri_prefix(os.path.dirname(pulumi.__file__)),
                        stdlib=_uri_prefix(paths["stdlib"]),
                        installed=tuple(_uri_prefix(paths[k]) for k in ("purelib", "platlib") if paths.get(k)))


def is_runtime_frame(uri: str, where: RuntimePaths) -> bool:
    """A frame that is the same beneath every declaration: no position (frozen modules), the language host,
    the SDK, the standard library (not what is installed in it: our library, the user's packages)."""
    if not uri or uri.rsplit("/", 1)[-1] == _LANGUAGE_HOST or uri.startswith(where.sdk):
        return True
    return uri.startswith(where.stdlib) and not uri.startswith(where.installed)


def frames_to_keep(uris: list[str], where: RuntimePaths) -> int:
    """How many of the frames (topmost first, as the SDK sends them) to keep: all but the trailing run of
    runtime frames; all of them when every frame is a runtime frame (nothing would be left to say where)."""
    keep = len(uris)
    while keep > 0 and is_runtime_frame(uris[keep - 1], where):
        keep -= 1
    return keep or len(uris)


def _shortened(get_stack_trace: Callable[[], Any]) -> Callable[[], Any]:
    where = runtime_paths()

    def get_short_stack_trace() -> Any:
        trace = get_stack_trace()
        if not _DROPPING.get():
            return trace
        uris = [frame.pc.uri if frame.HasField("pc") else "" for frame in trace.frames]
        keep = min(1, len(uris)) if _POSITION_ONLY.get() else frames_to_keep(uris, where)
        if keep < len(uris):
            del trace.frames[keep:]
        return trace

    get_short_stack_trace.modelarts_wraps = get_stack_trace  # type: ignore[attr-defined]
    return get_short_stack_trace


def _install() -> bool:
    """Wrap the SDK's stack capture once; False when this SDK has no such function (then nothing changes)."""
    try:
        from pulumi.runtime import resource as sdk_resource
    except ImportError:
        return False
    current = getattr(sdk_resource, "_get_stack_trace", None)
    if current is None:
        return False
    if not hasattr(current, "modelarts_wraps"):
        sdk_resource._get_stack_trace = _shortened(current)  # type: ignore[attr-defined]
    return True


@contextmanager
def runtime_frames_dropped() -> Iterator[bool]:
    """Around one of our resources' registration (the SDK captures the stack synchronously, in the
    resource's constructor). Yields whether the SDK's capture could be wrapped."""
    installed = _install()
    token = _DROPPING.set(True)
    try:
        yield installed
    finally:
        _DROPPING.reset(token)


@contextmanager
def position_only() -> Iterator[None]:
    """Around the stack program's declarations: a job's record keeps its declaration's position alone. Beneath it
    lie only this package's frames (the same under every job of a sweep: declare, run, the program's __main__);
    the program the user wrote is the stack config. One frame of four: 6 % of a job's state, written about N times
    by a sweep's checkpoints."""
    token = _POSITION_ONLY.set(True)
    try:
        yield
    finally:
        _POSITION_ONLY.reset(token)
