"""The threaded HTTP server wiring an ``EmulatorApp`` to a listening socket."""

from __future__ import annotations

from .config import EmulatorConfig
from local_cloud.server import LocalHTTPServer
from .responses import EmulatorApp, Handler


class EmulatorServer(LocalHTTPServer):
    def __init__(self, config: EmulatorConfig) -> None:
        self.app = EmulatorApp(config)
        super().__init__((config.host, config.port), Handler)

    def server_close(self) -> None:
        super().server_close()
        self.app.close()
