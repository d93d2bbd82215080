"""``harness watch DIR``: the public script of a hand, and two browsers following a growing hand history.

The history is written a hand at a time by the test while two chromium pages
watch: both must advance to the last hand without a reload, and neither may
ever draw a face-up card while the hand it shows is not over.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from harness.engine import GameConfig
from harness.play.watch import Follower, hand_script
from tests.browser_helpers import CHROMIUM_FLAGS, LOCAL_URL, require_chromium, wrong_secrets
from tests.history_helpers import random_match

ROOT = Path(__file__).resolve().parents[1]

#: Records any face-up card in the seats while the hand shown is not over.
WATCHDOG = """
window.__violations = [];
new MutationObserver(() => {
  const felt = document.getElementById('felt');
  if (felt && felt.dataset.complete === 'false' && felt.querySelector('.tv-seat .tv-card:not(.tv-back)'))
    window.__violations.push(felt.dataset.hand);
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


def test_the_public_script_holds_cards_only_at_the_end() -> None:
    records = random_match(GameConfig(), seats=3, hands=8, seed=4)
    for i, r in enumerate(records):
        script = hand_script(r, i)
        dealt = {c for p in r["players"] for c in p["dealt"] + p["final_cards"]}
        public = json.dumps(script["public"])
        assert not any(re.search(rf'"{c}"', public) for c in dealt), "a card in the public view"
        assert dealt <= {c for cards in script["end"]["hole"] + script["end"]["final"] for c in cards}
        steps = script["public"]["steps"]
        assert len(steps) == len(r["posts"]) + len(r["actions"])
        assert [s["count"] for s in steps if s["action"] == "draw"] == [
            len(a["discards"]) for a in r["actions"] if a["kind"] == "draw"]  # draws as counts (R4.3)
        assert script["end"]["net"] == [p["net"] for p in r["players"]]
        assert steps[-1]["pot"] == sum(p["stack"] for p in r["players"]) - sum(steps[-1]["stacks"])


def test_hide_cards_keeps_the_seen_seats_and_the_shown_down_fives() -> None:
    from harness.report.hands import hand_view
    from harness.report.viewer import hide_cards, viewer_view

    records = random_match(GameConfig(), seats=3, hands=20, seed=7)
    assert any(r["shown"] for r in records)
    for r in records:
        full = viewer_view(hand_view(r))
        view = hide_cards(full, seen=[1], shown=True, fault_details=False)
        assert view["hole"][1] == full["hole"][1] and view["final"][1] == full["final"][1]
        for k in (0, 2):
            assert view["hole"][k] == [None] * len(full["hole"][k])
            assert all(set(s) <= {"seat", "action", "phase", "by", "fault", "added", "to", "owed", "all_in", "count",
                                  "pot", "stacks"} for s in view["steps"] if s["seat"] == k)
        assert view["shown"] == full["shown"]
        cats = {x["seat"]: x["category"] for x in full["shown"]}
        assert view["categories"] == [cats.get(0, ""), full["categories"][1], cats.get(2, "")]
        assert full["hole"][0][0] is not None  # the full view was not changed


def test_the_follower_reads_a_growing_history(tmp_path: Path) -> None:
    records = random_match(GameConfig(), seats=2, hands=5, seed=2)
    (tmp_path / "logs").mkdir()
    history = tmp_path / "hands.jsonl"
    history.write_text(json.dumps(records[0]) + "\n" + json.dumps(records[1])[:50], encoding="utf-8")
    follower = Follower(tmp_path)
    assert follower.poll() == 1
    with history.open("w", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))
    assert follower.poll() == 4
    assert sum(r["net"] for r in follower.standings()) == 0
    assert [h["hand_id"] for h in follower.hands] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("damage", "said"),
    [(lambda line: line[:60] + "\n", r"line 2: not valid JSON"),  # a line cut short, then more lines
     (lambda line: "[1, 2]\n", r"line 2: expected a JSON object"),
     (lambda line: line.replace('"hand_id": 1', '"hand_id": "one"'), r"line 2: hand_id: expected a whole number"),
     (lambda line: b"\xff\xfe".decode("latin-1") + "\n", r"line 2: not UTF-8 text")],
    ids=["cut-short", "not-an-object", "wrong-field", "not-utf8"],
)
def test_a_damaged_line_followed_by_more_is_said_once_and_the_hands_after_it_are_shown(
        damage: Any, said: str, tmp_path: Path) -> None:
    """Only the last line, without its newline, can be a line still being written: a damaged line followed by
    others is one notice naming the file, the line and the problem, and the watch goes on after it."""
    records = random_match(GameConfig(), seats=2, hands=4, seed=2)
    (tmp_path / "logs").mkdir()
    history = tmp_path / "hands.jsonl"
    lines = [json.dumps(r) + "\n" for r in records]
    lines[1] = damage(lines[1])
    history.write_bytes("".join(lines).encode("latin-1" if "not-utf8" in said or "UTF-8" in said else "utf-8"))
    told: list[str] = []
    follower = Follower(tmp_path, notify=told.append)
    assert follower.poll() == 3
    assert [h["hand_id"] for h in follower.hands] == [0, 2, 3]
    assert len(told) == 1 and re.search(rf"{re.escape(str(history))} {said}", told[0]), told
    assert told[0].endswith("the hands after it are shown") and follower.notices == told
    with history.open("a", encoding="utf-8") as fh:  # the file grows: the notice is not said again
        fh.write(json.dumps(records[0] | {"hand_id": 4}) + "\n")
    assert follower.poll() == 1 and len(told) == 1


