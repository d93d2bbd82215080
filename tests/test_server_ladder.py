"""The ladder's schedule on a real database: what plays next, read from the blocks table itself.

The executor only records what the ladder submits (:class:`tests.server_helpers.Slots`); each test finishes
the jobs itself, in the order they were given, as a worker would report them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import select  # noqa: E402

from harness.server import db as schema  # noqa: E402
from harness.server import store  # noqa: E402
from harness.server.board import Board  # noqa: E402
from harness.server.contest import load_contest  # noqa: E402
from harness.server.ladder import Ladder  # noqa: E402
from harness.specs import MatchResult  # noqa: E402
from harness.tournament.workers import Done  # noqa: E402
from tests.server_helpers import Slots, contest_file  # noqa: E402

CLASS = ("old1", "old2", "n1", "n2", "n3", "n4", "n5", "n6")


def _result(job: Any, faults: dict[str, dict[str, int]] | None = None,
            status: dict[str, str] | None = None) -> dict[str, Any]:
    """A finished match of ``job``: two hands, nobody wins a chip; ``faults`` and ``status`` by bot name."""
    bots = [b.name for b in job.args[1]]
    n = len(bots)
    return MatchResult(match_id=job.key, seed=0, hands_played=2, bots=bots, net=[0] * n, hand_nets=[[0] * n] * 2,
                       faults=[dict((faults or {}).get(b, {})) for b in bots],
                       status=[(status or {}).get(b, "ok") for b in bots]).to_dict()


class _Run:
    """A ladder over a fresh SQLite contest (``jobs`` slots) with the students of :data:`CLASS`."""

    def __init__(self, tmp_path: Path, jobs: int = 2, ladder: str = "") -> None:
        self.contest = load_contest(contest_file(tmp_path, students=CLASS, jobs=jobs, ladder=ladder))
        self.engine = schema.open_database(self.contest.database)
        store.sync_roster(self.engine, self.contest)
        with self.engine.connect() as conn:
            self.ids = dict(conn.execute(select(schema.students.c.name, schema.students.c.id)).all())
        self.board = Board(self.contest, self.engine, worker=False)
        self.slots = Slots()
        self.slots.capacity = jobs
        self.ladder = Ladder(self.contest, self.engine, self.board, executor=self.slots)
        #: Every match job started, in order: (block id, kind, seat codes).
        self.started: list[tuple[int, str, list[str]]] = []

    def admit(self, student: str, created: float) -> int:
        """An admitted version of ``student`` uploaded at ``created`` (Unix seconds); its id."""
        vid = store.add_version(self.engine, self.ids[student], f"{created:064.0f}"[-64:], "python bot.py", "").id
        store.finish_check(self.engine, vid, True, "", {})
        with self.engine.begin() as conn:
            conn.execute(schema.versions.update().where(schema.versions.c.id == vid).values(created=created))
        return vid

    def step(self, faults: dict[str, dict[str, int]] | None = None, status: dict[str, str] | None = None) -> None:
        """Fill the slots, then finish the oldest running job (a worker reporting it)."""
        seen = {j.key for j in self.slots.jobs}
        self.ladder.fill()
        blocks = {b.id: (b.kind, json.loads(b.seats)) for b in self._blocks()}
        for job in self.slots.jobs:
            if job.key not in seen and job.info[0] == "match":
                kind, seats = blocks[job.info[1]]
                self.started.append((job.info[1], kind, seats))
        job = self.slots.jobs.pop(0)
        self.ladder.finished(Done(job=job, result=_result(job, faults, status), error="", wall_s=1.0))

    def _blocks(self) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(schema.blocks)).all())

    def close(self) -> None:
        self.board.close()
        self.engine.dispose()


@pytest.fixture
def run(tmp_path: Path):
    r = _Run(tmp_path)
    try:
        yield r
    finally:
        r.close()


def test_a_burst_of_uploads_gets_every_first_block_before_any_second_and_before_challenges(run: _Run) -> None:
    """Two versions have played; their students asked for challenges inside the quota (pending); then six
    versions are admitted at once. Each newcomer's first block starts before any version's second block and
    before any challenge match, oldest upload first; then the challenges and the others play."""
    old = [run.admit("old1", 1000.0), run.admit("old2", 1001.0)]
    for _ in range(4):  # the two old versions get a block each
        run.step()
    assert {s for _, _, seats in run.started for s in seats if s.startswith("v")} == {f"v{v}" for v in old}
    for _ in range(2):  # challenges, within the quota
        store.new_block(run.engine, "challenge", [f"v{old[0]}", f"v{old[1]}"], 2, "t", run.ids["old1"])
    newcomers = {f"v{run.admit(name, 2000.0 + i)}": i for i, name in enumerate(CLASS[2:])}
    run.started.clear()
    for _ in range(40):
        run.step()
    firsts: dict[str, int] = {}  # the position of each newcomer's first started match
    for pos, (_, _, seats) in enumerate(run.started):
        for s in seats:
            if s in newcomers:
                firsts.setdefault(s, pos)
    assert set(firsts) == set(newcomers)  # every newcomer played
    last_first = max(firsts.values())
    before = run.started[:last_first + 1]
    assert not [b for b in before if b[1] == "challenge"], before  # no challenge ahead of a first block
    given: dict[str, set[int]] = {}
    for bid, _, seats in before:
        for s in seats:
            if s.startswith("v"):
                given.setdefault(s, set()).add(bid)
    assert all(len(b) == 1 for s, b in given.items() if s in newcomers)  # nobody's second before every first
    assert not {s for s in given if s not in newcomers}  # the old versions wait too
    # oldest upload first: the newcomers' first blocks start in upload order
    assert sorted(firsts, key=firsts.__getitem__) == sorted(newcomers, key=newcomers.__getitem__)
    assert any(kind == "challenge" for _, kind, _ in run.started[last_first:])  # then the challenges play


def test_the_schedule_counts_blocks_from_the_database_not_the_leaderboard(run: _Run) -> None:
    """A version whose blocks are under way is not picked again as if it had none: with the leaderboard
    frozen at its first computation (no block complete), every version still gets a block in turn."""
    versions = [run.admit(name, 3000.0 + i) for i, name in enumerate(CLASS[:4])]
    run.board.rows()  # computed once, before any block: a stale board says 0 blocks for everyone
    run.board.key = lambda: run.board.computed  # type: ignore[method-assign] # and never recomputes
    for _ in range(8):
        run.step()
    blocks: list[int] = []
    for bid, _, _ in run.started:
        if bid not in blocks:
            blocks.append(bid)
    seated = [s for bid, _, seats in run.started if bid in blocks[:4] for s in seats if s.startswith("v")]
    assert sorted(set(seated)) == sorted(f"v{v}" for v in versions)  # four blocks: four versions, one each


def test_a_version_with_a_fault_in_each_of_its_last_blocks_is_paused(tmp_path: Path) -> None:
    """``[ladder] pause_after_faulty_blocks = 2``: a fault in two blocks apart does not pause; two in a row do;
    slow decisions alone are no fault. A paused version gets no new block; the others play on; resumed, it
    plays again."""
    run = _Run(tmp_path, jobs=1, ladder="pause_after_faulty_blocks = 2\n")
    try:
        flaky = run.admit("n1", 100.0)
        run.admit("n2", 101.0)

        def blocks_of(vid: int) -> int:
            return store.tally(run.engine).given.get(f"v{vid}", 0)

        def play_block_of(vid: int, faults: dict[str, int]) -> None:
            """Step until ``vid``'s next block is complete, its matches with ``faults`` for n1.v1."""
            before = store.tally(run.engine).complete.get(f"v{vid}", 0)
            for _ in range(20):
                run.step(faults={"n1.v1": faults}, status={"n1.v1": "put out: 10 timeouts"} if faults.get("out")
                         else None)
                if store.tally(run.engine).complete.get(f"v{vid}", 0) > before:
                    return
            raise AssertionError("no block of the version completed")

        play_block_of(flaky, {"timeout": 2})
        play_block_of(flaky, {"slow": 9})  # slow decisions only: no fault
        play_block_of(flaky, {"timeout": 1})
        assert store.paused_versions(run.engine) == []
        play_block_of(flaky, {"malformed": 1, "out": 1})
        paused = store.paused_versions(run.engine)
        assert [p["id"] for p in paused] == [flaky] and "last 2 blocks" in paused[0]["paused"]
        totals = store.fault_totals(run.engine)["n1.v1"]
        assert totals["timeout"] >= 3 and totals["malformed"] >= 1 and totals["out"] >= 1 and totals["slow"] >= 9
        given = blocks_of(flaky)
        for _ in range(12):
            run.step()
        assert blocks_of(flaky) <= given + 1  # at most the block it was in when paused finishes
        settled = blocks_of(flaky)
        for _ in range(8):
            run.step()
        assert blocks_of(flaky) == settled
        assert store.resume(run.engine, flaky)
        for _ in range(12):
            run.step()
        assert blocks_of(flaky) > settled
    finally:
        run.close()
