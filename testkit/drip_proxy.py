"""A hostile network between the client and a local cloud (issue 43, finding 4): an HTTP proxy that passes every
request to its upstream as it came (the signature's Host header included) and answers as the upstream did, except
that answers to the requests a rule picks are dripped, `drip_bytes` every `drip_every_s` (a slow server), or never
sent at all (`stall`: a half-open connection that still takes bytes). Answers carry `Connection: close`: every
request comes on a connection of its own, so a rule sees each one.

    with drip_proxy(emu.url, lambda method, path: method == "GET" and JOB_GET.match(path)) as proxy:
        ...  # point modelarts:endpoint at proxy.url; proxy.dripping counts the answers being dripped

`stalled_tls_server()` is a server that accepts TCP connections and never answers: a TLS handshake to it stalls.
`ended(call, bound_s)` runs a call that such a network slows on a thread of its own: how it ended, and when.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Rule = Callable[[str, str], object]  # (method, path) -> drip this answer?


@dataclass
class DripProxy:
    url: str
    drip_bytes: int
    drip_every_s: float
    stall: bool
    dripping: int = 0  # answers picked by the rule so far
    _lock: threading.Lock = field(default_factory=threading.Lock)


def read_request(conn: socket.socket) -> bytes | None:
    """One whole HTTP/1.1 request off `conn` (head, then Content-Length bytes of body); None if the peer closes
    before the end of the head. Also the SDK request recorder's (scripts/capture_sdk_requests)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def _with_close(raw: bytes) -> bytes:
    """The request or answer with `Connection: close` in place of any Connection header."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    lines = [ln for ln in head.split(b"\r\n") if not ln.lower().startswith(b"connection:")]
    return b"\r\n".join(lines + [b"Connection: close"]) + sep + body


def _forward(upstream: tuple[str, int], request: bytes) -> bytes:
    with socket.create_connection(upstream, timeout=60) as up:
        up.sendall(_with_close(request))
        answer = b""
        while True:
            chunk = up.recv(65536)
            if not chunk:
                return answer
            answer += chunk


def _serve(proxy: DripProxy, conn: socket.socket, upstream: tuple[str, int], rule: Rule,
           stop: threading.Event) -> None:
    with conn:
        try:
            request = read_request(conn)
            if request is None:
                return
            method, path = request.split(b" ", 2)[:2]
            path_text = urllib.parse.urlsplit(path.decode()).path
            picked = bool(rule(method.decode(), path_text))
            answer = _with_close(_forward(upstream, request))
            if not picked:
                conn.sendall(answer)
                return
            with proxy._lock:
                proxy.dripping += 1
            if proxy.stall:
                while not stop.wait(0.2):  # takes what comes, sends nothing
                    pass
                return
            for i in range(0, len(answer), proxy.drip_bytes):
                if stop.is_set():
                    return
                conn.sendall(answer[i:i + proxy.drip_bytes])
                time.sleep(proxy.drip_every_s)
        except OSError:
            return  # the client gave up (its call was cut): nothing to tell


@contextlib.contextmanager
def drip_proxy(upstream_url: str, rule: Rule, *, drip_bytes: int = 1, drip_every_s: float = 0.5,
               stall: bool = False) -> Iterator[DripProxy]:
    parts = urllib.parse.urlsplit(upstream_url)
    upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
    proxy_of: list[DripProxy] = []  # made once the port is known; connections come only after it is handed out

    def serve(conn: socket.socket, stop: threading.Event) -> None:
        threading.Thread(target=_serve, args=(proxy_of[0], conn, upstream, rule, stop), daemon=True).start()

    with _listening(serve) as port:
        proxy_of.append(DripProxy(f"http://127.0.0.1:{port}", drip_bytes, drip_every_s, stall))
        yield proxy_of[0]


@contextlib.contextmanager
def stalled_tls_server() -> Iterator[str]:
    """An https:// URL whose server accepts the TCP connection and never says a word (a stalled handshake)."""
    held: list[socket.socket] = []
    try:
        with _listening(lambda conn, stop: held.append(conn)) as port:
            yield f"https://127.0.0.1:{port}"
    finally:
        for conn in held:
            conn.close()


@contextlib.contextmanager
def _listening(on_conn: Callable[[socket.socket, threading.Event], None]) -> Iterator[int]:
    """A local port whose accepted connections go to `on_conn` (with the stop event) until the block ends."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            on_conn(conn, stop)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        server.close()


def ended(call: Callable[[], Any], bound_s: float, what: str = "the call") -> tuple[Any, BaseException | None, float]:
    """Run `call` on a thread: (what it returned, what it raised, seconds it took). Fails when it still runs after
    `bound_s`: the call has no overall deadline."""
    out: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            out["value"] = call()
        except BaseException as err:  # noqa: BLE001 - handed to the test
            out["err"] = err
        out["s"] = time.monotonic() - started

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(bound_s)
    assert not t.is_alive(), f"{what} was still going after {bound_s:g} s: no overall deadline"
    return out.get("value"), out.get("err"), out["s"]
