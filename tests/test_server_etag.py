"""Polled pages answer ``304 Not Modified`` when nothing they show changed (``ETag`` / ``If-None-Match``), and a new
tag as soon as something did: an upload, a freeze, a completed block. A real ``harness serve`` on 127.0.0.1; in
Chromium, the leaderboard revalidated by a reload is a 304 and still updates itself from ``/events``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("starlette")

from harness.server import etag  # noqa: E402
from tests.server_helpers import RAISER, served_contest, upload, wait_for  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def _again(client, url: str, tag: str):  # noqa: ANN001, ANN202
    return client.get(url, headers={"If-None-Match": tag})


def test_tags_and_304s() -> None:
    assert etag.tag("a", 1) == etag.tag("a", 1) != etag.tag("a", 2)
    current = etag.tag("page")
    assert etag.matches(current, current) and etag.matches(current.removeprefix("W/"), current)
    assert etag.matches(f'"x", {current}', current) and etag.matches("*", current)
    assert not etag.matches(None, current) and not etag.matches('"x"', current)


@pytest.mark.slow
def test_polled_pages_answer_304_until_what_they_show_changes(tmp_path: Path) -> None:
    with served_contest(tmp_path) as (server, urls):
        alice, bob, admin = server.client(urls["alice"]), server.client(urls["bob"]), server.client(urls["admin"])
        try:
            first = alice.get("/")
            assert first.status_code == 200 and first.headers["cache-control"] == etag.CACHE_CONTROL
            tag = first.headers["etag"]
            unchanged = _again(alice, "/", tag)
            assert unchanged.status_code == 304 and unchanged.content == b"" and unchanged.headers["etag"] == tag
            assert _again(bob, "/", tag).status_code == 200  # the page names who is signed in: another tag
            # the board as JSON: one tag for every session, from the published board's stamp
            api = alice.get("/api/leaderboard")
            assert api.status_code == 200 and api.headers["cache-control"] == etag.CACHE_CONTROL
            api_tag = api.headers["etag"]
            assert _again(alice, "/api/leaderboard", api_tag).status_code == 304
            assert _again(bob, "/api/leaderboard", api_tag).status_code == 304
            # the admin page keeps its tag while the ladder rewrites its job-slot seconds (every few seconds, playing
            # or not): the page fetches those itself, from /admin/slots
            page = admin.get("/admin")
            assert page.status_code == 200 and 'src="/assets/admin.js"' in page.text
            slots = admin.get("/admin/slots")
            assert slots.status_code == 200 and set(slots.json()) == {"busy_s", "available_s"}
            assert _again(admin, "/admin/slots", slots.headers["etag"]).status_code == 304
            wait_for(lambda: admin.get("/admin/slots").json()["available_s"] > slots.json()["available_s"])
            assert _again(admin, "/admin/slots", slots.headers["etag"]).status_code == 200  # rewritten: a new tag
            assert _again(admin, "/admin", page.headers["etag"]).status_code == 304
            assert _again(alice, "/admin/slots", slots.headers["etag"]).status_code == 404
            # a student's page: 304 until one of its versions changes
            page = alice.get("/students/alice")
            assert page.status_code == 200 and "No active version" in page.text
            assert _again(alice, "/students/alice", page.headers["etag"]).status_code == 304
            assert _again(alice, "/students/nobody", page.headers["etag"]).status_code == 404
            assert upload(alice, "bot.py", RAISER.encode()).status_code == 201
            fresh = _again(alice, "/students/alice", page.headers["etag"])
            assert fresh.status_code == 200 and "v1" in fresh.text and fresh.headers["etag"] != page.headers["etag"]
            # the admin page while the ladder plays (a result stored changes it: asked again at once)
            def admin_304() -> bool:
                got = admin.get("/admin")
                return got.status_code == 200 and _again(admin, "/admin", got.headers["etag"]).status_code == 304
            wait_for(admin_304)
            # a freeze changes every page's banner
            board = alice.get("/")
            assert admin.post("/admin/freeze", data={"value": "1"}, follow_redirects=False).status_code == 303
            frozen = _again(alice, "/", board.headers["etag"])
            assert frozen.status_code == 200 and "submissions closed" in frozen.text
            # a completed block changes the leaderboard
            tag = frozen.headers["etag"]
            wait_for(lambda: any(r["bot"] == "alice.v1" and r["blocks"] for r in alice.get("/api/leaderboard")
                                 .json()), timeout=600)
            played = _again(alice, "/", tag)
            assert _again(alice, "/api/leaderboard", api_tag).status_code == 200  # a new board: a new tag
            assert played.status_code == 200 and 'data-bot="alice.v1"' in played.text.split('id="unranked"')[0]
        finally:
            for client in (alice, bob, admin):
                client.close()


@pytest.mark.slow
def test_the_leaderboard_revalidated_in_chromium_still_updates_itself(tmp_path: Path) -> None:
    from tests.browser_helpers import launch_browser, require_chromium

    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    with served_contest(tmp_path, hands=20) as (server, urls), sync_playwright() as pw:
        browser = launch_browser(pw, executable, tmp_path / "profile")
        admin = server.client(urls["admin"])
        try:
            page = browser.new_page()
            page.goto(urls["alice"])
            page.wait_for_url(server.url + "/")
            # what came over the wire (Playwright's own response gives a revalidated page's stored 200)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Network.enable")
            urls_of: dict[str, str] = {}
            wire: dict[str, int] = {}
            cdp.on("Network.requestWillBeSent", lambda e: urls_of.__setitem__(e["requestId"], e["request"]["url"]))
            cdp.on("Network.responseReceivedExtraInfo", lambda e: wire.__setitem__(e["requestId"], e["statusCode"]))

            def statuses() -> list[int]:
                return [wire[r] for r, url in urls_of.items() if url == server.url + "/" and r in wire]

            page.reload()  # Chromium asks with If-None-Match; nothing changed: a 304, nothing rendered
            page.wait_for_selector("h1:text-is('Leaderboard')")
            wait_for(statuses)
            assert statuses() == [304]
            # the revalidated page updates itself as the ladder plays alice's first version
            assert upload(admin, "bot.py", RAISER.encode(), student="alice").status_code == 201
            page.evaluate("window.__same_page = 'yes'")
            page.wait_for_function(
                "() => { const c = document.querySelector(\"#board tr[data-bot='alice.v1'] td.hands\");"
                " return c && Number(c.textContent) > 0; }", timeout=600_000)
            assert page.evaluate("window.__same_page") == "yes"
            assert statuses() == [304]  # never loaded again
        finally:
            admin.close()
            browser.close()
