"""The contest server in a real browser (Playwright with Debian's chromium, as the report test does).

A student follows the login link (the token leaves the address bar), uploads a
broken bot and reads why it was refused, uploads a working one and sees it
admitted, then watches the leaderboard change without reloading the page.
The screenshots go to test-artifacts/ (docs/teachers.md and docs/students.md show them).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from tests.browser_helpers import ARTIFACTS, launch_browser, play_passively, require_chromium  # noqa: E402
from tests.server_helpers import BROKEN, RAISER, Served, contest_file, free_port, links  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


@pytest.mark.slow
def test_student_uploads_and_watches_the_leaderboard_live(tmp_path: Path) -> None:
    executable = require_chromium()
    from playwright.sync_api import sync_playwright
    contest = contest_file(tmp_path, hands=20, extra="[play]\nhands = 3\n")
    port = free_port()
    urls = links(contest, port)
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "bot.py").write_text(RAISER, encoding="utf-8")
    server = Served(contest, port)
    errors: list[str] = []
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with sync_playwright() as pw:
            browser = launch_browser(pw, executable, tmp_path / "profile")
            try:
                page = browser.new_page()
                page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
                page.goto(urls["alice"])
                page.wait_for_url(server.url + "/")  # the token left the address bar
                page.wait_for_selector("h1:text-is('Leaderboard')")
                cookie = next(c for c in browser.cookies() if c["name"] == "harness_session")
                assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
                page.click("nav a:text-is('my bot')")
                page.wait_for_selector("h1:text-is('alice')")
                # a broken bot: refused, with the reason and the traceback
                page.set_input_files("#upload input[type=file]", str(tmp_path / "broken.py"))
                page.click("#upload button[type=submit]")
                page.wait_for_selector("#state:text-is('refused')", timeout=600_000)
                assert "ModuleNotFoundError" in page.inner_text("#reason")
                assert "nosuchmodule_for_the_test" in page.inner_text("#stderr")
                page.screenshot(path=str(ARTIFACTS / "server-refused.png"), full_page=True)
                # a working bot: admitted
                page.goto(server.url + "/students/alice")
                page.set_input_files("#upload input[type=file]", str(tmp_path / "bot.py"))
                page.click("#upload button[type=submit]")
                page.wait_for_selector("#state:text-is('admitted')", timeout=600_000)
                page.screenshot(path=str(ARTIFACTS / "server-admitted.png"), full_page=True)
                # the leaderboard updates itself (the refused upload was version 1): the page is never reloaded
                page.goto(server.url + "/")
                page.evaluate("window.__same_page = 'yes'")

                def hands() -> int:
                    cell = page.query_selector("#board tr[data-bot='alice.v2'] td.hands")
                    return int(cell.inner_text()) if cell else -1

                start = hands()
                page.wait_for_function(
                    "(start) => { const c = document.querySelector(\"#board tr[data-bot='alice.v2'] td.hands\");"
                    " return c && Number(c.textContent) > Math.max(start, 0); }", arg=start, timeout=600_000)
                assert page.evaluate("window.__same_page") == "yes"
                assert hands() > max(start, 0)
                page.screenshot(path=str(ARTIFACTS / "server-leaderboard.png"), full_page=True)
                # the student page: the rating chart is the report's plotly chart, plotly.js served locally
                deadline = time.monotonic() + 600  # an outer limit: the wait is for the chart
                while True:
                    page.goto(server.url + "/students/alice")
                    if page.query_selector("#rating[data-figure]") or time.monotonic() > deadline:
                        break
                    page.wait_for_timeout(2000)
                page.wait_for_selector("#rating .main-svg", timeout=600_000)
                assert "alice.v2" in page.inner_text("#rating")  # the legend names the version
                page.screenshot(path=str(ARTIFACTS / "server-student.png"), full_page=True)
                # play against a bot: the same table as harness play --web, served under /play/<id>/
                page.select_option("#play select", "caller")
                page.click("#play button")
                page.wait_for_selector("#hand .card", timeout=600_000)
                assert page.locator("#hand .card").count() == 7
                page.wait_for_selector("#controls button", timeout=600_000)
                page.screenshot(path=str(ARTIFACTS / "server-play.png"), full_page=True)
                play_passively(page)  # check, call or stand pat until the game is over
                with page.expect_download() as download:
                    page.click("a[href='hands']")
                assert download.value.suggested_filename.startswith("game-")
                page.goto(server.url + "/students/alice")
                # a match page: the report's table viewer; at the deal only alice's own cards are face up
                page.click("a[href^='/matches/']")
                page.wait_for_selector("#viewer .tv-seat")
                for box in page.query_selector_all("#viewer .tv-seat"):
                    up = box.query_selector_all(".tv-card:not(.tv-back)")
                    assert bool(up) == ("alice.v2" in box.query_selector(".tv-name").inner_text())
                page.screenshot(path=str(ARTIFACTS / "server-match.png"), full_page=True)
                # the admin's page
                admin: Any = browser.new_page()
                admin.goto(urls["admin"])
                admin.click("#sign-in")  # over alice's session the link asks first
                admin.wait_for_url(server.url + "/")
                admin.goto(server.url + "/admin")
                admin.wait_for_selector("h1:text-is('Admin')")
                admin.screenshot(path=str(ARTIFACTS / "server-admin.png"), full_page=True)
            finally:
                browser.close()
    finally:
        server.stop()
    assert errors == []
