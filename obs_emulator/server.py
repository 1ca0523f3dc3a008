"""The local OBS's HTTP server: a threaded ``http.server`` in front of moto's S3 WSGI app.

Per request: controls (``/_obs/*``, no auth) are answered here; anything else is counted, may hit an
armed fault (status or connection reset, the request is then not applied), must carry a valid signature
with the configured AK/SK (auth.py: V4, V2 or OBS's own), is passed to moto's S3 app in path style (a
virtual-hosted ``bucket.localhost`` request is rewritten first: addressing.py), and a successful
write is persisted (store.py) before the answer goes out, so an acknowledged write survives a
restart. HTTP/1.1 keep-alive: clients reuse their connections as they would with OBS.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import time
import traceback
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, unquote_to_bytes
from xml.sax.saxutils import escape

from pydantic import ValidationError

from local_cloud.server import LocalHTTPServer, reset_connection

from . import addressing, auth
from .config import CONTROL_PREFIX, ObsEmulatorConfig
from .faults import Controls, FaultRules, operation_of
from .obs_dialect import create_bucket_body, request_header_name, response_headers, speaks_obs
from .store import Store

_WRITE_METHODS = frozenset({"PUT", "POST", "DELETE"})
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "date",
                         "server", "x-amz-request-id"})  # our own request id replaces moto's
_NO_PERSIST = frozenset({"upload_part", "multipart"})  # in-flight multipart state is not kept


def _moto_app() -> Callable[..., Any]:
    # imported here: moto takes ~1 s to import, argparse --help should not wait for it
    from moto.moto_server.werkzeug_app import create_backend_app

    return create_backend_app("s3")  # the S3 service alone: no dispatch on the Host header


def _location(region: str) -> bytes:
    return ('<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<LocationConstraint>{escape(region)}</LocationConstraint></CreateBucketConfiguration>").encode()


def error_xml(code: str, message: str, resource: str, request_id: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{escape(code)}</Code><Message>{escape(message)}</Message>"
            f"<Resource>{escape(resource)}</Resource><RequestId>{request_id}</RequestId></Error>").encode()


def _digest_problem(content_md5: str | None, body: bytes) -> tuple[str, str] | None:
    """(code, message) when a Content-MD5 header is malformed or does not match the body."""
    if content_md5 is None:
        return None
    try:
        given = base64.b64decode(content_md5, validate=True)
    except ValueError:
        given = b""
    if len(given) != 16:
        return "InvalidDigest", "the Content-MD5 you specified is not valid"
    if given != hashlib.md5(body).digest():  # noqa: S324 - an integrity check, as the service's
        return "BadDigest", "the Content-MD5 you specified did not match what was received"
    return None


class ObsServer(LocalHTTPServer):
    def __init__(self, config: ObsEmulatorConfig) -> None:
        self.config = config
        self.controls = Controls()
        self.app = _moto_app()
        self.store = Store(config.db_path) if config.db_path is not None else None
        self.restored = self.store.restore() if self.store is not None else (0, 0)
        super().__init__((config.host, config.port), Handler)

    def server_close(self) -> None:
        super().server_close()
        if self.store is not None:
            self.store.close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "OBS"
    sys_version = ""
    disable_nagle_algorithm = True
    server: ObsServer

    def _handle(self) -> None:
        raw_path, _, raw_query = self.path.partition("?")
        if raw_path.startswith(CONTROL_PREFIX):
            self._control(raw_path[len(CONTROL_PREFIX):])
            return
        body = self._read_body()
        if body is None:
            self.close_connection = True
            self._send_error(400, "IncompleteBody", "You did not provide the number of bytes specified by the "
                             "Content-Length HTTP header.", raw_path, uuid.uuid4().hex[:16].upper())
            return
        if self.server.config.latency_ms:
            time.sleep(self.server.config.latency_ms / 1000)
        headers = {k.lower(): v for k, v in self.headers.items()}
        target = addressing.addressed(headers.get("host", ""), raw_path)
        bucket, _, key = unquote(target.path).lstrip("/").partition("/")
        query = {k: v[0] for k, v in parse_qs(raw_query, keep_blank_values=True).items()}
        op = operation_of(self.command, bucket or None, key or None, query)
        request_id = uuid.uuid4().hex[:16].upper()
        srv = self.server
        srv.controls.count(op)

        fault = srv.controls.fault_for(op)
        if fault is not None and fault.kind == "reset":
            self._reset_connection()
            return
        if fault is not None:
            extra = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            self._send_error(fault.status, "ServiceUnavailable" if fault.status == 503 else "InternalError",
                             f"injected fault (HTTP {fault.status})", raw_path, request_id, extra)
            return

        if self.command == "HEAD" and "apiversion" in query and "authorization" not in headers:
            self._answer_api_version(target.path, bucket, request_id)
            return

        refused = auth.verify(self.command, raw_path, raw_query, headers, body, srv.config,
                              v2_resource=addressing.signed_resource(target, raw_path))
        if refused is not None:
            self._send_error(refused.status, refused.code, refused.message, raw_path, request_id)
            return

        bad_digest = _digest_problem(headers.get("content-md5"), body)
        if bad_digest is not None:  # moto does not check it; OBS and S3 do
            self._send_error(400, bad_digest[0], bad_digest[1], raw_path, request_id)
            return

        obs_dialect = speaks_obs(headers.get("authorization", ""))
        if obs_dialect and op == "create_bucket":
            body = create_bucket_body(body)
        if op == "create_bucket" and not body:  # no LocationConstraint: the bucket lives in --region, as
            body = _location(srv.config.region)   # documented (moto would refuse it outside us-east-1)
        status, out_headers, payload = self._call_app(target.path, raw_query, body, obs_dialect=obs_dialect)
        if obs_dialect:
            out_headers = response_headers(out_headers)
        if self.command in _WRITE_METHODS and 200 <= status < 300 and bucket and srv.store is not None \
                and op not in _NO_PERSIST:
            if key and op in ("put_object", "copy_object", "delete_object"):
                srv.store.sync_key(bucket, key)
            else:
                srv.store.sync_bucket(bucket)
        self._respond(status, out_headers, payload, request_id, "x-obs-" if obs_dialect else "x-amz-")

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

    # --- pieces --------------------------------------------------------------------------------------

    def _answer_api_version(self, app_path: str, bucket: str, request_id: str) -> None:
        """esdk-obs-python's signature negotiation: an unsigned ``HEAD /[bucket]?apiversion`` before its first
        request to a bucket; the real OBS answers ``x-obs-api: 3.0`` (the SDK then signs with OBS's scheme) and
        404 for a bucket that does not exist. Nothing about the bucket but its existence is told."""
        status = 200
        if bucket:
            status = self._call_app(app_path, "", b"", method="HEAD")[0]
            status = 404 if status == 404 else 200
        self._respond(status, [("x-obs-api", "3.0")] if status == 200 else [], b"", request_id)

    def _read_body(self) -> bytes | None:
        """The whole request body, or None when the client stopped sending before its end (it was killed, or
        its connection dropped): OBS and S3 store nothing then (IncompleteBody), where a short read taken as the
        body would replace an object, a team's stack checkpoint among them, with its first bytes."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                line = self.rfile.readline()
                if not line.endswith(b"\n"):
                    return None  # the connection ended inside the chunk list
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunk = self.rfile.read(size)
                if len(chunk) < size:
                    return None
                chunks.append(chunk)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        return body if len(body) == length else None

    def _environ(self, raw_path: str, raw_query: str, body: bytes, method: str,
                 obs_dialect: bool) -> dict[str, Any]:
        # moto reads a bucket from a Host like bucket.localhost: it is always given the path-style form
        own = f"{self.server.server_address[0]}:{self.server.server_address[1]}"
        host = self.headers.get("Host") or own
        if addressing.host_bucket(host) is not None:
            host = own
        uri = raw_path + ("?" + raw_query if raw_query else "")  # path style, whatever the client sent
        env: dict[str, Any] = {
            "REQUEST_METHOD": method, "SCRIPT_NAME": "",
            # WSGI: PATH_INFO is the decoded path as latin-1 text; the raw target stays in REQUEST_URI
            "PATH_INFO": unquote_to_bytes(raw_path).decode("latin-1"),
            "QUERY_STRING": raw_query, "REQUEST_URI": uri, "RAW_URI": uri,
            "SERVER_NAME": host.split(":", 1)[0], "SERVER_PORT": str(self.server.server_address[1]),
            "SERVER_PROTOCOL": self.request_version, "REMOTE_ADDR": self.client_address[0],
            "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in self.headers.items():
            key = (request_header_name(name) if obs_dialect else name).upper().replace("-", "_")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH", "TRANSFER_ENCODING"):
                continue
            env["HTTP_" + key] = f"{env['HTTP_' + key]},{value}" if "HTTP_" + key in env else value
        env["HTTP_HOST"] = host
        if not env.get("HTTP_AUTHORIZATION", "").startswith(auth.SCHEME):
            env["HTTP_AUTHORIZATION"] = self._region_for_moto()
        return env

    def _region_for_moto(self) -> str:
        """An (already verified) OBS or V2 signature names no region, so moto would file the request under
        us-east-1, whose backend is not the cn-* partition's: a bucket created that way in --region was then
        unreachable from a V4 client (moto recursed looking for it). moto reads the region of a V4 credential
        scope; it checks no signature."""
        cfg = self.server.config
        return f"{auth.SCHEME} Credential={cfg.access_key}/19700101/{cfg.region}/s3/aws4_request"

    def _call_app(self, raw_path: str, raw_query: str, body: bytes, method: str | None = None,
                  obs_dialect: bool = False) -> tuple[int, list[tuple[str, str]], bytes]:
        started: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            started["status"], started["headers"] = int(status.split(" ", 1)[0]), headers
            return lambda data: None

        try:
            result = self.server.app(self._environ(raw_path, raw_query, body, method or self.command, obs_dialect),
                                     start_response)
            try:
                payload = b"".join(result)
            finally:
                getattr(result, "close", lambda: None)()
        except Exception as err:  # a moto bug must not kill the connection thread silently
            traceback.print_exc(file=sys.stderr)
            message = f"{type(err).__name__}: {err}".splitlines()[0][:300]
            return 500, [("Content-Type", "application/xml")], error_xml(
                "InternalError", message, raw_path, "-")
        return started["status"], started["headers"], payload

    def _respond(self, status: int, headers: list[tuple[str, str]], payload: bytes, request_id: str,
                 dialect_prefix: str = "x-amz-") -> None:
        self.send_response(status)
        app_length = None
        for name, value in headers:
            if name.lower() == "content-length":
                app_length = value
            if name.lower() not in _HOP_BY_HOP and name.lower() != dialect_prefix + "request-id":
                self.send_header(name, value)
        self.send_header(dialect_prefix + "request-id", request_id)
        if self.command == "HEAD":  # no body; the length is the object's, as the app said
            self.send_header("Content-Length", app_length or "0")
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    def _send_error(self, status: int, code: str, message: str, resource: str, request_id: str,
                    extra: dict[str, str] | None = None) -> None:
        payload = b"" if self.command == "HEAD" else error_xml(code, message, unquote(resource), request_id)
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("x-amz-request-id", request_id)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    _reset_connection = reset_connection  # no answer, an RST: the client sees a reset mid-request

    def _control(self, name: str) -> None:
        body = self._read_body()
        controls = self.server.controls
        status, reply = 200, {}
        try:
            if name == "counters" and self.command == "GET":
                reply = controls.counters()
            elif name == "reset" and self.command == "POST":
                controls.clear()
                reply = {"reset": True}
            elif name == "faults" and self.command == "POST":
                controls.set_rules(FaultRules.model_validate_json(body or b"{}").rules)
                reply = {"armed": controls.faults_left()}
            elif name == "faults" and self.command == "DELETE":
                controls.set_rules([])
                reply = {"armed": 0}
            elif name == "faults" and self.command == "GET":
                reply = {"armed": controls.faults_left()}
            else:
                status, reply = 404, {"error": f"no control {self.command} /_obs/{name}"}
        except ValidationError as err:
            status, reply = 400, {"error": " ".join(str(err).split())[:500]}
        payload = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        if not self.server.config.quiet:
            super().log_message(format, *args)
