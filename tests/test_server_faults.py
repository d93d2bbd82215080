"""A bot broken after admission, on a real server: its faults on every page, its output to its author only.

The flaky bot passes the six-hand admission check, then decides slowly (paid from the time bank), then too
slowly (timeouts), and writes markup to stdout all along. With ``[ladder] pause_after_faulty_blocks = 1`` its
first block pauses it and the admin page says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from tests.server_helpers import RAISER, Served, contest_file, free_port, links, upload, version_state, wait_for  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

MARK = "<script>alert(1)</script> garbage"
FLAKY = RAISER.replace('if __name__ == "__main__":\n    raise SystemExit(Raiser().run())', f'''import sys
import time


class Flaky(Raiser):
    """Sound for the check's six hands (0-5); slow at hand 6, too slow from hand 8; markup on stdout."""

    def act(self, state):
        print({MARK!r}, flush=True)
        print("flaky on stderr", file=sys.stderr, flush=True)
        if state.hand_id == 6:
            time.sleep(0.6)
        elif state.hand_id >= 8:
            time.sleep(2.0)
        return super().act(state)


if __name__ == "__main__":
    raise SystemExit(Flaky().run())''')


def test_a_bot_broken_after_admission_is_flagged_paused_and_shown_its_output(tmp_path: Path) -> None:
    assert "class Flaky" in FLAKY
    contest = contest_file(tmp_path, students=("alice", "bob"), hands=10, ladder="pause_after_faulty_blocks = 1\n",
                           extra="[limits]\ndecision_ms = 300\ntime_bank_ms = 1000\n")
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice, bob, admin = (server.client(urls[n]) for n in ("alice", "bob", "admin"))
        flaky = upload(alice, "bot.py", FLAKY.encode()).json()["id"]
        sound = upload(bob, "bot.py", RAISER.encode()).json()["id"]
        for client, vid in ((alice, flaky), (bob, sound)):
            assert wait_for(lambda c=client, v=vid: version_state(c, v)["state"] != "checking", timeout=600)
            assert version_state(client, vid)["state"] == "admitted", version_state(client, vid)
        # the leaderboard (JSON): its faults, once its first block is complete; then it is paused
        row = wait_for(lambda: next((r for r in bob.get("/api/leaderboard").json()
                                     if r["bot"] == "alice.v1" and r["blocks"] and r["faults"]), None), timeout=900)
        assert row["faults"].get("timeout", 0) > 0 and row["faults"].get("slow", 0) > 0, row
        assert wait_for(lambda: next(r for r in bob.get("/api/leaderboard").json() if r["bot"] == "alice.v1")["paused"],
                        timeout=300)
        board = bob.get("/").text
        cells = re.search(r'data-bot="alice\.v1">.*?class="left faults">([^<]*)<', board, re.S)
        assert cells and "timeout" in cells.group(1) and "slow" in cells.group(1)
        # the student's page (public figures: bob sees them too)
        for client in (alice, bob):
            page = client.get("/students/alice").text
            faults = re.search(r'<tr data-version="1">.*?class="left faults">([^<]*)<.*?</tr>', page, re.S)
            assert faults and "timeout" in faults.group(1), page
            assert "paused" in faults.group(0)
        # the admin's page: the notice and the roster
        page = admin.get("/admin").text
        notice = re.search(r'<div class="notice" id="paused">(.*?)</div>', page, re.S)
        assert notice and "alice.v1" in notice.group(1) and "last 1 blocks" in notice.group(1)
        roster = re.search(r'<tr data-student="alice">(.*?)</tr>', page, re.S)
        assert roster and "paused" in roster.group(1) and "timeout" in roster.group(1)
        # a match of alice's: her stdout and stderr shown to her, escaped; never to bob
        match = re.search(r'href="(/matches/b\d+-r\d)"', alice.get("/students/alice").text)
        assert match
        mine = alice.get(match.group(1))
        assert "Content-Security-Policy" in mine.headers
        seat = re.search(r'<pre class="log" id="stdout-(\d)">([^<]*)</pre>', mine.text)
        assert seat and "&lt;script&gt;alert(1)&lt;/script&gt; garbage" in seat.group(2)
        assert MARK not in mine.text
        assert re.search(r'<pre class="log" id="stderr-\d">[^<]*flaky on stderr', mine.text)
        full = alice.get(f"{match.group(1)}/logs/{seat.group(1)}?stream=out")
        assert full.status_code == 200 and MARK in full.text and full.headers["content-type"].startswith("text/plain")
        theirs = bob.get(match.group(1))
        assert theirs.status_code == 200 and "garbage" not in theirs.text and "flaky on stderr" not in theirs.text
        for stream in ("out", "err"):
            assert bob.get(f"{match.group(1)}/logs/{seat.group(1)}?stream={stream}").status_code == 404
        assert alice.get(f"{match.group(1)}/logs/{seat.group(1)}?stream=x").status_code == 404
        # the admin resumes it (tests/test_server_ladder.py: it plays again); no such version: 404
        assert admin.post("/admin/resume", data={"value": str(flaky)}, follow_redirects=False).status_code == 303
        assert admin.post("/admin/resume", data={"value": "999"}, follow_redirects=False).status_code == 404
        assert alice.post("/admin/resume", data={"value": str(flaky)}).status_code == 404
    finally:
        server.stop()
