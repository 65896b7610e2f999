"""The page's POST routes: logging in and out, and correcting the memory — rename, merge, split, consent,
forget — plus a retention sweep. Each checks the session's CSRF token first, does the change with the memory's
own methods (on the recorder's store thread when one records in this process, so it sees the change at once),
and answers with a redirect to the page to look at next, a one-line notice waiting there."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse

from app import views
from app.errors import AppError, NotFoundError
from app.store.retention import sweep as run_sweep
from app.web.pages import WebError
from app.web.render import show
from app.web.sessions import (
    COOKIE,
    LOGIN_COOKIE,
    WebSession,
    WebSessions,
    csrf_ok,
    form_fields,
    local_target,
    set_cookie,
)

LOGIN_FORM_S = 1800  # how long a login form stays valid
WRONG_TOKEN_DELAY_S = 1.0  # a wrong token is answered this much later: guessing stays slow
NAME_CHARS = 80
CONSENT = ("given", "refused", "unknown")


def first(fields: dict[str, list[str]], name: str) -> str:
    return (fields.get(name) or [""])[0].strip()


async def checked_form(request: Request) -> dict[str, list[str]]:
    """The posted form, once its CSRF token (field `csrf` or header X-CSRF-Token) matched the session's."""
    session: WebSession | None = getattr(request.state, "web_session", None)
    fields = form_fields(await request.body())
    if session is None or not csrf_ok(session, fields, request.headers.get("x-csrf-token")):
        raise WebError(403, "This request carries no valid CSRF token: reload the page and try again.")
    return fields


CheckedForm = Annotated[dict, Depends(checked_form)]


def _name(text: str) -> str:
    if not text or len(text) > NAME_CHARS or any(not c.isprintable() for c in text):
        raise WebError(400, f"a name is 1 to {NAME_CHARS} printable characters")
    return text


def _who(memory, person_id: int) -> str:
    name = memory.people.person_name(person_id)
    if name is None:
        raise NotFoundError(f"nobody with id {person_id}: forgotten, merged, or never known")
    return name


def router(service, sessions: WebSessions, token: str) -> APIRouter:
    r = APIRouter()

    async def act(request: Request, back: str, fn: Callable, *args) -> RedirectResponse:
        """Run a change; its result's text (or its error) is the notice on the page it goes `back` to."""
        session: WebSession = request.state.web_session
        try:
            session.notice(await service.change(fn, *args))
        except NotFoundError as e:
            session.notice(str(e), "error")
            back = "/people"
        except AppError as e:
            session.notice(str(e), "error")
        return RedirectResponse(back, 303)

    @r.get("/login")
    async def login_form(request: Request, next: str = "/"):
        return _login_page(request, local_target(next))

    @r.post("/login")
    async def login(request: Request):
        fields = form_fields(await request.body())
        nonce = request.cookies.get(LOGIN_COOKIE, "")
        target = local_target(first(fields, "next"))
        if not nonce or not secrets.compare_digest(first(fields, "csrf").encode(), nonce.encode()):
            return _login_page(request, target, 403, "The login form had expired; it is fresh now, try again.")
        if not secrets.compare_digest(first(fields, "token").encode(), token.encode()):
            await asyncio.sleep(WRONG_TOKEN_DELAY_S)
            return _login_page(request, target, 401, "That is not the token. It is in the api_token file.")
        session = sessions.open()
        response = RedirectResponse(target, 303)
        response.headers.append("set-cookie", set_cookie(COOKIE, session.id))
        response.headers.append("set-cookie", set_cookie(LOGIN_COOKIE, "", 0))
        return response

    @r.post("/logout")
    async def logout(request: Request, _: CheckedForm):
        sessions.close(request.state.web_session.id)
        response = RedirectResponse("/login", 303)
        response.headers.append("set-cookie", set_cookie(COOKIE, "", 0))
        return response

    @r.post("/people/{person_id}/rename")
    async def rename(request: Request, person_id: int, form: CheckedForm):
        new = _name(first(form, "name"))

        def run(memory) -> str:
            old = _who(memory, person_id)
            memory.people.rename_person(old, new)
            return f"{old} is now {new}"

        return await act(request, f"/people/{person_id}", run)

    @r.post("/people/{person_id}/merge")
    async def merge(request: Request, person_id: int, form: CheckedForm):
        other = views.number(first(form, "other"))
        if other is None:
            raise WebError(400, "choose who to merge with")

        def run(memory) -> str:
            keep, gone = _who(memory, person_id), _who(memory, other)
            moved = memory.people.merge_people(keep, gone)
            return f"{gone} merged into {keep}: {moved} utterances moved"

        return await act(request, f"/people/{person_id}", run)

    @r.post("/people/{person_id}/split")
    async def split(request: Request, person_id: int, form: CheckedForm):
        ids = [i for x in form.get("utterance", []) if (i := views.number(x)) is not None]
        into = _name(first(form, "into")) if first(form, "into") else None
        if not ids:
            raise WebError(400, "tick the utterances that were someone else's first")

        def run(memory) -> str:
            name = _who(memory, person_id)
            moved = memory.people.split_person(name, ids, into)
            return f"{moved.utterances} of {name}'s utterances are now {moved.name}'s"

        return await act(request, f"/people/{person_id}", run)

    @r.post("/people/{person_id}/consent")
    async def consent(request: Request, person_id: int, form: CheckedForm):
        state = first(form, "state")
        if state not in CONSENT:
            raise WebError(400, f"consent is one of {', '.join(CONSENT)}")

        def run(memory) -> str:
            name = _who(memory, person_id)
            memory.people.set_consent(name, state)
            return f"{name}: consent {state}"

        return await act(request, f"/people/{person_id}", run)

    @r.post("/people/{person_id}/forget")
    async def forget(request: Request, person_id: int, form: CheckedForm):
        anonymize = first(form, "anonymize") == "on"

        def run(memory) -> str:
            name = _who(memory, person_id)
            out = views.forget(memory, service.embedder, name, anonymize=anonymize)
            service.forgotten(out)
            gone = [f"{n} {table.replace('_', ' ')}" for table, n in out["deleted"].items() if n]
            redacted = f"; their name was redacted from {out['redacted']} other utterances" if out["redacted"] else ""
            return f"{name} forgotten: {', '.join(gone) or 'nothing else'} deleted{redacted}"

        return await act(request, "/people", run)

    @r.post("/settings/sweep")
    async def sweep(request: Request, _: CheckedForm):
        def run(memory) -> str:
            done = run_sweep(memory, service.cfg.retention)
            return (
                f"retention sweep: {done.expired} expired and {done.over_budget} over-budget media files deleted "
                f"({done.freed_bytes / 1e6:.1f} MB)"
            )

        return await act(request, "/settings", run)

    return r


def _login_page(request: Request, target: str, status: int = 200, error: str = ""):
    """The login form; its CSRF nonce is the browser's current one (a second tab, or the favicon request
    some browsers send, must not replace the nonce of a form already open), else a new one."""
    nonce = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
    response = show(request, "login.html", status, next=target, login_csrf=nonce, error=error)
    response.headers.append("set-cookie", set_cookie(LOGIN_COOKIE, nonce, LOGIN_FORM_S))
    return response
