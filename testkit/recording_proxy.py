"""A recording HTTP proxy: each request passes on to its upstream as it came (its Host header included, so a
signature made for the proxy's address is checked upstream as made), and each exchange is kept as the fixtures of
tests/fixtures/terraform keep it: method, path, query, JSON bodies, status, never a header (no key, signature or
token). testkit/terraform.py points Terraform's provider at it.

    with recording_proxy(emu.url) as proxy:
        ...                     # a client sends to proxy.url; proxy.step names what it is doing
        proxy.exchanges         # [Exchange], in the order they came
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel


class Exchange(BaseModel):
    """One request of the provider and the local ModelArts' answer, as the fixtures keep them."""

    at_s: float  # seconds since the recording began (the replay moves the emulator's clock to the same time)
    step: str  # the terraform command it belongs to (apply, plan, update, destroy, ...)
    method: str
    path: str
    query: str
    body: Any = None  # the JSON body sent (None: none)
    status: int
    response: Any = None  # the JSON answer (None: an empty body)


def _json_or_none(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


@dataclass
class RecordingProxy:
    url: str
    upstream: tuple[str, int]
    started: float = field(default_factory=time.monotonic)
    step: str = "init"
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def forward(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        at = time.monotonic() - self.started
        conn = http.client.HTTPConnection(*self.upstream, timeout=120)
        try:
            # skip_host: the provider's own Host header goes on unchanged (it is signed)
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                conn.putheader(name, value)
            conn.endheaders(body or None)
            answer = conn.getresponse()
            status, reply_headers, reply = answer.status, answer.getheaders(), answer.read()
        finally:
            conn.close()
        path, _, query = target.partition("?")
        with self.lock:
            self.exchanges.append(Exchange(at_s=round(at, 3), step=self.step, method=method, path=path, query=query,
                                           body=_json_or_none(body), status=status, response=_json_or_none(reply)))
        return status, reply_headers, reply


def _handler(proxy: RecordingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet: the recording is the log
            pass

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, reply = proxy.forward(self.command, self.path, list(self.headers.items()), body)
            self.send_response_only(status)
            for name, value in headers:
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

    return Handler


@contextlib.contextmanager
def recording_proxy(upstream_url: str) -> Iterator[RecordingProxy]:
    parsed = urllib.parse.urlsplit(upstream_url)
    proxy = RecordingProxy(url="", upstream=(parsed.hostname or "127.0.0.1", parsed.port or 80))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
