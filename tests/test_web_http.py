"""The web page over plain HTTP, no browser: pages need a login session and send others to the login page,
the session cookie (HttpOnly, SameSite=Strict, never the token), CSRF on every form, one-line errors, names
never rendered as markup, the corrections (consent, split, merge, sweep); and the pure parts (sessions,
redirect targets, byte ranges, the relations drawing)."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import httpx
import pytest

from app.demo import SCRIPT
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from app.web.pages import ranged
from tests.browser import api
from tests.test_service import T0, TOKEN, Served

KEY = "service test key"


@pytest.fixture(scope="module")
def demo_text(tmp_path_factory, perception, cfg):
    """`serve --no-ingest` over a memory holding the demo's conversation as text (no media)."""
    data = tmp_path_factory.mktemp("web-text")
    mp = pytest.MonkeyPatch()
    mp.setenv("APP_KEY", KEY)
    with Memory.open(data / "memory.db", Secret(KEY.encode(), "APP_KEY"), cfg.store, create=True) as m:
        ids = {n: m.people.add_person(n).id for n in dict.fromkeys(n for n, _ in SCRIPT)}
        session = m.turns.start_session("demo", T0)
        vectors = perception.text([t for _, t in SCRIPT])
        for i, ((n, t), v) in enumerate(zip(SCRIPT, vectors, strict=True)):
            m.turns.add_utterance(NewUtterance(session, ids[n], t, T0 + 6 * i, T0 + 6 * i + 5, 1.0, "t", False, v))
    server = Served(data, "--no-ingest")
    yield server
    assert server.stop() == 0
    mp.undo()


def _logged_in(url: str) -> tuple[httpx.Client, str]:
    """A client holding a session cookie, and the session's CSRF token (from a page)."""
    client = httpx.Client(base_url=url, timeout=60)
    form = client.get("/login")
    nonce = re.search(r'name="csrf" value="([^"]+)"', form.text)[1]
    r = client.post("/login", data={"csrf": nonce, "token": TOKEN, "next": "/people"})
    assert r.status_code == 303 and r.headers["location"] == "/people"
    page = client.get("/people")
    return client, re.search(r'data-csrf="([^"]+)"', page.text)[1]


def test_pages_need_a_session_and_send_others_to_the_login(demo_text):
    server = demo_text
    assert httpx.get(server.url + "/").headers["location"] == "/login"
    for path in ("/people", "/people/1", "/search?q=x", "/settings", "/media/1", "/export.json", "/live"):
        r = httpx.get(server.url + path)
        assert r.status_code == 303 and r.headers["location"] == f"/login?next={quote(path, safe='')}", path
    r = httpx.post(server.url + "/people/1/rename", data={"name": "X"})
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    assert httpx.get(server.url + "/login").status_code == 200
    assert httpx.get(server.url + "/static/app.css").status_code == 200


def test_login_sets_a_strict_httponly_session_cookie_never_the_token(demo_text):
    server = demo_text
    client = httpx.Client(base_url=server.url, timeout=60)
    form = client.get("/login")
    nonce = re.search(r'name="csrf" value="([^"]+)"', form.text)[1]
    wrong = client.post("/login", data={"csrf": nonce, "token": "guess"})
    assert wrong.status_code == 401 and "lifemem_session" not in wrong.headers.get("set-cookie", "")
    forged = httpx.post(server.url + "/login", data={"csrf": "made up", "token": TOKEN})
    assert forged.status_code == 403 and "lifemem_session" not in forged.headers.get("set-cookie", "")
    r = client.post("/login", data={"csrf": nonce, "token": TOKEN})
    cookie = next(c for c in r.headers.get_list("set-cookie") if c.startswith("lifemem_session="))
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and TOKEN not in cookie
    page = client.get("/")
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    assert page.headers["cache-control"] == "no-store"
    assert client.get("/v1/people").status_code == 401  # the cookie is for the page; the API wants the token
    assert server.http.get("/v1/people").status_code == 200  # and the token still works as before


