"""The local web page, served by the service beside its API: timeline, people, a person's memory with its
provenance, search and grounded answers, settings and storage; server-rendered HTML, one small script for
the audio, the live updates and the streamed answer, one style sheet, nothing fetched from elsewhere."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles

from app.web import actions, pages
from app.web.render import HERE, show
from app.web.sessions import WebGate, WebSessions


def mount(app: FastAPI, service, token: str) -> WebGate:
    """Add the page's routes to the service's app; returns the gate the service's guard asks about them."""
    sessions = WebSessions()
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(pages.router(service), include_in_schema=False)
    app.include_router(actions.router(service, sessions, token), include_in_schema=False)

    @app.exception_handler(pages.WebError)
    async def web_error(request: Request, e: pages.WebError):
        return show(request, "error.html", e.status, message=str(e), code=e.status)

    return WebGate(sessions)
