"""The threaded HTTP server wiring an ``EmulatorApp`` to a listening socket."""

from __future__ import annotations

from http.server import ThreadingHTTPServer

from .config import EmulatorConfig
from .responses import EmulatorApp, Handler


class EmulatorServer(ThreadingHTTPServer):
    daemon_threads = True  # connection threads never block shutdown
    request_queue_size = 256  # bursts of parallel creates must not be refused by the backlog
    allow_reuse_address = True

    def __init__(self, config: EmulatorConfig) -> None:
        self.app = EmulatorApp(config)
        super().__init__((config.host, config.port), Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def server_close(self) -> None:
        super().server_close()
        self.app.close()