def _cut_last_line(folder: Path) -> tuple[Path, list[dict], list[str], Follower]:
    """A match folder whose history's second (last) line has no end yet, followed once: (history, records, the
    notices told, the follower)."""
    records = random_match(GameConfig(), seats=2, hands=2, seed=3)
    (folder / "logs").mkdir()
    history = folder / "hands.jsonl"
    history.write_text(json.dumps(records[0]) + "\n" + json.dumps(records[1])[:80], encoding="utf-8")
    told: list[str] = []
    follower = Follower(folder, notify=told.append)
    assert follower.poll() == 1 and told == []  # the last line, no newline yet: still being written
    return history, records, told, follower


def test_a_damaged_last_line_that_ends_in_a_newline_is_said_but_one_being_written_is_not(tmp_path: Path) -> None:
    history, records, told, follower = _cut_last_line(tmp_path)
    history.write_text(json.dumps(records[0]) + "\n" + json.dumps(records[1])[:80] + "\n", encoding="utf-8")
    assert follower.poll() == 0
    assert len(told) == 1 and f"{history} line 2: not valid JSON" in told[0]


def test_a_last_line_cut_off_in_a_finished_match_is_said(tmp_path: Path) -> None:
    """Once result.json is written (after the last hand), a last line without its end will never be completed."""
    history, _, told, follower = _cut_last_line(tmp_path)
    (tmp_path / "result.json").write_text("{}", encoding="utf-8")
    assert follower.poll() == 0
    assert len(told) == 1 and f"{history} line 2" in told[0] and "the match is finished" in told[0], told


def test_damaged_compressed_data_is_said_and_the_hands_before_it_are_shown(tmp_path: Path) -> None:
    import gzip

    records = random_match(GameConfig(), seats=2, hands=3, seed=5)
    (tmp_path / "logs").mkdir()
    history = tmp_path / "hands.jsonl.gz"
    good = gzip.compress(json.dumps(records[0]).encode() + b"\n")
    history.write_bytes(good + b"\x1f\x8b\x08\x00garbage that is not deflate data" * 4)
    told: list[str] = []
    follower = Follower(tmp_path, notify=told.append)
    assert follower.poll() == 1
    assert len(told) == 1 and f"{history} line 2:" in told[0] and told[0].endswith("cannot be read"), told


