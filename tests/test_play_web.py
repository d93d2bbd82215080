"""``harness play --web`` in a real browser (Playwright with Debian's chromium): one hand played by clicking.

The hand includes a raise (the slider's button) and a draw of two clicked
cards; the hand history must record both as the human seat's replies.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.history.files import read_history
from tests.browser_helpers import (
    CHROMIUM_FLAGS,
    LOCAL_URL,
    launch_browser,
    play_passively,
    require_chromium,
    wrong_secrets,
)
from tests.history_helpers import schema_errors

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]
RAISER = f"raiser={sys.executable} -m bots.raiser"


def _harness() -> list[str]:
    exe = Path(sys.executable).with_name("harness")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from harness.cli import app; app()"]


def test_one_hand_played_by_clicking_with_a_raise_and_a_two_card_draw(tmp_path: Path) -> None:
    executable = require_chromium()
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright
    out = tmp_path / "game"
    proc = subprocess.Popen(
        [*_harness(), "play", "--web", "--bot", RAISER, "--hands", "1", "--seed", "7", "--out", str(out),
         "--sandbox", "off"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    try:
        url = None
        end = time.monotonic() + 300  # an outer limit: the wait is for the line
        while url is None and time.monotonic() < end:
            line = proc.stderr.readline()  # type: ignore[union-attr]
            found = LOCAL_URL.search(line)
            if found:
                url = found.group(1)
            assert line or proc.poll() is None, "harness play --web ended before printing its URL"
        assert url, "no URL printed"
        root = url.rsplit("/", 2)[0] + "/"
        assert _get(root + "state") == 404 and _get(root) == 404  # the hole cards need the secret
        with sync_playwright() as pw:
            browser = launch_browser(pw, executable, tmp_path / "profile", size=(1200, 800))
            try:
                page = browser.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(url)
                # Round 1: raise with the slider's button, then call whatever comes back.
                page.wait_for_selector("#wager")
                assert page.locator("#hand .card").count() == 7
                page.fill("#amount", "30")
                page.dispatch_event("#amount", "input")
                assert page.inner_text("#wager") == "Raise to 30"
                page.click("#wager")
                raised = True
                page.wait_for_function("() => !document.querySelector('#wager') || "
                                       "document.querySelector('#hand.drawing')")
                call = page.locator("#controls button", has_text=re.compile("^(Call|Check)"))
                while True:  # call until the draw (never the draw's own button: it would stand pat)
                    page.wait_for_function(
                        "() => document.querySelector('#hand.drawing') || [...document.querySelectorAll("
                        "'#controls button')].some(b => /^(Call|Check)/.test(b.textContent))", timeout=300_000)
                    if page.locator("#hand.drawing").count():
                        break
                    try:
                        call.first.click(timeout=3000)
                    except PlaywrightTimeout:  # the draw came meanwhile: the loop sees it
                        continue
                    page.wait_for_timeout(300)
                # The draw: click two cards, then Discard 2.
                cards = page.locator("#hand .card")
                picked = [cards.nth(5).get_attribute("data-card"), cards.nth(6).get_attribute("data-card")]
                cards.nth(5).click()
                cards.nth(6).click()
                assert page.inner_text("#controls button.passive") == "Discard 2"
                if os.environ.get("HARNESS_WRITE_DOCS"):
                    page.screenshot(path=str(ROOT / "docs" / "img" / "play-web.png"))
                page.click("#controls button.passive")
                # Round 2: check or call until the hand is over.
                play_passively(page)
                assert "match over" in page.inner_text("#status")
                assert errors == []
            finally:
                browser.close()
        assert proc.wait(300) == 0, proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (record,) = list(read_history(out / "hands.jsonl"))
    assert schema_errors(record) == []
    mine = [a for a in record["actions"] if a["seat"] == 0]
    assert all(a["by"] == "bot" for a in mine)
    assert raised and any(a["kind"] == "raise" and a["to"] == 30 for a in mine)
    draw = next(a for a in mine if a["kind"] == "draw")
    assert sorted(draw["discards"]) == sorted(picked)


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_answer_route_takes_json_from_its_own_page_only() -> None:
    from harness.play.web import WebTable

    table = WebTable(port=0, pace_ms=0)
    try:
        answer = table.url + "answer"
        own = f"http://127.0.0.1:{table.port}"
        body = b'{"seq": 1, "action": "fold"}'
        assert _post(answer, body, {"Content-Type": "text/plain"})[0] == 415  # what a foreign form can send
        code, text = _post(answer, body, {"Content-Type": "application/json", "Origin": "http://evil.example"})
        assert code == 403 and "evil.example" in text
        assert _post(answer, body, {"Content-Type": "application/json", "Host": "evil.example"})[0] == 400
        code, text = _post(answer, body, {"Content-Type": "application/json", "Origin": own})
        assert code == 409 and "nothing to answer" in text  # the right page, but no request is pending
        assert _post(answer, b'{"seq": "x"}', {"Content-Type": "application/json"})[0] == 400
    finally:
        table.close(0)


def _get(url: str) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_every_route_of_the_table_needs_its_secret() -> None:
    """Another user of this machine reaches 127.0.0.1 too: without the printed URL's secret (or with a wrong
    one) the page, the table's state (the hole cards), the event stream, the script and the answer are 404;
    with it, they answer, each with the page's CSP."""
    import urllib.request

    from harness.play.guard import PAGE_CSP
    from harness.play.web import WebTable

    table = WebTable(port=0, pace_ms=0)
    try:
        root = f"http://127.0.0.1:{table.port}/"
        secret = table.url.removeprefix(root).strip("/")
        assert len(secret) == 32 and LOCAL_URL.search(f"open {table.url} in your browser")
        body = b'{"seq": 1, "action": "fold"}'
        for base in (root, *wrong_secrets(root, secret), f"{root}static/"):
            for route in ("", "state", "events", "static/play.js", "static/play.css"):
                assert _get(base + route) == 404, base + route
            assert _post(base + "answer", body, {"Content-Type": "application/json"})[0] == 404
        for route in ("", "state", "static/play.js"):
            with urllib.request.urlopen(table.url + route, timeout=10) as reply:
                assert reply.status == 200 and reply.headers["Content-Security-Policy"] == PAGE_CSP
        with urllib.request.urlopen(table.url, timeout=10) as reply:
            page = reply.read().decode()
        assert f'data-base="/{secret}/"' in page and f'src="/{secret}/static/play.js"' in page
    finally:
        table.close(0)


