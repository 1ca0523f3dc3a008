"""Our resources are recorded without the interpreter's frames beneath the program (core/short_stack_trace.py).

The SDK's own stack capture runs under the wrapper, beneath a program that runs in asyncio's event loop on a
thread of its own (so every frame beneath the program is the standard library's, as under the language host).
The state the engine keeps is checked in tests/e2e/test_installed_package.py (the installed stack program).
"""

from __future__ import annotations

import asyncio
import threading
import pytest
from pulumi.runtime import resource as sdk_resource

from modelarts_provider.core.short_stack_trace import (RuntimePaths, frames_to_keep, is_runtime_frame,
                                                        position_only, runtime_frames_dropped, runtime_paths)

WHERE = RuntimePaths(sdk="file:///venv/lib/python3.11/site-packages/pulumi/",
                     stdlib="file:///usr/lib/python3.11/",
                     installed=("file:///venv/lib/python3.11/site-packages/", "file:///usr/lib/python3.11/site-packages/"))

# As the SDK sends it under the language host (the frames of a 1,000-job sweep's state), topmost first.
UNDER_THE_LANGUAGE_HOST = [
    "file:///proj/.venv/lib/python3.11/site-packages/modelarts_provider/training_job/resource.py",
    "file:///proj/.venv/lib/python3.11/site-packages/modelarts_provider/stack/declare.py",
    "file:///proj/__main__.py",
    "", "",  # runpy, frozen: no position
    "file:///home/u/.pulumi/bin/pulumi-language-python-exec",
    "file:///venv/lib/python3.11/site-packages/pulumi/runtime/stack.py",
    "file:///usr/lib/python3.11/asyncio/base_events.py",
    "file:///home/u/.pulumi/bin/pulumi-language-python-exec",
]


def test_the_trailing_runtime_frames_are_dropped_and_the_program_s_kept() -> None:
    assert frames_to_keep(UNDER_THE_LANGUAGE_HOST, WHERE) == 3


@pytest.mark.parametrize(("uri", "runtime"), [
    ("", True),
    ("file:///opt/pulumi/bin/pulumi-language-python-exec", True),
    ("file:///venv/lib/python3.11/site-packages/pulumi/runtime/stack.py", True),
    ("file:///usr/lib/python3.11/asyncio/events.py", True),
    # A system Python's site-packages lies in the standard library's directory: our library, the user's code.
    ("file:///usr/lib/python3.11/site-packages/modelarts_provider/stack/run.py", False),
    ("file:///usr/lib/python3.11/site-packages/pulumi/resource.py", False),  # another Python's, not the SDK in use
    ("file:///venv/lib/python3.11/site-packages/pulumi_random/random_id.py", False),
    ("file:///proj/__main__.py", False),
])
def test_what_is_a_runtime_frame(uri: str, runtime: bool) -> None:
    assert is_runtime_frame(uri, WHERE) is runtime


def test_a_program_s_frame_beneath_runtime_frames_keeps_everything_above_it() -> None:
    # A program that declares from a callback the SDK runs (an apply): the runtime frames above stay.
    uris = ["file:///proj/__main__.py", "file:///venv/lib/python3.11/site-packages/pulumi/output.py",
            "file:///proj/lib.py", "file:///usr/lib/python3.11/asyncio/events.py"]
    assert frames_to_keep(uris, WHERE) == 3


def test_a_trace_of_runtime_frames_only_is_kept_whole() -> None:
    uris = ["file:///usr/lib/python3.11/asyncio/events.py", ""]
    assert frames_to_keep(uris, WHERE) == 2


class _Resource:  # the SDK's hierarchy: the capture skips the three innermost constructors
    def __init__(self) -> None:
        self.trace = sdk_resource._get_stack_trace()


class _Custom(_Resource):
    def __init__(self) -> None:
        super().__init__()


class _Job(_Custom):
    def __init__(self, drop: bool) -> None:
        if drop:
            with runtime_frames_dropped() as wrapped:
                assert wrapped
                super().__init__()
        else:
            super().__init__()


def _declare(drop: bool) -> list[str]:  # the user's program: a frame of this file
    job = _Job(drop)
    return [f.pc.uri if f.HasField("pc") else "" for f in job.trace.frames]


def _under_an_event_loop_on_its_own_thread(drop: bool, position: bool = False) -> list[str]:
    got: list[list[str]] = []

    async def program() -> None:
        if position:
            with position_only():  # the stack program's declarations
                got.append(_declare(drop))
        else:
            got.append(_declare(drop))

    thread = threading.Thread(target=asyncio.run, args=(program(),))
    thread.start()
    thread.join()
    return got[0]


def test_only_a_registration_under_the_context_is_shortened() -> None:
    with runtime_frames_dropped():
        pass  # the SDK's capture is wrapped from now on
    whole = _under_an_event_loop_on_its_own_thread(drop=False)
    short = _under_an_event_loop_on_its_own_thread(drop=True)
    here = __file__.replace("\\", "/")
    where = runtime_paths()
    assert len(whole) > len(short) >= 1
    assert short == whole[:len(short)]  # the same frames, topmost first: the source position is kept
    assert all(not is_runtime_frame(u, where) for u in short), short
    assert all(is_runtime_frame(u, where) for u in whole[len(short):]), whole
    assert short[-1].endswith(here.rsplit("/", 1)[-1])  # down to the program's outermost frame


def test_the_wrapper_is_installed_once() -> None:
    with runtime_frames_dropped():
        first = sdk_resource._get_stack_trace
    with runtime_frames_dropped():
        assert sdk_resource._get_stack_trace is first
    assert not hasattr(getattr(first, "modelarts_wraps"), "modelarts_wraps")



def test_the_stack_programs_jobs_keep_their_declarations_position_alone() -> None:
    with runtime_frames_dropped():
        pass  # the SDK's capture is wrapped from now on
    short = _under_an_event_loop_on_its_own_thread(drop=True)
    position = _under_an_event_loop_on_its_own_thread(drop=True, position=True)
    assert len(short) > 1 and position == short[:1]  # the source position, and no frame beneath it
    # only a registration under both contexts: another resource of the same program is recorded as the SDK does
    assert _under_an_event_loop_on_its_own_thread(drop=False, position=True) == \
        _under_an_event_loop_on_its_own_thread(drop=False)