def test_a_post_without_the_csrf_token_is_refused(demo_text):
    server = demo_text
    client, csrf = _logged_in(server.url)
    people = api(server, "/v1/people")["people"]
    pid, name = people[0]["id"], people[0]["name"]
    assert client.post(f"/people/{pid}/rename", data={"name": "Eve"}).status_code == 403
    assert client.post(f"/people/{pid}/rename", data={"name": "Eve", "csrf": "wrong"}).status_code == 403
    assert name in {p["name"] for p in api(server, "/v1/people")["people"]}
    r = client.post(f"/people/{pid}/rename", data={"name": "Eve"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 303 and "Eve" in {p["name"] for p in api(server, "/v1/people")["people"]}
    r = client.post(f"/people/{pid}/rename", data={"name": name, "csrf": csrf})
    assert r.status_code == 303 and name in {p["name"] for p in api(server, "/v1/people")["people"]}
    assert client.post("/logout", data={"csrf": csrf}).status_code == 303
    assert client.get("/").status_code == 303  # the session is gone


def test_bad_page_input_gets_one_line(demo_text):
    server = demo_text
    client, csrf = _logged_in(server.url)
    r = client.get("/?day=yesterday")
    assert r.status_code == 400 and "is not a date" in r.text
    assert client.get("/people/999").status_code == 404
    assert client.get("/u/999999").status_code == 404
    r = client.post("/people/1/rename", data={"name": "", "csrf": csrf})
    assert r.status_code == 400 and "a name is 1 to 80" in r.text
    r = client.post("/people/1/split", data={"csrf": csrf})
    assert r.status_code == 400 and "tick the utterances" in r.text
    name = next(p["name"] for p in api(server, "/v1/people")["people"] if p["id"] == 1)
    assert client.post("/people/1/rename", data={"name": "<i>Eve</i>", "csrf": csrf}).status_code == 303
    page = client.get("/people").text
    assert "&lt;i&gt;Eve&lt;/i&gt;" in page and "<i>Eve</i>" not in page  # names are text, never markup
    assert client.post("/people/1/rename", data={"name": name, "csrf": csrf}).status_code == 303


def test_consent_split_merge_and_sweep_from_the_page(demo_text):
    server = demo_text
    client, csrf = _logged_in(server.url)
    person = api(server, "/v1/people")["people"][0]
    pid, name = person["id"], person["name"]
    assert client.post(f"/people/{pid}/consent", data={"state": "given", "csrf": csrf}).status_code == 303
    assert api(server, f"/v1/people/{name}")["consent"] == "given"
    assert "consent given" in client.get(f"/people/{pid}").text
    mine = [u["id"] for u in api(server, "/v1/sessions/1")["utterances"] if u["person"] == name]
    r = client.post(f"/people/{pid}/split", data={"utterance": mine[-1], "into": "Newcomer", "csrf": csrf})
    assert r.status_code == 303 and r.headers["location"] == f"/people/{pid}"
    assert f"1 of {name}'s utterances are now Newcomer's" in html.unescape(client.get(f"/people/{pid}").text)
    counts = {p["name"]: p for p in api(server, "/v1/people")["people"]}
    assert counts["Newcomer"]["utterances"] == 1 and counts[name]["utterances"] == len(mine) - 1
    r = client.post(f"/people/{pid}/merge", data={"other": counts["Newcomer"]["id"], "csrf": csrf})
    assert r.status_code == 303 and "Newcomer merged into" in client.get(f"/people/{pid}").text
    counts = {p["name"]: p for p in api(server, "/v1/people")["people"]}
    assert "Newcomer" not in counts and counts[name]["utterances"] == len(mine)
    assert client.post("/settings/sweep", data={"csrf": csrf}).status_code == 303
    assert "retention sweep: 0 expired" in client.get("/settings").text
    assert client.post(f"/people/{pid}/consent", data={"state": "unknown", "csrf": csrf}).status_code == 303


def test_sessions_expire_and_logins_go_only_to_this_site(monkeypatch):
    from types import SimpleNamespace

    from app.web import sessions as module
    from app.web.sessions import MAX_SESSIONS, WebSessions, local_target

    now = [1000.0]  # the sessions' clock, moved by hand: a busy machine cannot make them idle meanwhile
    monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    sessions = WebSessions(idle_s=0.2)
    first = sessions.open()
    assert sessions.get(first.id) is first and sessions.get("forged") is None and sessions.get(None) is None
    now[0] += 0.3
    assert sessions.get(first.id) is None  # idle too long
    many = [sessions.open() for _ in range(MAX_SESSIONS + 1)]
    assert sessions.get(many[0].id) is None and sessions.get(many[-1].id) is many[-1]
    assert len({s.csrf for s in many}) == len(many) and all(s.csrf != s.id for s in many)
    assert local_target("/people?x=1") == "/people?x=1"
    for elsewhere in ("https://example.org/", "//example.org", "/\\example.org", "", None, "people"):
        assert local_target(elsewhere) == "/"


def test_the_relations_drawing_keeps_labels_off_the_lines():
    from app.web import graph

    relations = [
        {"subject": "John", "relation": "brother", "object": "David", "valid_to": None},
        {"subject": "Sarah", "relation": "wife", "object": "John", "valid_to": None},
        {"subject": "John", "relation": "colleague", "object": "Maria", "valid_to": 1.0},
    ]
    nodes, edges = graph.layout("John", relations, {"John": 1, "David": 2})
    assert [n.name for n in nodes] == ["John", "David", "Sarah", "Maria"] and nodes[0].centre
    assert [n.id for n in nodes] == [1, 2, None, None]
    for n in nodes:
        assert 0 < n.x < graph.WIDTH and 10 < n.label_y < graph.HEIGHT
    assert [e.current for e in edges] == [True, True, False]
    for e in edges:  # the label sits beside its line, not on it
        dx, dy = e.x2 - e.x1, e.y2 - e.y1
        distance = abs(dx * (e.y1 - e.ly + 4) - dy * (e.x1 - e.lx)) / (dx * dx + dy * dy) ** 0.5
        assert distance >= graph.LABEL_GAP - 0.01


def test_media_ranges():
    data = bytes(range(100))
    assert ranged(data, "audio/wav", None).body == data
    part = ranged(data, "audio/wav", "bytes=10-19")
    assert part.status_code == 206 and part.body == data[10:20] and part.headers["content-range"] == "bytes 10-19/100"
    assert ranged(data, "audio/wav", "bytes=-5").body == data[-5:]
    assert ranged(data, "audio/wav", "bytes=200-").status_code == 416
