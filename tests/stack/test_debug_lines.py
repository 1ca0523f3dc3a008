"""The SDK's debug lines without a resource leave the program from one sender thread, in order, and all of them
before the process ends; any other line goes as the SDK sends it (stack/debug_lines.py)."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from modelarts_provider.stack import debug_lines


def _sdk_log(gate: threading.Event | None = None) -> tuple[Any, list[tuple[Any, ...]]]:
    sent: list[tuple[Any, ...]] = []

    def debug(msg: str, resource: Any = None, stream_id: Any = None, ephemeral: Any = None) -> None:
        if gate is not None:
            assert gate.wait(30)  # the engine's answer, held back by the test
        sent.append((msg, resource, stream_id, ephemeral, threading.current_thread().name))

    return SimpleNamespace(debug=debug), sent


def test_lines_are_sent_in_order_from_the_sender_thread_and_flushed() -> None:
    answer = threading.Event()
    log, sent = _sdk_log(answer)
    sender = debug_lines.install(log)
    assert sender is not None
    for i in range(50):
        log.debug(f"line {i}")  # returns while the engine has not answered: the caller never waits for it
    assert sent == []
    answer.set()
    sender.flush()
    assert [s[0] for s in sent] == [f"line {i}" for i in range(50)]
    assert {s[4] for s in sent} == {"pulumi-debug-lines"}  # never the caller's thread


def test_a_line_about_a_resource_goes_as_the_sdk_sends_it_and_install_is_once() -> None:
    log, sent = _sdk_log()
    first = debug_lines.install(log)
    assert debug_lines.install(log) is first  # not wrapped twice
    log.debug("about it", resource="r", stream_id=3)
    assert sent == [("about it", "r", 3, None, threading.current_thread().name)]  # at once, on this thread


def test_a_line_the_engine_refuses_does_not_stop_the_others() -> None:
    sent: list[str] = []

    def debug(msg: str, *_: Any) -> None:
        if msg == "bad":
            raise RuntimeError("engine gone")
        sent.append(msg)

    log = SimpleNamespace(debug=debug)
    sender = debug_lines.install(log)
    assert sender is not None
    for line in ("a", "bad", "b"):
        log.debug(line)
    sender.flush()
    assert sent == ["a", "b"]
