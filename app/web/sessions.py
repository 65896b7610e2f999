"""Logging in to the page: the browser posts the API token once and gets a cookie holding a random session
id (HttpOnly, SameSite=Strict; the token itself never goes into a cookie). Sessions live in RAM only, so a
restart logs everyone out; each has its own CSRF token, which every state-changing request must carry as a
form field or an `X-CSRF-Token` header. `WebGate` admits a page request only with a live session and sends
everything else to the login page, before any route runs."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote

COOKIE = "lifemem_session"
LOGIN_COOKIE = "lifemem_login"  # the login form's own CSRF token (double submit), before there is a session
IDLE_S = 12 * 3600.0  # a session unused this long is gone
MAX_SESSIONS = 32  # beyond this the least recently used goes
API_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/health"})


@dataclass
class WebSession:
    id: str
    csrf: str
    seen_s: float  # time.monotonic() of the last request
    notices: list[tuple[str, str]] = field(default_factory=list)  # (kind: ok | error, text), shown once

    def notice(self, text: str, kind: str = "ok") -> None:
        self.notices.append((kind, text))

    def take_notices(self) -> list[tuple[str, str]]:
        out, self.notices = self.notices, []
        return out


class WebSessions:
    """The table of logged-in browsers, in RAM."""

    def __init__(self, idle_s: float = IDLE_S) -> None:
        self._sessions: dict[str, WebSession] = {}
        self._lock = threading.Lock()
        self.idle_s = idle_s

    def open(self) -> WebSession:
        now = time.monotonic()
        session = WebSession(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now)
        with self._lock:
            self._drop_stale(now)
            while len(self._sessions) >= MAX_SESSIONS:
                oldest = min(self._sessions.values(), key=lambda s: s.seen_s)
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, sid: str | None) -> WebSession | None:
        if not sid:
            return None
        now = time.monotonic()
        with self._lock:
            self._drop_stale(now)
            session = self._sessions.get(sid)
            if session is not None:
                session.seen_s = now
            return session

    def close(self, sid: str) -> None:
        with self._lock:
            self._sessions.pop(sid, None)

    def _drop_stale(self, now: float) -> None:
        for sid in [s.id for s in self._sessions.values() if now - s.seen_s > self.idle_s]:
            del self._sessions[sid]


def cookie_value(scope, name: str) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"cookie":
            for part in value.decode("latin-1").split(";"):
                k, _, v = part.strip().partition("=")
                if k == name:
                    return v
    return None


def set_cookie(name: str, value: str, max_age_s: int | None = None) -> str:
    """A Set-Cookie value the page's scripts cannot read and other sites never send."""
    age = f"; Max-Age={max_age_s}" if max_age_s is not None else ""
    return f"{name}={value}; Path=/; HttpOnly; SameSite=Strict{age}"


def owns(path: str) -> bool:
    """Whether a path is the page's (a session cookie) rather than the API's (the bearer token)."""
    return not (path == "/v1" or path.startswith("/v1/") or path in API_PATHS)


class WebGate:
    """Admits a request for a page when its session cookie is live (the session is put in the request's
    state) or the page is open; otherwise answers with a redirect to the login page."""

    def __init__(self, sessions: WebSessions) -> None:
        self.sessions = sessions

    @staticmethod
    def owns(path: str) -> bool:
        return owns(path)

    async def admit(self, scope, send) -> bool:
        path = scope["path"]
        if path == "/login" or path.startswith("/static/"):  # open: the login form and the CSS and script
            return True
        session = self.sessions.get(cookie_value(scope, COOKIE))
        if session is not None:
            scope.setdefault("state", {})["web_session"] = session
            return True
        query = scope.get("query_string", b"").decode("latin-1")
        target = path + (f"?{query}" if query else "")
        location = "/login" if target == "/" else f"/login?next={quote(target, safe='')}"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode()),
                    (b"content-length", b"0"),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})
        return False


def form_fields(body: bytes) -> dict[str, list[str]]:
    """An application/x-www-form-urlencoded body: name -> values."""
    out: dict[str, list[str]] = {}
    for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
        out.setdefault(key, []).append(value)
    return out


def csrf_ok(session: WebSession, fields: dict[str, list[str]], header: str | None) -> bool:
    sent = header or (fields.get("csrf") or [""])[0]
    return bool(sent) and secrets.compare_digest(sent.encode(), session.csrf.encode())


def local_target(target: str | None) -> str:
    """Where to go after logging in: a path on this site, never another site."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target
