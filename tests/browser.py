"""Headless Chromium for the web page's tests: Debian's `chromium` through `chromium-driver` and Selenium,
a fresh profile each, screenshots desktop and phone-sized into tests/artifacts/web/; and small helpers that
read the service's API."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_service import TOKEN, Served

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = ROOT / "tests" / "artifacts" / "web"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
    "--mute-audio",
)
DESKTOP = (1280, 900)
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
WAIT_S = 120.0  # longest wait for what a page should show: bounds a hang, never paces
NAVIGATING = ("does not belong to the document", "document unloaded", "execution context was destroyed")


def need_browser() -> None:
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.skip("chromium and chromium-driver are not installed (`python3 build.py --dev` installs them)")
    pytest.importorskip("selenium", reason="selenium is not installed (`python3 build.py --dev`)")


class Browser:
    """One headless Chromium with a fresh profile, logged in or not, that saves screenshots."""

    def __init__(self, url: str) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in FLAGS:
            options.add_argument(flag)
        self.profile = tempfile.mkdtemp(prefix="lifemem-chromium-")
        options.add_argument(f"--user-data-dir={self.profile}")
        options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
        self.driver.set_page_load_timeout(120)
        self.url = url

    def open(self, path: str) -> None:
        self.driver.get(self.url + path)

    @property
    def path(self) -> str:
        return self.driver.current_url.removeprefix(self.url)

    def css(self, selector: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str) -> list:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self, selector: str = "main") -> str:
        return self.css(selector).text

    def wait(self, condition, timeout_s: float = WAIT_S, what: str = ""):
        from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        ignored = (NoSuchElementException, StaleElementReferenceException)  # the page is changing meanwhile
        wait = WebDriverWait(self.driver, timeout_s, poll_frequency=0.2, ignored_exceptions=ignored)
        return wait.until(lambda _: self._settled(condition), what)

    @staticmethod
    def _settled(condition):
        """The condition, or False while a navigation swaps the document under it: Chromium then answers
        an element it had just found with an inspector error rather than a stale element."""
        from selenium.common.exceptions import WebDriverException

        try:
            return condition()
        except WebDriverException as error:
            if any(sign in str(error.msg) for sign in NAVIGATING):
                return False
            raise

    def log_in(self, token: str = TOKEN) -> None:
        """Through the login form the first page redirects to."""
        if not self.path.startswith("/login"):
            self.open("/")
        self.css("#token").send_keys(token)
        self.css(".login button").click()
        self.wait(lambda: not self.path.startswith("/login"), what="the login to go through")

    def submit(self, form_selector: str) -> None:
        self.css(f"{form_selector} button[type=submit]").click()

    def errors(self) -> list[str]:
        """Console errors since the last call (a 404 the page asked for included)."""
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def shoot(self, name: str) -> None:
        """The page as it is, desktop (whole height) and phone-sized, into the artifacts folder."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        height = self.driver.execute_script("return document.documentElement.scrollHeight")
        self.driver.set_window_size(DESKTOP[0], min(max(height + 140, DESKTOP[1]), 6000))
        self.driver.save_screenshot(str(ARTIFACTS / f"{name}-desktop.png"))
        self.driver.set_window_size(*DESKTOP)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        try:
            self.wait(lambda: self.driver.execute_script("return window.innerWidth") == PHONE["width"])
            assert self.phone_fits(), f"{name}: wider than a phone's screen"
            self.driver.save_screenshot(str(ARTIFACTS / f"{name}-phone.png"))
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def phone_fits(self) -> bool:
        return self.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")

    def quit(self) -> None:
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


def api(server: Served, path: str) -> dict:
    return server.http.get(path).json()


def said_by(server: Served, words: str) -> tuple[int, str]:
    """(id, name) of whoever said the line containing `words`."""
    lines = [
        u for s in api(server, "/v1/sessions")["sessions"] for u in api(server, f"/v1/sessions/{s['id']}")["utterances"]
    ]
    name = next(u["person"] for u in lines if words in u["text"].lower())
    return next(p["id"] for p in api(server, "/v1/people")["people"] if p["name"] == name), name


def transcript(server: Served) -> list[str]:
    sessions = sorted(api(server, "/v1/sessions")["sessions"], key=lambda s: s["t_start"], reverse=True)
    return [u["text"] for s in sessions for u in api(server, f"/v1/sessions/{s['id']}")["utterances"]]
