"""The live site's HTTP layer: the standard library's ThreadingHTTPServer answering GET and HEAD only.

Why the standard library: the site is a handful of pages built in memory, a
small JSON document polled once a second and SVG charts, for a few
browsers on a local network. ``http.server`` does that with no dependency; a
framework (aiohttp, Starlette) would bring an event loop and a package to keep
up to date for nothing the site needs. Each request gets its own thread, so a
slow page build never stalls ``live.json``.

Safety: only GET and HEAD (the site only reads; any other method is 405). The
path is decoded once and split; an empty, ``.`` or ``..`` segment, a
backslash, a NUL or a second ``%`` encoding is refused (404) before anything
looks at it, and what remains is only ever a key into the pages the site
builds (:meth:`arena.report.live_site.LiveSite.answer`), never a file path.
Every answer carries ``X-Content-Type-Options: nosniff`` and a
Content-Security-Policy allowing nothing outside the site.
"""

from __future__ import annotations

import socket
import sys
import threading
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from arena.report.live_site import Answer, LiveSite

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                                "img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"),
}


def split_path(raw: str) -> list[str] | None:
    """The request path's segments, decoded once; None for anything that is not a plain path inside the site."""
    path = raw.split("?", 1)[0].split("#", 1)[0]  # not urlsplit: it reads //etc/passwd as a host and a path
    if not path.startswith("/") or path.startswith("//"):
        return None
    decoded = urllib.parse.unquote(path, errors="strict") if "%" in path else path
    if "%" in decoded or "\\" in decoded or "\x00" in decoded:
        return None
    parts = decoded[1:].split("/")
    if parts[-1] == "":
        parts[-1] = "index.html"  # a folder's own path (/ or NAME/) is its index
    if any(part in ("", ".", "..") for part in parts):
        return None
    return parts


class Handler(BaseHTTPRequestHandler):
    """Answers from the server's :class:`LiveSite`."""

    server: LiveServer
    server_version = "arena-serve"
    sys_version = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._answer(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(send_body=False)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"this site only reads: GET and HEAD\n", "text/plain",
                   {"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse  # noqa: N815

    def _answer(self, send_body: bool) -> None:
        try:
            parts = split_path(self.path)
            found: Answer | None = None if parts is None else self.server.site.answer(parts)
        except Exception as error:  # noqa: BLE001 - one bad request must not stop the site
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"arena serve: {type(error).__name__}\n".encode(),
                       "text/plain", send_body=send_body)
            if self.server.verbose:
                raise
            return
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", send_body=send_body)
        elif found.location:
            self._send(HTTPStatus.MOVED_PERMANENTLY, b"", "text/plain", {"Location": found.location},
                       send_body=send_body)
        else:
            extra = {"X-Arena-Version": found.version} if found.version else {}
            self._send(HTTPStatus.OK, found.body, found.content_type, extra, send_body=send_body)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, extra: dict[str, str] | None = None,
              send_body: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        if self.server.verbose:
            sys.stderr.write(f"arena serve: {self.address_string()} {format % args}\n")


class LiveServer(ThreadingHTTPServer):
    """A threading HTTP server holding the site it serves; request threads do not keep the process alive."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], site: LiveSite, verbose: bool = False) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        self.site = site
        self.verbose = verbose

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/"


def start(site: LiveSite, host: str, port: int, verbose: bool = False,
          parent: int | None = None) -> tuple[LiveServer, threading.Thread]:
    """Listen on ``host``:``port`` (0: a free port) and start the site's sampler; the caller serves forever.

    With ``parent`` (the process of the run it serves beside), the server shuts down once that process is gone.
    """
    server = LiveServer((host, port), site, verbose)
    site.pulse()

    def orphaned() -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    sampler = threading.Thread(target=site.run_sampler, kwargs={"parent": parent, "on_orphan": orphaned},
                               name="arena-serve-sampler", daemon=True)
    sampler.start()
    return server, sampler
