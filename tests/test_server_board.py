"""The board read right: ranks, unranked versions, per-opponent intervals, challenges, refusals, the freeze.

One real server (uvicorn, SQLite) and real Chromium read the pages as a student and the teacher do; the ladder
is paused through the final's switch (``ladder_paused``) while a version waits for its first block and a
challenge waits to be played.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from harness.server.board import Row, ranked  # noqa: E402
from tests.browser_helpers import ARTIFACTS, launch_browser, require_chromium  # noqa: E402
from tests.server_helpers import (  # noqa: E402
    RAISER,
    Served,
    contest_file,
    free_port,
    links,
    upload,
    version_state,
    wait_for,
)


def _row(bot: str, rating: float, bb: float, blocks: int, status: str = "active") -> Row:
    return Row(bot=bot, student=bot.split(".")[0], version=1, hands=blocks * 20, bb_per_100=bb, ci95_low=None,
               ci95_high=None, rating=rating, rating_sigma=2.0, status=status, blocks=blocks)


def test_ranks_by_rating_with_bb_ranks_beside_and_unplayed_versions_unranked() -> None:
    """A version with no complete block is never placed at the prior rating: it has no rank and comes after the
    ranked ones, whatever its rating; older versions come last, unranked."""
    rows = ranked([_row("new.v1", 25.0, 0.0, 0), _row("a.v1", 20.0, 97.5, 3), _row("b.v1", 30.0, 1.75, 3),
                   _row("old.v1", 40.0, 200.0, 5, "inactive"), _row("c.v1", 10.0, -5.0, 1)])
    assert [(r.bot, r.rank, r.bb_rank) for r in rows] == [
        ("b.v1", 1, 2), ("a.v1", 2, 1), ("c.v1", 3, 3), ("new.v1", None, None), ("old.v1", None, None)]


def _paused(contest: Path, on: bool) -> None:
    """Pause or resume the ladder as the final does (the ``ladder_paused`` setting)."""
    from harness.server import db, store
    from harness.server.contest import load_contest

    engine = db.make_engine(load_contest(contest).database)
    try:
        store.set_setting(engine, "ladder_paused", "1" if on else "0")
    finally:
        engine.dispose()


@pytest.mark.slow
def test_the_board_and_a_students_page_read_right_in_chromium(tmp_path: Path) -> None:
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    contest = contest_file(tmp_path, hands=10, quota=1)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    errors: list[str] = []
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        alice, bob, carol, admin = (server.client(urls[n]) for n in ("alice", "bob", "carol", "admin"))
        for client in (alice, bob):
            vid = upload(client, "bot.py", RAISER.encode()).json()["id"]
            assert wait_for(lambda c=client, v=vid: version_state(c, v)["state"] != "checking", timeout=600)
        def played() -> bool:
            rows = alice.get("/api/leaderboard").json()
            return len(rows) == 3 and all(r["blocks"] >= 2 for r in rows if r["bot"] in ("alice.v1", "bob.v1"))

        wait_for(played, timeout=900)
        _paused(contest, True)  # no block starts from now on
        vid = upload(carol, "bot.py", (RAISER + "\n# carol\n").encode()).json()["id"]
        assert wait_for(lambda: version_state(carol, vid)["state"] != "checking", timeout=600)
        assert version_state(carol, vid)["state"] == "admitted"
        def board() -> list[dict]:
            rows = alice.get("/api/leaderboard").json()
            return rows if any(r["bot"] == "carol.v1" for r in rows) else []

        rows = {r["bot"]: r for r in wait_for(board, timeout=300)}
        assert rows["carol.v1"]["rank"] is None and rows["carol.v1"]["blocks"] == 0
        assert sorted(r["rank"] for r in rows.values() if r["rank"] is not None) == [1, 2, 3]
        assert all(isinstance(r["rating_sigma"], float) and r["rating_sigma"] > 0 for r in rows.values())
        with sync_playwright() as pw:
            browser = launch_browser(pw, executable, tmp_path / "profile")
            try:
                page = browser.new_page()
                page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
                page.goto(urls["alice"])
                page.wait_for_url(server.url + "/")
                # the board: carol's version apart, unranked; the ± says what it is; the rule is explained
                page.wait_for_selector("#unranked tr[data-bot='carol.v1']")
                assert page.locator("#board tr[data-bot='carol.v1']").count() == 0
                assert "rating ± 1σ" in page.inner_text("#board thead")
                assert "# bb/100" in page.inner_text("#board thead")
                assert "final" in page.inner_text("#how-ranked")
                ranks = page.locator("#board td.rank").all_inner_texts()
                assert ranks == ["1", "2", "3"], ranks
                page.screenshot(path=str(ARTIFACTS / "server-board-unranked.png"), full_page=True)
                # alice's page: her rank, per-opponent intervals
                page.goto(server.url + "/students/alice")
                assert re.search(r"Rank [123] of 3", page.inner_text("#standing"))
                intervals = page.locator("#opponents td.interval").all_inner_texts()
                assert intervals and all(re.fullmatch(r"-?\d+\.\d\d \.\. -?\d+\.\d\d", t) for t in intervals), intervals
                # the chart's x axis: whole block numbers only
                page.wait_for_selector("#rating .xtick text")
                ticks = page.locator("#rating .xtick text").all_text_contents()  # SVG: no innerText
                assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks), ticks
                # a challenge (the quota is 1): pending while the ladder is paused, listed; the next is refused
                # with a page and a way back
                page.select_option("form[action='/challenge'] select", "bob.v1")
                page.click("form[action='/challenge'] button")
                page.wait_for_selector("#pending tr")
                assert "bob.v1" in page.inner_text("#pending") and "waiting" in page.inner_text("#pending")
                page.select_option("form[action='/challenge'] select", "caller")
                page.click("form[action='/challenge'] button")
                page.wait_for_selector("#reason")
                assert "Quota reached" in page.inner_text("#reason")
                assert page.inner_text("h1") == "Challenge refused"
                page.click("#back")
                page.wait_for_url(server.url + "/students/alice")
                # the ladder plays again: the challenge block is marked among the matches
                _paused(contest, False)
                mine = server.url + "/students/alice"
                wait_for(lambda: page.goto(mine) and page.locator("#matches tr[data-kind='challenge']").count(),
                         timeout=600, every=1.0)
                assert "challenge" in page.inner_text("#matches tr[data-kind='challenge']")
                assert page.inner_text("#pending") == "None."
                page.screenshot(path=str(ARTIFACTS / "server-student-ranked.png"), full_page=True)
                # frozen: no submit form, a notice instead; a refused activation is a page with a way back
                assert admin.post("/admin/freeze", data={"value": "1"}, follow_redirects=False).status_code == 303
                page.goto(server.url + "/students/alice")
                assert page.locator("#upload").count() == 0
                assert "Submissions are closed" in page.inner_text("#closed")
                page.goto(server.url + "/students/carol")
                assert page.locator("#closed").count() == 0  # another's page: neither form nor notice
            finally:
                browser.close()
        answer = alice.post("/challenge", data={"opponent": "nobody"})
        assert answer.status_code in (400, 429) and 'id="back"' in answer.text and 'id="reason"' in answer.text
    finally:
        server.stop()
    assert errors == []
