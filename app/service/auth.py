"""The bearer token every API route but /health needs, and the guard that checks it (plus the body size limit)
on HTTP and WebSocket alike, before any route runs; the web page's paths are checked by its own gate (a
session cookie, `app/web/sessions.py`) instead.

The service listens on loopback, where every program and every web page the user opens can reach it. So
before the token the guard checks what a browser cannot fake: the `Host` header must name this machine
(`127.0.0.1`, `localhost`, `[::1]` or the host `serve` was told), which defeats DNS rebinding; an `Origin`
(on a WebSocket handshake or a POST) must be this service's own origin; a request a browser marks
`Sec-Fetch-Site: cross-site` or `same-site` (another port of 127.0.0.1 is the same site) is refused, and every
answer says `Cross-Origin-Resource-Policy: same-origin`, so another page cannot even embed its audio or faces.
A wrong token is answered late, one at a time per client: guessing costs seconds, not microseconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from app.errors import ConfigError

TOKEN_FILE = "api_token"
OPEN_PATHS = frozenset({"/health"})
MIN_TOKEN_CHARS = 32
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WRONG_TOKEN_DELAY_S = 0.5  # a wrong token is answered this much later, one at a time per client address
CROSS = frozenset({b"cross-site", b"same-site"})


def api_token(data_dir: Path) -> tuple[str, str]:
    """(token, where it came from): $APP_API_TOKEN, else the one generated into the data folder (mode 0600)
    the first time the service starts."""
    if token := os.environ.get("APP_API_TOKEN"):
        if len(token) < MIN_TOKEN_CHARS:
            raise ConfigError(
                f"APP_API_TOKEN has {len(token)} characters: a page on this machine could guess it; use at least "
                f"{MIN_TOKEN_CHARS} (python -c 'import secrets; print(secrets.token_urlsafe(32))'), or unset it"
            )
        return token, "APP_API_TOKEN"
    path = data_dir / TOKEN_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_urlsafe(32) + "\n")
    return path.read_text().strip(), str(path)


def _bearer(scope) -> bytes:
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return value[7:].strip()
    return b""


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def host_name(authority: str) -> str:
    """The host of a `Host` header or an origin's authority, without its port or brackets, lower case."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def _same_origin(origin: str, host: str, tls: bool) -> bool:
    parts = urlsplit(origin)
    return parts.scheme == ("https" if tls else "http") and parts.netloc.lower() == host.strip().lower()


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: the browser checks (see the module's docstring), then a constant-time token check on
    every HTTP request and WebSocket handshake except `OPEN_PATHS` and the web page's (which its `web` gate
    admits by session cookie), and requests larger than `max_body` bytes refused with 413."""

    def __init__(self, app, token: str, max_body: int, web=None, hosts: tuple[str, ...] = (), tls: bool = False):
        self.app, self.token, self.max_body, self.web = app, token.encode(), max_body, web
        self.hosts = LOOPBACK_NAMES | {host_name(h) for h in hosts}
        self.tls = tls
        self._slow: dict[str, asyncio.Lock] = {}

    def _browser_problem(self, scope) -> tuple[int, str] | None:
        """(status, why) a browser's request must not reach the service; None: it may."""
        host = _header(scope, b"host")
        if host is None or host_name(host) not in self.hosts:
            return 421, f"this service answers only to {', '.join(sorted(self.hosts))}, not to Host {host!r}"
        site = _header(scope, b"sec-fetch-site")
        if site is not None and site.encode() in CROSS:
            return 403, "a request from another site's page (Sec-Fetch-Site) is refused"
        origin = _header(scope, b"origin")
        writes = scope["type"] == "websocket" or scope.get("method", "GET") not in ("GET", "HEAD", "OPTIONS")
        if origin is not None and writes and not _same_origin(origin, host, self.tls):
            return 403, f"a request from the page at {origin} is refused"
        return None

    async def _wrong_token(self, scope) -> None:
        """Wait before a wrong token is answered, one refusal at a time per client address."""
        client = (scope.get("client") or ("?", 0))[0]
        lock = self._slow.setdefault(client, asyncio.Lock())
        if len(self._slow) > 1024:  # clients come and go: keep the table small
            self._slow = {client: lock}
        async with lock:
            await asyncio.sleep(WRONG_TOKEN_DELAY_S)

    async def __call__(self, scope, receive, send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if kind == "http":
            send = _same_origin_only(send)
        if (problem := self._browser_problem(scope)) is not None:
            if kind == "websocket":
                await receive()
                return await send({"type": "websocket.close", "code": 1008})
            return await _refuse(send, *problem)
        if scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        if kind == "http" and self.web is not None and self.web.owns(scope["path"]):
            if not await self.web.admit(scope, send):
                return None
        elif not secrets.compare_digest(_bearer(scope), self.token):
            await self._wrong_token(scope)
            if kind == "websocket":
                await receive()  # the connect message; closing before accepting answers the handshake with 403
                return await send({"type": "websocket.close", "code": 1008})
            return await _refuse(send, 401, "missing or wrong bearer token (Authorization: Bearer <token>)")
        if kind == "websocket":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers", ())).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return await _refuse(send, 413, f"request body over {self.max_body // 1024} KiB")
        # the whole body is read here, chunked or not, so an over-long one is refused before any route runs
        body: list[dict] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client went away
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                return await _refuse(send, 413, f"request body over {self.max_body // 1024} KiB")
            body.append(message)
            if not message.get("more_body"):
                break

        async def replay():
            return body.pop(0) if body else await receive()

        await self.app(scope, replay, send)


def _same_origin_only(send):
    """`send` that adds Cross-Origin-Resource-Policy: same-origin to every HTTP answer."""

    async def sending(message):
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", ()) if h[0].lower() != b"cross-origin-resource-policy"]
            message = {**message, "headers": [*headers, (b"cross-origin-resource-policy", b"same-origin")]}
        await send(message)

    return sending
