"""The web page in a real browser: Debian's headless Chromium driven through Selenium against `python -m app
run --source demo --realtime --serve`, started as a user starts it: the demo conversation is recorded while
the timeline is open and appears there live; then the pages are read and corrected in the browser as a user
would (search, play the audio, a person's facts and their sources, rename, forget, ask) and checked against
the database. Screenshots of the main pages, desktop and phone-sized, go to tests/artifacts/web/, with the
timeline's first-render time over 10,000 stored utterances and the page weight (HTTP-level checks:
test_web_http.py)."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.config import load_config
from app.demo import SCRIPT
from app.store.keys import Secret
from app.store.memory import Memory
from app.store.utterances import NewUtterance
from tests.browser import ARTIFACTS, Browser, api, need_browser, said_by, transcript
from tests.conftest import ROOT, need_default_llm, need_models
from tests.test_service import T0, TOKEN, Served

KEY = "service test key"
LLM_S = 600.0  # longest wait for what the language model writes or answers: bounds a hang, never paces


class Recording(Served):
    """`python -m app run --source demo --realtime --serve`: the demo recorded at real time (with its faces,
    and with memory writing by the language model when it is prepared) while the service answers."""

    def __init__(self, data: Path, with_memory: bool) -> None:
        env = {
            **os.environ,
            "APP_DATA_DIR": str(data),
            "APP_API_TOKEN": TOKEN,
            "APP_STORE_KDF_LOG2_N": "10",
            "APP_MEMORY_BACKGROUND": str(with_memory).lower(),
        }
        argv = ["run", "--source", "demo", "--realtime", "--serve", "--port", "0"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", *argv],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        if not line.startswith("serving on "):
            self.proc.kill()
            raise AssertionError(f"run --serve did not start: {line}{self.proc.stderr.read()}")
        self.url = line.split()[2]
        self.auth = {"Authorization": f"Bearer {TOKEN}"}
        self.http = httpx.Client(base_url=self.url, headers=self.auth, timeout=120)


class Watched:
    """The recording, the browser that watched it, and what the open timeline showed meanwhile."""

    def __init__(self, server: Recording, browser: Browser, data: Path, with_memory: bool) -> None:
        self.server, self.browser, self.data, self.with_memory = server, browser, data, with_memory
        self.lines_at_open = 0  # lines on the timeline when it was opened
        self.kept_page = False  # the timeline was never reloaded while the lines came in
        self.lines_live: list[str] = []


def _has_llm() -> bool:
    try:
        need_default_llm()
    except pytest.skip.Exception:
        return False
    return True


@pytest.fixture(scope="module")
def watched(tmp_path_factory, cfg):
    """A browser logs in and opens the timeline as the demo starts recording; the fixture waits until the
    open page shows every line of it."""
    need_browser()
    need_models("silero-vad", cfg.models.asr, "resemblyzer", "dlib", "minilm-l6-int8")
    if not (ROOT / "models" / "demo" / "demo.mkv").is_file():
        pytest.skip("the demo recording is missing (run `python3 build.py`)")
    data = tmp_path_factory.mktemp("web")
    mp = pytest.MonkeyPatch()
    mp.setenv("APP_KEY", KEY)
    browser = Browser("")
    with_memory = _has_llm()
    server = Recording(data, with_memory)
    browser.url = server.url
    try:
        browser.open("/")
        browser.shoot("login")
        browser.log_in()
        seen = Watched(server, browser, data, with_memory)
        seen.lines_at_open = len(browser.all("#day .line"))
        browser.driver.execute_script("window.lifememKept = true")
        browser.wait(lambda: len(browser.all("#day .line")) >= len(SCRIPT), 600, "the demo's lines on the open page")
        seen.kept_page = browser.driver.execute_script("return window.lifememKept === true")
        seen.lines_live = [e.text for e in browser.all("#day .line .text")]
        yield seen
    finally:
        browser.quit()
        assert server.stop() == 0
        mp.undo()


def test_the_timeline_fills_live_while_the_demo_is_recorded(watched):
    assert watched.lines_at_open < len(SCRIPT), "the recording was over before the page opened"
    assert watched.kept_page, "the page was reloaded; the lines should come through the events stream"
    assert watched.lines_live == transcript(watched.server)
    assert len(watched.lines_live) == len(SCRIPT)


def test_the_timeline_shows_who_said_what_and_plays_the_audio(watched):
    browser, server = watched.browser, watched.server
    browser.open("/")
    assert [e.text for e in browser.all("#day .line .text")] == transcript(server)
    speakers = {e.text for e in browser.all("#day .line .speaker")}
    assert speakers == {p["name"] for p in api(server, "/v1/people")["people"] if p["utterances"]}
    assert browser.all(".session h3 a") and not browser.all(".badge.gone")  # the raw media is still kept
    play = browser.all("#day a.play")[0]
    play.click()
    browser.wait(lambda: play.get_attribute("data-state") == "playing", what="playback to start")
    browser.wait(lambda: play.get_attribute("data-state") != "playing", what="the clip to end")
    assert play.get_attribute("data-state") == ""  # ended, not "error"
    head = browser.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {headers: {Range: 'bytes=0-11'}}).then(async r => done([r.status, "
        "r.headers.get('content-range'), new TextDecoder('latin1').decode(await r.arrayBuffer())]));",
        play.get_attribute("href"),
    )
    assert head[0] == 206 and head[1].startswith("bytes 0-11/") and head[2].startswith("RIFF")
    for path in watched.data.rglob("*"):  # decrypted in memory only: no plaintext audio or frame on disk
        if path.is_file():
            start = path.read_bytes()[:12]
            assert not start.startswith(b"RIFF") and b"JFIF" not in start, path


def test_people_have_faces_keys_and_consent(watched):
    browser = watched.browser
    browser.open("/people")
    cards = browser.all(".people .card")
    people = [p for p in api(watched.server, "/v1/people")["people"] if p["utterances"]]
    assert {c.find_element("css selector", ".name").text for c in cards} >= {p["name"] for p in people}
    faces = browser.all(".card img.face")
    assert faces, "no face thumbnail: the demo's frames should give some"
    browser.wait(lambda: all(browser.driver.execute_script("return arguments[0].complete", f) for f in faces))
    assert all(browser.driver.execute_script("return arguments[0].naturalWidth", f) == 160 for f in faces)
    assert "voice keys 0" not in " ".join(c.text for c in cards if any(p["name"] in c.text for p in people))
    assert "consent unknown" in browser.text()


def test_search_finds_what_was_said_and_links_to_it(watched):
    browser = watched.browser
    browser.open("/search")
    browser.css("#q").send_keys("who is allergic to peanuts")
    browser.submit("form.search")
    browser.wait(lambda: browser.all(".results li"))
    first = browser.css(".results li a.text")
    assert "peanuts" in first.text
    first.click()
    browser.wait(lambda: browser.path.startswith("/?day="))
    target = browser.driver.execute_script("return document.querySelector(':target')")
    assert target is not None and "peanuts" in target.text


def test_a_person_page_shows_what_is_known_with_its_sources(watched):
    browser, server = watched.browser, watched.server
    pid, name = said_by(server, "teach history")
    if watched.with_memory:  # the language model writes the memory of the closed conversation in the background
        deadline = time.monotonic() + LLM_S
        while not api(server, f"/v1/facts?person={name}")["facts"] and time.monotonic() < deadline:
            time.sleep(1)
    browser.open(f"/people/{pid}")
    assert browser.text("h1") == name
    said = browser.text("#said-title + form")
    assert "history" in said and "bank" in said
    facts = api(server, f"/v1/facts?person={name}")
    current = [f for f in facts["facts"] if f["valid_to"] is None]
    shown = browser.all(".facts li")
    assert len(shown) == len(current)
    for fact in current:  # each under its kind's heading (who they are, likes, habits, plans, what happened)
        (item,) = [e for e in shown if fact["value"] in e.text]
        links = [a.get_attribute("href") for a in item.find_elements("css selector", "a.source")]
        assert [int(h.rsplit("/", 1)[1]) for h in links] == fact["sources"]
    headings = [e.text for e in browser.all("h3.profile-part")]
    assert len(headings) == len(set(headings)) == len({f["kind"] for f in current})
    if facts["relations"]:
        assert browser.all("svg.graph line.edge") and len(browser.all(".relations li")) == len(facts["relations"])
    link = (browser.all(".facts a.source") or browser.all(".said a.source"))[0]
    link.click()
    browser.wait(lambda: browser.path.startswith("/?day="))
    assert browser.driver.execute_script("return document.querySelector(':target') !== null")
    if watched.with_memory:
        assert shown, f"the language model wrote no facts about {name}"


def test_renaming_someone_shows_the_new_name_everywhere(watched):
    browser, server = watched.browser, watched.server
    pid, old = said_by(server, "teach history")
    browser.open(f"/people/{pid}")
    field = browser.css("#rename")
    field.clear()
    field.send_keys("Jonathan Q")
    browser.submit("form[action$='/rename']")
    browser.wait(lambda: browser.text("h1") == "Jonathan Q")
    assert f"{old} is now Jonathan Q" in browser.text(".notice")
    browser.open("/")
    assert "Jonathan Q" in {e.text for e in browser.all("#day .line .speaker")}
    browser.open("/people")
    assert "Jonathan Q" in browser.text() and old not in [e.text for e in browser.all(".card .name")]
    assert "Jonathan Q" in {p["name"] for p in api(server, "/v1/people")["people"]}


def test_a_form_without_its_csrf_token_is_refused(watched):
    browser, server = watched.browser, watched.server
    pid, name = said_by(server, "bicycle")
    browser.open(f"/people/{pid}")
    browser.driver.execute_script("document.querySelector(\"form[action$='/rename'] [name=csrf]\").remove()")
    field = browser.css("#rename")
    field.clear()
    field.send_keys("Mallory")
    browser.submit("form[action$='/rename']")
    browser.wait(lambda: "CSRF" in browser.text())
    assert name in {p["name"] for p in api(server, "/v1/people")["people"]}
    assert "Mallory" not in {p["name"] for p in api(server, "/v1/people")["people"]}


def test_ask_answers_with_clickable_citations(watched):
    need_default_llm()
    browser = watched.browser
    _, name = said_by(watched.server, "peanuts")
    browser.open("/search")
    browser.css("#q").send_keys("who is allergic to peanuts?")
    browser.css("input[name=answer]").click()
    browser.submit("form.search")
    browser.wait(lambda: browser.all("#answer[data-done]"), LLM_S, "the answer")
    answer = browser.text("#answer .answer-text")
    assert name in answer or "David" in answer, browser.text("#answer")  # the speaker, by label or by the name said
    browser.shoot("search")
    cited = browser.all("#answer .citations a")
    assert cited and all(re.fullmatch(r".*/u/\d+", c.get_attribute("href")) for c in cited)
    quoted = cited[0].text.strip("“”")
    cited[0].click()
    browser.wait(lambda: browser.path.startswith("/?day="))
    assert browser.driver.execute_script("return document.querySelector(':target .text').textContent") == quoted


def test_the_main_pages_read_well_on_a_desktop_and_a_phone(watched):
    """Screenshots of every main page; each fits a phone's width, logs no error, labels every control, and
    the keyboard reaches the skip link first."""
    browser = watched.browser
    pid, _ = said_by(watched.server, "peanuts")
    browser.errors()
    pages = {
        "timeline": "/",
        "people": "/people",
        "person": f"/people/{pid}",
        "forget": f"/people/{pid}/forget",
        "settings": "/settings",
        "search-results": "/search?q=bank+meeting",
    }
    unlabelled = (
        "return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]"
        ".filter(e => !e.labels.length && !e.getAttribute('aria-label')).map(e => e.outerHTML)"
        ".concat([...document.querySelectorAll('a, button')].filter(e => !(e.textContent.trim() || "
        "e.getAttribute('aria-label') || e.querySelector('img[alt]'))).map(e => e.outerHTML))"
    )
    for name, path in pages.items():
        browser.open(path)
        assert browser.driver.execute_script(unlabelled) == [], name
        browser.shoot(name)
    assert browser.errors() == []
    from selenium.webdriver.common.keys import Keys

    browser.open("/")
    browser.css("body").send_keys(Keys.TAB)
    assert browser.driver.switch_to.active_element.get_attribute("class") == "skip"


def _events(server: Recording, after: int = 0, idle_s: float = 2.0) -> list[dict]:
    """Every event the log still replays after `after`: read until the stream, once open (its first line, a
    comment, comes before the replay), goes quiet for `idle_s`. A stream a busy server was slow to open is
    opened again, for up to 120 s."""
    deadline = time.monotonic() + 120
    while True:
        out, opened = [], False
        try:
            with server.http.stream("GET", "/v1/events", params={"after": after}, timeout=idle_s) as r:
                for line in r.iter_lines():
                    opened = True
                    if line.startswith("data: "):
                        out.append(json.loads(line[6:]))
            return out  # the server ended it
        except httpx.TimeoutException:
            if opened or time.monotonic() > deadline:
                return out


def _fetch_status(browser: Browser, path: str) -> int:
    return browser.driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(r => done(r.status));", path
    )


def test_forgetting_someone_removes_them_from_every_page_and_the_database(watched):
    """Emily is forgotten from the page of a live `run --serve`: no table, no replayed event, no export, no page
    and no cache still holds her — nor Lucy, who existed only because Emily said "my daughter Lucy"."""
    from tests.test_forget import traces

    browser, server = watched.browser, watched.server
    pid, name = said_by(server, "nurse")
    theirs = next(p["utterances"] for p in api(server, "/v1/people")["people"] if p["id"] == pid)
    if watched.with_memory:  # the memory of the conversation is written in the background
        deadline = time.monotonic() + LLM_S
        while "Lucy" not in {p["name"] for p in api(server, "/v1/people")["people"]} and time.monotonic() < deadline:
            time.sleep(1)
    people_before = {p["name"] for p in api(server, "/v1/people")["people"]}
    if watched.with_memory:
        assert "Lucy" in people_before  # known only through Emily's words
    with Memory.open(watched.data / "memory.db", Secret(KEY.encode(), "APP_KEY"), load_config().store) as memory:
        her_frames = [r[0] for r in memory.con.execute("SELECT media_id FROM frame_faces WHERE person_id = ?", (pid,))]
        her_lines = [u.id for u in memory.turns.all_utterances() if u.person == name]
    assert her_frames and her_lines
    assert any(e.get("person") == name for e in _events(server))  # the log replays her events until she goes
    assert _fetch_status(browser, f"/people/{pid}/face.jpg") == 200  # her thumbnail is cached now
    browser.open(f"/people/{pid}")
    browser.css("a.danger").click()
    browser.wait(lambda: browser.path == f"/people/{pid}/forget")
    assert f"{theirs} utterances" in browser.text(".counts")
    browser.submit("form[action$='/forget']")
    browser.wait(lambda: browser.path == "/people")
    assert f"{name} forgotten" in browser.text(".notice")
    assert name not in [e.text for e in browser.all(".card .name")]
    assert "Lucy" not in [e.text for e in browser.all(".card .name")]
    browser.open("/")
    page = browser.text("#day")
    assert not re.search(rf"\b{re.escape(name)}\b", page) and "nurse" not in page
    browser.open("/search?q=who+works+as+a+nurse")
    assert "nurse" not in browser.text(".results") if browser.all(".results") else True
    browser.open(f"/people/{pid}")
    assert "Not found" in browser.text("h1")
    assert _fetch_status(browser, f"/people/{pid}/face.jpg") == 404
    assert all(_fetch_status(browser, f"/media/{m}") == 404 for m in her_frames)
    # the event log, the API and the export
    replayed = json.dumps(_events(server))
    assert name not in replayed and "Lucy" not in replayed
    assert not [e for e in _events(server) if e.get("utterance") in her_lines]
    assert name not in json.dumps(api(server, "/v1/export")) and "nurse" not in json.dumps(api(server, "/v1/export"))
    names_after = {p["name"] for p in api(server, "/v1/people")["people"]}
    assert names_after == people_before - {name, "Lucy"}
    # every table, the search indexes and the media files
    with Memory.open(watched.data / "memory.db", Secret(KEY.encode(), "APP_KEY"), load_config().store) as memory:
        assert memory.people.person_id(name) is None and memory.people.person_id("Lucy") is None
        assert traces(memory, (name.lower(), "nurse", "lucy")) == []
        assert not memory.media.rows(f"id IN ({','.join(map(str, her_frames))})")
        assert not memory.media.rows("person_id = ?", (pid,))
        assert not memory.rows("voice_keys", "person_id = ?", (pid,))
        assert not memory.rows("face_keys", "person_id = ?", (pid,))
        assert not memory.rows("frame_faces", "person_id = ?", (pid,))


def test_a_page_without_a_login_goes_to_the_login_and_back(watched):
    browser = watched.browser
    browser.driver.delete_all_cookies()
    browser.open("/people")
    assert browser.path == "/login?next=%2Fpeople"
    browser.css("#token").send_keys("not the token")
    browser.css(".login button").click()
    browser.wait(lambda: browser.all(".login .notice.error"))
    assert "not the token" in browser.text(".login .notice.error")
    browser.log_in()
    assert browser.path == "/people"


# ---------------------------------------------------------------- the measurement
TIMELINE_UTTERANCES = 10_000
DAYS, SESSIONS_PER_DAY = 100, 4
DAY = 86400.0
RUNS = 15
PAINT = (
    "const nav = performance.getEntriesByType('navigation')[0];"
    "const fcp = performance.getEntriesByName('first-contentful-paint')[0];"
    "const res = performance.getEntriesByType('resource');"
    "return {fcp_ms: fcp ? fcp.startTime : null, ttfb_ms: nav.responseStart - nav.requestStart,"
    " dom_ms: nav.domContentLoadedEventEnd, html_bytes: nav.decodedBodySize, html_transfer: nav.transferSize,"
    " resources: res.map(r => [r.name, r.decodedBodySize, r.transferSize]),"
    " lines: document.querySelectorAll('.line').length}"
)


@pytest.fixture(scope="module")
def ten_thousand(tmp_path_factory, perception, cfg):
    """`serve --no-ingest` over 10,000 utterances: 100 days of four conversations of 25 lines each."""
    need_browser()
    data = tmp_path_factory.mktemp("web10k")
    mp = pytest.MonkeyPatch()
    mp.setenv("APP_KEY", KEY)
    texts = [t for _, t in SCRIPT]
    vectors = perception.text(texts)
    per_session = TIMELINE_UTTERANCES // (DAYS * SESSIONS_PER_DAY)
    with Memory.open(data / "memory.db", Secret(KEY.encode(), "APP_KEY"), cfg.store, create=True) as m, m.batch():
        ids = [m.people.add_person(n).id for n in dict.fromkeys(n for n, _ in SCRIPT)]
        for day in range(DAYS):
            for s in range(SESSIONS_PER_DAY):
                t = T0 - (DAYS - day) * 86400 + s * 3 * 3600
                session = m.turns.start_session("bench", t)
                for i in range(per_session):
                    k = (day + s + i) % len(texts)
                    line = NewUtterance(
                        session, ids[k % 3], f"{texts[k]} ({day}.{s}.{i})", t, t + 5, 1.0, "t", False, vectors[k]
                    )
                    m.turns.add_utterance(line)
                    t += 6
    server = Served(data, "--no-ingest")
    yield server
    assert server.stop() == 0
    mp.undo()


def test_timeline_first_render_with_10000_utterances(ten_thousand):
    """Time to first contentful paint of the timeline (p50 over RUNS loads) and the page's weight, written to
    tests/artifacts/web/timeline-10k.json. Measured, not asserted: wall-clock on a shared machine."""
    server = ten_thousand
    assert sum(p["utterances"] for p in api(server, "/v1/people")["people"]) == TIMELINE_UTTERANCES
    browser = Browser(server.url)
    try:
        browser.log_in()
        browser.driver.execute_cdp_cmd("Network.enable", {})
        browser.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        browser.open("/")  # cold: the page weight is everything it loads
        cold = painted(browser)
        browser.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
        runs = []
        for _ in range(RUNS):  # warm: the style sheet and script cached, as when the page is used
            browser.open("/")
            runs.append(painted(browser))
        browser.shoot("timeline-10k")
    finally:
        browser.quit()
    report = {
        "utterances": TIMELINE_UTTERANCES,
        "lines_rendered": cold["lines"],
        "warm_runs": RUNS,
        "first_contentful_paint_ms_p50": round(statistics.median(r["fcp_ms"] for r in runs), 1),
        "first_contentful_paint_ms_cold": cold["fcp_ms"],
        "server_ttfb_ms_p50": round(statistics.median(r["ttfb_ms"] for r in runs), 1),
        "dom_content_loaded_ms_p50": round(statistics.median(r["dom_ms"] for r in runs), 1),
        "page_weight_bytes": cold["html_transfer"] + sum(sent for _, _, sent in cold["resources"]),
        "html_bytes": cold["html_bytes"],
        "resources_bytes": {Path(httpx.URL(n).path).name: size for n, size, _ in cold["resources"]},
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "timeline-10k.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report))
    assert cold["lines"] == per_day_lines() and all(r["lines"] == cold["lines"] for r in runs)


def painted(browser: Browser) -> dict:
    """The timings of the page just opened, once its first contentful paint is reported (asynchronously)."""
    fcp = "return performance.getEntriesByName('first-contentful-paint').length > 0"
    browser.wait(lambda: browser.driver.execute_script(fcp), what="the first contentful paint")
    return browser.driver.execute_script(PAINT)


def per_day_lines() -> int:
    return TIMELINE_UTTERANCES // DAYS


def test_a_profile_reads_by_kind_and_marks_plans_whose_day_has_passed():
    """A plan is passed when its day, or its month, is over: the rule memory writing closes it by."""
    from app.web.reads import sections

    thursday = 1778716800.0  # Thursday 14 May 2026, when the plans were said
    facts = [
        ("plan", "The meeting with the bank is on Monday", thursday + 4 * DAY),  # Monday 18 May
        ("habit", "David rides the new bicycle to work every day", None),
        ("attribute", "David is allergic to peanuts", None),
        ("plan", "Next Friday David is planning a trip to Paris", thursday + 8 * DAY),  # Friday 22 May
        ("plan", "Lucy starts school in September", thursday + 110 * DAY),  # 1 September
        ("mood", "David is tired", None),
    ]
    facts = [{"id": i, "kind": k, "value": v, "valid_from": d} for i, (k, v, d) in enumerate(facts)]
    said = {f["id"]: thursday for f in facts}
    got = sections(facts, thursday + 6 * DAY, said)  # Wednesday 20 May
    assert [h for h, _ in got] == ["Who they are", "Habits", "Plans", "Other"]
    plans = dict(got)["Plans"]
    assert [(p["value"][:15], p["passed"]) for p in plans] == [
        ("The meeting wit", True),
        ("Next Friday Dav", False),
        ("Lucy starts sch", False),
    ]
    for now, passed in ((thursday + 115 * DAY, False), (thursday + 141 * DAY, True)):  # 6 September, 2 October
        assert [p["passed"] for p in dict(sections(facts, now, said))["Plans"]][2] is passed
