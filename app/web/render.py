"""Server-rendered HTML: Jinja2 templates (autoescaped), the time formats the page shows, and the headers
every page carries (no caching of personal data, a content security policy that allows only this origin)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from app import __version__
from app.web.sessions import WebSession

HERE = Path(__file__).resolve().parent
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make Chromium send "Origin: null" on the page's own forms
}


def local(t: float | None) -> dt.datetime | None:
    return None if t is None else dt.datetime.fromtimestamp(t).astimezone()


def clock(t: float | None) -> str:
    """09:30"""
    return "" if t is None else f"{local(t):%H:%M}"


def clock_s(t: float | None) -> str:
    """09:30:05"""
    return "" if t is None else f"{local(t):%H:%M:%S}"


def date(t: float | dt.date | None) -> str:
    """Thu 14 May 2026"""
    if t is None:
        return ""
    day = t if isinstance(t, dt.date) else local(t)
    return f"{day:%a} {day.day} {day:%b %Y}"


def moment(t: float | None) -> str:
    """Thu 14 May 2026, 09:30"""
    return "" if t is None else f"{date(t)}, {clock(t)}"


def iso(t: float | None) -> str:
    return "" if t is None else local(t).isoformat(timespec="seconds")


def size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"


TEMPLATES.env.filters.update(clock=clock, clock_s=clock_s, date=date, moment=moment, iso=iso, size=size)
TEMPLATES.env.globals["version"] = __version__


def show(request: Request, template: str, status: int = 200, **context) -> HTMLResponse:
    """A whole page; the live updates fetch pages again (X-Live: 1) to take one element, which leaves the
    session's notices for the next page the user opens."""
    session: WebSession | None = getattr(request.state, "web_session", None)
    shown = session is not None and request.headers.get("x-live") != "1"
    context |= {
        "request": request,
        "csrf": session.csrf if session else "",
        "notices": session.take_notices() if shown else [],
        "path": request.url.path,
    }
    response = TEMPLATES.TemplateResponse(request, template, context, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response