def test_a_page_that_connects_before_the_first_message_gets_a_whole_table() -> None:
    """The contest server's game page can load before the seat's first message: every key the page draws."""
    from harness.play.channel import TableChannel
    from harness.play.table import TableView

    state = TableChannel().state()
    assert set(TableView().snapshot()) <= set(state) and state["over"] is False and state["pots"] == []


def test_the_logs_numbers_past_9_are_shown_whole(tmp_path: Path) -> None:
    """The log is a numbered list that scrolls: every number ("10.", "120.") lies inside its box, none clipped."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    css = (ROOT / "harness" / "play" / "static" / "play.css").read_text(encoding="utf-8")
    items = "".join(f"<li>line {i}</li>" for i in range(1, 131))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.set_content(f"<!DOCTYPE html><html><head><style>{css}</style></head><body><main>"
                             f"<aside><ol id=\"log\">{items}</ol></aside></main></body></html>")
            # The widest number's width, in the list's font, against the room left of each item's text.
            clipped = page.evaluate("""() => {
                const ol = document.getElementById('log'), li = ol.lastElementChild;
                const probe = document.createElement('span');
                probe.textContent = '130. ';
                li.appendChild(probe);
                const number = probe.getBoundingClientRect().width;
                probe.remove();
                if (getComputedStyle(li).listStylePosition === 'inside') return 0;
                return number - (li.getBoundingClientRect().left - ol.getBoundingClientRect().left);
            }""")
            assert clipped <= 0, f"the list's numbers are cut by {clipped:.1f} px"
        finally:
            browser.close()
