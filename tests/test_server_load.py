"""The server under a class's polling: its background work runs behind its pages for the CPU (the ladder's match
workers, and so their bots, the board's worker and the final's run get
:data:`harness.server.board.BACKGROUND_NICENESS` added to their niceness: read from the processes themselves,
``os.getpriority``, never timed), and a page asks the database nothing for the board while the ladder counts the
complete blocks once a turn (statements counted)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from harness.server import store  # noqa: E402
from harness.server.board import BACKGROUND_NICENESS, LiveBoard  # noqa: E402
from harness.server.contest import load_contest  # noqa: E402
from harness.server.db import open_database  # noqa: E402
from harness.server.ladder import Ladder  # noqa: E402
from harness.tournament.workers import Job, LocalExecutor  # noqa: E402
from tests.server_helpers import contest_file  # noqa: E402


def _priority() -> dict[str, Any]:
    return {"nice": os.getpriority(os.PRIO_PROCESS, 0)}


def _expected() -> int:
    return min(19, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICENESS)


def test_the_ladders_workers_run_at_the_background_niceness(tmp_path: Path) -> None:
    contest = load_contest(contest_file(tmp_path))
    engine = open_database(contest.database)
    store.sync_roster(engine, contest)
    board = LiveBoard(contest, engine, worker=False)
    ladder = Ladder(contest, engine, board)
    assert isinstance(ladder.executor, LocalExecutor) and ladder.executor.nice == BACKGROUND_NICENESS
    executor = LocalExecutor(1, pin=False, nice=ladder.executor.nice)
    try:
        job = Job(key="nice", func=_priority, args=(), directory=tmp_path / "job", group=None)
        job.directory.mkdir()
        executor.submit(job)
        done: list[Any] = []
        for _ in range(100_000):  # a wait may return as the worker exits, before it is reaped: wait again
            done = done or executor.wait(60)
        assert done[0].result == {"nice": _expected()}
    finally:
        executor.stop()
        engine.dispose()


def test_the_boards_worker_runs_at_the_background_niceness(tmp_path: Path) -> None:
    contest = load_contest(contest_file(tmp_path))
    engine = open_database(contest.database)
    store.sync_roster(engine, contest)
    board = LiveBoard(contest, engine)
    try:
        board.rows()  # the first computation starts the worker
        assert board._pool is not None
        assert board._pool.submit(os.getpriority, os.PRIO_PROCESS, 0).result() == _expected()
    finally:
        board.close()
        engine.dispose()


def test_the_board_asks_the_database_nothing_per_page_while_the_ladder_counts_the_blocks(tmp_path: Path) -> None:
    from sqlalchemy import event

    from tests.server_helpers import Slots

    contest = load_contest(contest_file(tmp_path))
    engine = open_database(contest.database)
    store.sync_roster(engine, contest)
    board = LiveBoard(contest, engine, worker=False)
    ladder = Ladder(contest, engine, board, executor=Slots())
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    try:
        board.rows()
        before = len(statements)
        board.rows()
        assert len(statements) == before + 1, "without a ladder the board counts the blocks itself"
        ladder.turn(wait_s=0)
        assert board.known_key == store.done_count(engine) == 0
        before = len(statements)
        for _ in range(20):
            board.rows()
        assert len(statements) == before, "a page asked the database for the board's key"
        ladder.stop()
        assert board.known_key is None, "a stopped ladder's count would go stale"
    finally:
        board.close()
        engine.dispose()


def _finish_block(engine: Any, seats: list[str], bots: list[str], net: int, t: float) -> None:
    from sqlalchemy import select, update

    from harness.server import db as schema

    bid = store.new_block(engine, "ladder", seats, 2, "t")
    with engine.connect() as conn:
        pks = conn.execute(select(schema.matches.c.id).where(schema.matches.c.block_id == bid)
                           .order_by(schema.matches.c.rotation)).scalars().all()
    for rotation, pk in enumerate(pks):
        order = bots if rotation == 0 else bots[::-1]
        nets = [net, -net] if rotation == 0 else [-net // 2, net // 2]
        result = {"match_id": f"b{bid}-r{rotation}", "seed": 1, "hands_played": 20, "bots": order, "net": nets,
                  "hand_nets": [], "faults": [{}, {}], "status": ["ok", "ok"]}
        store.finish_match(engine, pk, {"table": f"b{bid}", "rotation": rotation, "big_blind": 2, "rotations": 2,
                                        "result": result})
    with engine.begin() as conn:
        conn.execute(update(schema.blocks).where(schema.blocks.c.id == bid).values(finished=t))


def test_the_rating_chart_rates_only_new_blocks_and_agrees_with_a_full_recomputation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.server import board as board_module
    from harness.tournament import ratings

    contest = load_contest(contest_file(tmp_path, students=("a", "b")))
    engine = open_database(contest.database)
    store.sync_roster(engine, contest)
    url = engine.url.render_as_string(hide_password=False)
    rated: list[int] = []
    original = ratings.rate_table

    def counting(*args: Any) -> Any:  # the board's ratings and the chart each rate through it
        rated.append(1)
        return original(*args)

    monkeypatch.setattr(ratings, "rate_table", counting)  # the board's ratings (inside ratings)
    monkeypatch.setattr(board_module, "rate_table", counting)  # the chart's (imported by name)
    try:
        for k in range(3):
            _finish_block(engine, ["rcaller", "rcaller"], ["caller", "x"], 10 * (k - 1), 100.0 + k)
        first = board_module.compute(url, ["caller"], engine)[1]
        assert len(rated) == 2 * 3 + 2 * 3  # the board's ratings and the chart, each every match
        rated.clear()
        _finish_block(engine, ["rcaller", "rcaller"], ["caller", "x"], 30, 200.0)
        again = board_module.compute(url, ["caller"], engine)[1]
        assert len(rated) == 2 * 4 + 2, "the chart rated again the blocks it had rated"
        board_module._CHART.clear()
        full = board_module.compute(url, ["caller"], engine)[1]
        assert again == full and len(full["caller"]) == 4 and full["caller"][:3] == first["caller"]
        _finish_block(engine, ["rcaller", "rcaller"], ["caller", "x"], 30, 50.0)  # finished before the others
        rated.clear()
        moved = board_module.compute(url, ["caller"], engine)[1]
        assert len(rated) == 2 * 5 * 2, "a block placed among the rated ones means rating them all again"
        board_module._CHART.clear()
        assert moved == board_module.compute(url, ["caller"], engine)[1]
    finally:
        engine.dispose()


def test_a_page_asks_the_database_once_per_session_and_setting_and_forgets_on_a_change(tmp_path: Path) -> None:
    """Whose a session is and the freeze setting are read once, not per page; a logout, links issued again (by any
    process: the stamp file) and the admin's own writes are seen at the next request (statements counted)."""
    from sqlalchemy import event

    from harness.server.app import Server
    from harness.server.contest import load_contest as load

    contest = load(contest_file(tmp_path))
    engine = open_database(contest.database)
    store.sync_roster(engine, contest)
    server = Server(contest, engine, ladder=False)
    token = store.issue_links(engine, contest, "http://x")[1][1].rsplit("/", 1)[1]
    secret = store.login(engine, token)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    try:
        who = server.sessions.who(secret)
        assert who is not None and who.name == "alice"
        assert server.setting("frozen") == ""
        before = len(statements)
        for _ in range(5):
            assert server.sessions.who(secret) == who and server.setting("frozen") == ""
        assert len(statements) == before, "a page asked the database again"
        server.set_setting("frozen", "1")
        assert server.setting("frozen") == "1"
        store.issue_links(engine, contest, "http://x", only=("alice",))  # what `harness serve --links` does
        assert server.sessions.who(secret) is None, "a revoked link's session went on"
        bob = store.login(engine, store.issue_links(engine, contest, "http://x", only=("bob",))[0][1].rsplit("/")[-1])
        assert server.sessions.who(bob) is not None
        store.logout(engine, bob)
        server.sessions.forget()  # what the logout route does
        assert server.sessions.who(bob) is None
    finally:
        server.board.close()
        engine.dispose()