@pytest.mark.slow  # a process and its server
def test_harness_watch_says_a_damaged_line_on_stderr_in_one_line(tmp_path: Path) -> None:
    records = random_match(GameConfig(), seats=2, hands=3, seed=6)
    (tmp_path / "logs").mkdir()
    history = tmp_path / "hands.jsonl"
    history.write_text("".join([json.dumps(records[0]) + "\n", "{oops\n", json.dumps(records[2]) + "\n"]),
                       encoding="utf-8")
    exe = Path(sys.executable).with_name("harness")
    proc = subprocess.Popen([str(exe), "watch", str(tmp_path)], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        first = proc.stderr.readline()  # type: ignore[union-attr]
        assert first.startswith("harness watch: notice: "), first  # said before the server's address
        second = proc.stderr.readline()  # type: ignore[union-attr]
        found = LOCAL_URL.search(second)
        assert found, second
        with urllib.request.urlopen(found.group(1) + "standings", timeout=300) as reply:  # what the page is sent
            shown = json.loads(reply.read())
    finally:
        proc.terminate()
        proc.wait(300)  # an outer limit only
    assert first.startswith(f"harness watch: notice: not a hand history: {history} line 2: not valid JSON"), first
    assert "the hands after it are shown" in first and "Traceback" not in first
    assert shown["hands"] == 2 and shown["notices"] == [first.removeprefix("harness watch: notice: ").rstrip("\n")]


def _status(url: str) -> int:
    import urllib.error

    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.slow  # a server
def test_every_route_of_the_watch_page_needs_its_secret(tmp_path: Path) -> None:
    """Another user of this machine reaches 127.0.0.1 too: without the printed URL's secret, the page, its files,
    the standings and the event stream are all 404; with it, they answer, each with the page's CSP."""
    from harness.play.guard import PAGE_CSP
    from harness.play.watch import WatchServer

    records = random_match(GameConfig(), seats=2, hands=2, seed=4)
    (tmp_path / "logs").mkdir()
    (tmp_path / "hands.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    server = WatchServer(Follower(tmp_path))
    try:
        root = f"http://127.0.0.1:{server.port}/"
        assert LOCAL_URL.search(f"open {server.url} in your browsers")
        secret = server.url.removeprefix(root).strip("/")
        routes = ["", "standings", "events", "static/watch.js", "static/table-viewer.js", "static/plotly.js"]
        for route in routes:
            for base in (root, *wrong_secrets(root, secret)):
                assert _status(base + route) == 404, base + route
        for route in ("", "standings", "static/watch.js"):
            with urllib.request.urlopen(server.url + route, timeout=10) as reply:
                assert reply.status == 200 and reply.headers["Content-Security-Policy"] == PAGE_CSP
    finally:
        server.close()


def test_a_tournament_is_followed_only_through_its_published_matches(tmp_path: Path) -> None:
    for where, match_id, seed in (("matches", "t1-a", 1), ("matches", "t1-b", 2), (".private/matches", "t2-a", 3)):
        folder = tmp_path / where / match_id
        folder.mkdir(parents=True)
        records = random_match(GameConfig(), seats=2, hands=3, seed=seed, match_id=match_id)
        (folder / "hands.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    follower = Follower(tmp_path)
    assert follower.poll() == 6
    assert {h["match_id"] for h in follower.hands} == {"t1-a", "t1-b"}  # t2 is not revealed yet
    assert follower.poll() == 0


def test_a_folder_that_is_neither_a_match_nor_a_tournament_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no hand history"):
        Follower(tmp_path)


@pytest.mark.slow
def test_two_browsers_follow_a_running_match_and_never_see_a_hole_card_early(tmp_path: Path) -> None:
    executable = require_chromium()
    from playwright.sync_api import sync_playwright
    records = random_match(GameConfig(), seats=3, hands=5, seed=9)
    match = tmp_path / "match"
    (match / "logs").mkdir(parents=True)
    history = match / "hands.jsonl"
    history.write_text("", encoding="utf-8")
    exe = Path(sys.executable).with_name("harness")
    proc = subprocess.Popen([str(exe), "watch", str(match)], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = proc.stderr.readline()  # type: ignore[union-attr]
        found = LOCAL_URL.search(line)
        assert found, line
        url = found.group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
            try:
                pages = []
                loads = []
                for _ in range(2):
                    page = browser.new_page(viewport={"width": 1200, "height": 900})
                    page.add_init_script(WATCHDOG)
                    page.on("load", lambda: loads.append(1))
                    page.goto(url)
                    page.select_option("#viewer .tv-speed", "10")
                    pages.append(page)
                for r in records:  # the match "plays": one hand ends every 0.7 s
                    with history.open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps(r) + "\n")
                    time.sleep(0.7)
                for page in pages:
                    page.wait_for_function(
                        f"() => document.getElementById('felt').dataset.hand === '{len(records) - 1}' && "
                        "document.getElementById('felt').dataset.complete === 'true'", timeout=600_000)
                    assert page.evaluate("window.__violations") == []
                    shown = page.eval_on_selector_all("#felt .tv-seat .tv-card:not(.tv-back)",
                                                      "cs => cs.map(c => c.dataset.card)")
                    last = records[-1]
                    held = {c for p in last["players"] for c in p["dealt"] + p["final_cards"]}
                    assert shown and set(shown) <= held
                    assert page.locator("#graph .main-svg").count() >= 1
                assert len(loads) == 2  # one load per page: the hands came without a reload
                if os.environ.get("HARNESS_WRITE_DOCS"):
                    pages[0].screenshot(path=str(ROOT / "docs" / "img" / "watch.png"))
                # The presenter view: the same page, large, from ?present=1.
                page = browser.new_page(viewport={"width": 1600, "height": 900})
                page.goto(url + "?present=1")
                page.wait_for_selector("body.present")
                page.select_option("#viewer .tv-speed", "10")
                page.wait_for_selector("#felt[data-complete='true']", timeout=300_000)
            finally:
                browser.close()
    finally:
        proc.terminate()
        proc.wait(300)  # an outer limit only
