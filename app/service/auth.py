"""The bearer token every API route but /health needs, and the guard that checks it (plus the body size limit)
on HTTP and WebSocket alike, before any route runs; the web page's paths are checked by its own gate (a
session cookie, `app/web/sessions.py`) instead."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

TOKEN_FILE = "api_token"
OPEN_PATHS = frozenset({"/health"})


def api_token(data_dir: Path) -> tuple[str, str]:
    """(token, where it came from): $APP_API_TOKEN, else the one generated into the data folder (mode 0600)
    the first time the service starts."""
    if os.environ.get("APP_API_TOKEN"):
        return os.environ["APP_API_TOKEN"], "APP_API_TOKEN"
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


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class TooLarge(Exception):
    pass


class Guard:
    """ASGI middleware: a constant-time token check on every HTTP request and WebSocket handshake except
    `OPEN_PATHS` and the web page's (which its `web` gate admits by session cookie), and requests larger than
    `max_body` bytes refused with 413."""

    def __init__(self, app, token: str, max_body: int, web=None) -> None:
        self.app, self.token, self.max_body, self.web = app, token.encode(), max_body, web

    async def __call__(self, scope, receive, send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        if kind == "http" and self.web is not None and self.web.owns(scope["path"]):
            if not await self.web.admit(scope, send):
                return None
        elif not secrets.compare_digest(_bearer(scope), self.token):
            if kind == "websocket":
                await receive()  # the connect message; closing before accepting answers the handshake with 403
                return await send({"type": "websocket.close", "code": 1008})
            return await _refuse(send, 401, "missing or wrong bearer token (Authorization: Bearer <token>)")
        if kind == "websocket":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers", ())).get(b"content-length")
        if length is not None and int(length) > self.max_body:
            return await _refuse(send, 413, f"request body over {self.max_body // 1024} KiB")
        seen = 0

        async def bounded():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                raise TooLarge
            return message

        started = False

        async def tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded, tracked)
        except TooLarge:
            if not started:
                await _refuse(send, 413, f"request body over {self.max_body // 1024} KiB")
