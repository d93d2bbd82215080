"""Play against a bot on the contest server: the same table as ``harness play --web``, over a real server.

A student starts a game from their page, answers every request through ``/play/<id>/answer`` to the end
and downloads the hand history; one game per student at a time; another student cannot see or answer it;
an abandoned game ends at the idle limit and its bot process is gone.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

from tests.server_helpers import Served, contest_file, free_port, links, wait_for  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

#: ``[play]`` for the tests: short games, a short idle limit, two tables.
PLAY = "[play]\nhands = 4\nmax_games = 2\nidle_s = 5\n"


def _answer_everything(client, base: str) -> dict:  # noqa: ANN001
    """Check or call (stand pat in the draw) at every request until the game is over; the last table."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = client.get(base + "state").json()
        if state["over"]:
            return state
        req = state.get("legal")
        if req:
            if req["kind"] == "draw":
                body = {"seq": req["seq"], "discard": []}
            else:
                body = {"seq": req["seq"], "action": "check" if "check" in req["actions"] else "call"}
            assert client.post(base + "answer", json=body).status_code in (200, 409)
        time.sleep(0.05)
    raise AssertionError("the game did not end")


@pytest.mark.slow
def test_a_student_plays_a_game_in_the_browser_routes_and_downloads_it(tmp_path: Path) -> None:
    contest = contest_file(tmp_path, extra=PLAY)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice, bob = server.client(urls["alice"]), server.client(urls["bob"])
        page = alice.get("/students/alice").text
        assert 'action="/play"' in page and "<option>caller</option>" in page  # reference bots are offered
        assert alice.post("/play", data={"opponent": "bob.v1"}).status_code == 400  # not a bot she may play
        started = alice.post("/play", data={"opponent": "caller"})
        assert started.status_code == 303
        base = started.headers["location"]
        assert re.fullmatch(r"/play/[\w-]+/", base)
        table = alice.get(base).text
        assert 'data-base="' + base + '"' in table and "/play/static/play.js" in table  # the same page
        assert alice.get("/play/static/play.js").status_code == 200
        # one game at a time; another student neither sees nor answers it
        again = alice.post("/play", data={"opponent": "caller"})
        assert again.status_code == 409 and "already play" in again.text
        assert bob.get(base + "state").status_code == 404
        assert bob.post(base + "answer", json={"seq": 1, "action": "fold"}).status_code == 404
        # a malformed answer is refused with a reason, never a traceback
        bad = alice.post(base + "answer", json={"what": 1})
        assert bad.status_code == 400 and "an answer is" in bad.json()["error"]
        last = _answer_everything(alice, base)
        assert last["over"]
        hands = alice.get(base + "hands")
        assert hands.status_code == 200
        lines = hands.content.decode().splitlines() if not hands.content[:2] == b"\x1f\x8b" else None
        if lines is not None:
            records = [json.loads(line) for line in lines if line.strip()]
            assert len([r for r in records if "hand_id" in r or "hand" in r]) >= 1
        # the game is over: she may start another
        assert alice.post("/play", data={"opponent": "caller"}).status_code == 303
    finally:
        server.stop()


@pytest.mark.slow
def test_an_abandoned_game_ends_at_the_idle_limit_and_its_bot_is_gone(tmp_path: Path) -> None:
    # 30 hands: played out by idle defaults alone they would take minutes; the idle watch ends it in seconds
    contest = contest_file(tmp_path, extra=PLAY.replace("hands = 4", "hands = 30"))
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice = server.client(urls["alice"])
        base = alice.post("/play", data={"opponent": "caller"}).headers["location"]
        wait_for(lambda: alice.get(base + "state").json()["seats"], timeout=600)

        def bots_alive() -> list[str]:
            return [p for p in _children(server.proc.pid) if "bots.caller" in p]

        wait_for(bots_alive, timeout=600)
        # nobody answers: after idle_s (5 s) the seat leaves, the referee ends the game and stops the bot
        wait_for(lambda: alice.get(base + "state").json()["over"], timeout=600)
        wait_for(lambda: not bots_alive(), timeout=600)
    finally:
        server.stop()


@pytest.mark.slow
def test_a_game_open_when_the_server_restarts_says_it_ended_and_offers_a_new_one(tmp_path: Path) -> None:
    contest = contest_file(tmp_path, extra=PLAY)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice = server.client(urls["alice"])
        base = alice.post("/play", data={"opponent": "caller"}).headers["location"]
        wait_for(lambda: alice.get(base + "state").json()["seats"], timeout=600)
    finally:
        server.stop()
    server = Served(contest, port)
    try:
        alice, bob = server.client(urls["alice"]), server.client(urls["bob"])
        page = alice.get(base)
        assert page.status_code == 404 and "text/html" in page.headers["content-type"]
        assert "it ended when the server restarted" in page.text
        assert 'href="/students/alice#play"' in page.text and "Start a new game" in page.text
        played = alice.get(base + "hands").status_code == 200  # the hands played so far are kept
        assert ('id="hands"' in page.text) == played
        for answer in (alice.get(base + "state"), alice.post(base + "answer", json={"seq": 1, "action": "fold"})):
            assert answer.status_code == 404 and "server restarted" in answer.json()["error"]  # the table says it
        # an unknown id and another student's old game read the same (nothing is given away)
        for client, path in ((alice, "/play/nosuchgame/"), (bob, base)):
            other = client.get(path)
            assert other.status_code == 404 and "server restarted" in other.text and 'id="hands"' not in other.text
        assert bob.get(base + "hands").status_code == 404
        assert 'id="play"' in alice.get("/students/alice").text  # where the link leads: a new game
        assert alice.post("/play", data={"opponent": "caller"}).status_code == 303
    finally:
        server.stop()


def _children(pid: int) -> list[str]:
    """Command lines of every process under ``pid`` (the server and what it started)."""
    import psutil

    out = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            out.append(" ".join(child.cmdline()))
        except psutil.Error:
            continue
    return out


def test_play_settings_have_defaults_and_bad_values_name_the_key(tmp_path: Path) -> None:
    from harness.server.contest import PlaySettings, load_contest
    from harness.tournament.config import ConfigError

    assert load_contest(contest_file(tmp_path)).play == PlaySettings(hands=50, max_games=4, idle_s=300)
    with pytest.raises(ConfigError, match=r"\[play\] idle_s"):
        load_contest(contest_file(tmp_path, extra="[play]\nidle_s = 1\n"))
    with pytest.raises(ConfigError, match=r"\[play\].*tables"):
        load_contest(contest_file(tmp_path, extra="[play]\ntables = 3\n"))
