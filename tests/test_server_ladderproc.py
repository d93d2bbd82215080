"""The ladder in a process of its own (harness/server/ladderproc.py): ``harness serve`` starts it behind its pages
for the CPU (niceness read from the process, never timed), starts it again when it dies (``kill -9`` of the ladder
alone: its matches are played again, none counted twice), and leaves no process behind when the server stops; the
web process reads the board the ladder publishes; and links issued again by another process end the old sessions at
once although the web process remembers whose each session is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
psutil = pytest.importorskip("psutil")

from harness.server.board import BACKGROUND_NICENESS, BOARD_FILE  # noqa: E402
from tests.server_helpers import (  # noqa: E402
    HARNESS,
    RAISER,
    Served,
    contest_file,
    free_port,
    links,
    upload,
    version_state,
    wait_for,
)


def _ladders(server: Served) -> list[Any]:
    """The server's ladder processes (children running ``harness.server.ladderproc``)."""
    out = []
    for p in psutil.Process(server.proc.pid).children():
        try:
            if "harness.server.ladderproc" in " ".join(p.cmdline()) and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.Error:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _done_matches(contest: Path) -> list[str]:
    import sqlite3

    db = sqlite3.connect(contest.parent / "contest-t" / "contest.db")
    try:
        return [r[0] for r in db.execute("select match_id from matches where state = 'done'")]
    finally:
        db.close()


def test_the_ladder_runs_in_its_own_process_restarts_and_leaves_nothing_behind(tmp_path: Path) -> None:
    contest = contest_file(tmp_path, hands=200, jobs=1)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    family: set[int] = set()
    try:
        web = psutil.Process(server.proc.pid)
        (ladder,) = wait_for(lambda: _ladders(server))
        assert ladder.pid != web.pid
        assert os.getpriority(os.PRIO_PROCESS, ladder.pid) == min(19, web.nice() + BACKGROUND_NICENESS)
        board = tmp_path / "contest-t" / BOARD_FILE
        assert json.loads(board.read_text())["key"] == 0  # published before the pages opened
        alice = server.client(urls["alice"])
        vid = upload(alice, "bot.py", RAISER.encode()).json()["id"]
        wait_for(lambda: version_state(alice, vid)["state"] == "admitted")
        wait_for(lambda: any(r["bot"] == "alice.v1" and r["blocks"] for r in alice.get("/api/leaderboard").json()))
        assert json.loads(board.read_text())["key"] >= 1  # the page shows what the ladder published
        family |= {p.pid for p in web.children(recursive=True)}
        before = len(_done_matches(contest))
        os.kill(ladder.pid, signal.SIGKILL)  # the ladder alone dies: the server starts it again
        (again,) = wait_for(lambda: [p for p in _ladders(server) if p.pid != ladder.pid])
        # it lowers its own priority first thing: wait for that, not for a time
        wait_for(lambda: os.getpriority(os.PRIO_PROCESS, again.pid) == min(19, web.nice() + BACKGROUND_NICENESS))
        wait_for(lambda: len(_done_matches(contest)) >= before + 2, timeout=600)
        done = _done_matches(contest)
        assert len(done) == len(set(done)), "a match was counted twice"
        family |= {p.pid for p in web.children(recursive=True)}
    finally:
        server.stop()
    assert server.proc.returncode is not None
    assert wait_for(lambda: not [p for p in family if _alive(p)]), "a process outlived the server"


def test_links_issued_again_end_the_old_sessions_at_once(tmp_path: Path) -> None:
    """The web process remembers whose each session is (one query per session, not per page); ``--links`` in another
    process revokes the old links, and their sessions end at the next page."""
    contest = contest_file(tmp_path)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice, bob = server.client(urls["alice"]), server.client(urls["bob"])
        assert alice.get("/").status_code == 200 and bob.get("/").status_code == 200  # both remembered now
        subprocess.run([*HARNESS, "serve", str(contest), "--links", "--student", "alice", "--port", str(port)],
                       capture_output=True, check=True, cwd=tmp_path, timeout=300)
        assert alice.get("/").status_code == 401
        assert bob.get("/").status_code == 200
    finally:
        server.stop()
