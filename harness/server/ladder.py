"""The ladder: a background loop that admits new versions and plays duplicate blocks, never stopping.

One thread of the ladder's process (:mod:`harness.server.ladderproc`, apart from the pages) drives an
:class:`~harness.tournament.workers.Executor`
(local forked workers, :class:`~harness.tournament.workers.LocalExecutor`, or a
Dask cluster, :class:`~harness.tournament.cluster.DaskExecutor`). Each turn it:

1. sends every version waiting for admission to a worker (first: a student
   waits for that);
2. sends pending matches of open blocks (challenges first), never two
   rotations of one block at once (they deal the same cards);
3. when slots stay free, makes a new block (:func:`choose_table`): the
   version with the fewest blocks, then the oldest upload (a new one: none),
   against opponents drawn by rating closeness and uncertainty, so every
   version keeps playing. Block counts come from the database
   (:func:`harness.server.store.tally`); versions' first blocks play before
   challenges and before anyone's second block.

A block is a table played in every seat rotation on the same deals (a
duplicate set, as in tournaments); its results count once all its rotations
are stored (:func:`harness.server.store.finish_match`). After a crash the
matches left running are played again from scratch (:func:`harness.server.store.recover`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import random
import shutil
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from harness.host.build import BuildLimits
from harness.match.untrusted import visible
from harness.server import db, store
from harness.server.admission import admit
from harness.server.board import BACKGROUND_NICENESS, LiveBoard
from harness.server.contest import Contest
from harness.server.hostpaths import for_student, host_roots
from harness.server.matchhands import slow_decisions
from harness.specs import MatchResult, MatchSpec
from harness.tournament.cluster import DaskExecutor
from harness.tournament.entries import CheckTable
from harness.tournament.estimate import effective_jobs
from harness.tournament.matchjob import play_and_store
from harness.tournament.results import MatchRecord
from harness.tournament.schedule import rotate
from harness.tournament.workers import Done, Executor, Job, LocalExecutor

_POLL_S = 0.2


def choose_table(entrants: Sequence[str], blocks: dict[str, int], ratings: dict[str, tuple[float, float]],
                 references: Sequence[str], seats: int, rng: random.Random,
                 uploaded: dict[str, float] | None = None) -> list[str] | None:
    """The next ladder table, or None when there are too few entrants.

    The focus is the student version with the fewest blocks, then the oldest upload (ties at random). A focus
    with no block yet meets a house bot first, and its other seats go to house bots and versions without a
    block either (while there are enough): no version plays its second block before every version has had
    its first. Every other seat is drawn among the rest with weight
    ``exp(-d^2 / (2 (s1^2 + s2^2))) * (1 + s2 / 25 * 3)``: close ratings first,
    uncertain ones more often (``d`` the difference of rating means, ``s`` the sigmas).

    Args:
        entrants: bot names of active versions and reference bots.
        blocks: blocks given per bot (complete, failed or under way: :class:`harness.server.store.Tally`).
        ratings: ``{bot: (mu, sigma)}``.
        references: which entrants are reference bots (never the focus).
        seats: the table size.
        uploaded: when each student version was uploaded (Unix seconds; missing: now).
    """
    students = [e for e in entrants if e not in references]
    if not students or len(entrants) < seats:
        return None
    when = uploaded or {}
    least = min((blocks.get(s, 0), when.get(s, math.inf)) for s in students)
    focus = rng.choice([s for s in students if (blocks.get(s, 0), when.get(s, math.inf)) == least])
    mu, sigma = ratings.get(focus, (25.0, 25 / 3))
    table = [focus]
    others = [e for e in entrants if e != focus]
    new = blocks.get(focus, 0) == 0
    if new and references:  # a new version meets a house bot first
        first = rng.choice(list(references))
        table.append(first)
        others.remove(first)
    if new:  # no second block for anyone while a version waits for its first
        fresh = [e for e in others if e in references or blocks.get(e, 0) == 0]
        if len(fresh) >= seats - len(table):
            others = fresh
    while len(table) < seats:
        weights = []
        for o in others:
            m2, s2 = ratings.get(o, (25.0, 25 / 3))
            weights.append(math.exp(-((mu - m2) ** 2) / (2 * (sigma**2 + s2**2))) * (1 + s2 * 3 / 25))
        pick = rng.choices(others, weights=weights)[0]
        table.append(pick)
        others.remove(pick)
    rng.shuffle(table)
    return table


class Ladder:
    """The loop; :meth:`start` runs it in a thread, :meth:`stop` ends it and the matches under way.

    Args:
        contest: the contest.
        engine: its database.
        board: the leaderboard (its ratings pair opponents; block counts come from the database).
        executor: where jobs run (default: local workers, ``[ladder] jobs``).
        play: the match function (default: the referee's ``play_match`` in the contest's sandbox).
        nice: added to the local workers' niceness (their bots inherit it); 0 in a process already behind the
            pages (:mod:`harness.server.ladderproc`).
    """

    def __init__(self, contest: Contest, engine: Engine, board: LiveBoard, *, executor: Executor | None = None,
                 play: Any = None, nice: int = BACKGROUND_NICENESS) -> None:
        self.contest = contest
        self.engine = engine
        self.board = board
        self._own = executor is None
        self.capacity = effective_jobs(contest.ladder.jobs)
        if executor is None and contest.ladder.cluster:  # [ladder] cluster: the tournament's Dask backend

            LocalExecutor(1, workers_file=contest.data / ".workers").kill_leftovers()
            executor = DaskExecutor.connect(contest.ladder.cluster, pin=True, jobs=0)
            self.capacity = max(1, int(executor.parallel))
        elif executor is None:
            local = LocalExecutor(self.capacity, pin=True, workers_file=contest.data / ".workers",
                                  nice=nice)
            local.kill_leftovers()  # bots a killed server's workers left behind
            executor = local
        self.executor = executor
        if play is None:
            from harness.match.referee import play_match

            play = functools.partial(play_match, sandbox=contest.sandbox)
        self.play = play
        self.rng = random.SystemRandom()
        #: The server's paths no student is shown (:func:`harness.server.hostpaths.host_roots`).
        self.roots = host_roots(contest.data, contest.path.resolve().parent)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error = ""
        #: Slot-seconds of the finished jobs, when the loop started, and when each running job was submitted.
        self.busy_s = 0.0
        self.started = time.monotonic()
        self._since: dict[str, float] = {}
        self._tallied: tuple[tuple[int, int, int], store.Tally] | None = None

    # -- the loop
    def start(self) -> None:
        store.recover(self.engine)
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="ladder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.board.known_key = None  # no more turns: the board counts for itself
        self.executor.stop()
        if self._own:
            self.executor.close()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self.turn()
        except Exception as exc:  # noqa: BLE001 - shown on the admin page; the server stays up

            self.error = traceback.format_exc()
            self.board.known_key = None
            print(f"harness serve: the ladder stopped: {visible(str(exc))}", flush=True)

    def turn(self, wait_s: float = _POLL_S) -> list[Done]:
        """One turn: fill free slots, wait up to ``wait_s`` for jobs, store what finished, count the complete
        blocks for the board's key (:meth:`LiveBoard.key`)."""
        self.fill()
        done = self.executor.wait(wait_s) if self.executor.running() else []
        if not done and not self.executor.running():
            self._stop.wait(wait_s)
        for d in done:
            self.busy_s += d.wall_s
            self._since.pop(d.job.key, None)
            self.finished(d)
        self.board.known_key = store.done_count(self.engine)
        return done

    def occupancy(self) -> tuple[float, float]:
        """``(busy, available)`` slot-seconds since the loop started: jobs finished and running, and
        ``capacity`` times the seconds elapsed (their ratio: how busy the job slots were)."""
        now = time.monotonic()
        running = {j.key for j in self.executor.running()}
        busy = self.busy_s + sum(now - t for key, t in list(self._since.items()) if key in running)
        return busy, (now - self.started) * self.capacity

    def _free(self) -> int:
        return self.capacity - len(self.executor.running())

    def fill(self) -> None:
        """Give every free slot a job, in this order: version checks; the pending matches of versions' first
        blocks; new first blocks of active versions that have none yet (oldest upload first); the other pending
        matches (challenges first); a new ladder block (one a turn) while fewer than ``capacity`` blocks are open.

        So a class uploading at once gets every admitted version's first block before anyone's second and
        before challenges. Every count comes from the database (:func:`harness.server.store.tally`), never from
        the leaderboard, which lags behind.
        """
        tally = self._fill_pending(first_only=True)
        opened = False
        while tally is not None and not self.frozen_ladder():
            active = store.active_versions(self.engine)
            if all(tally.given.get(f"v{a['id']}", 0) or a["paused"] for a in active):
                break
            table = self._new_table(active, tally)  # its focus: the oldest newcomer
            if table is None:
                break
            store.new_block(self.engine, "ladder", table, len(table), self.contest.name)
            opened = True
            tally = self._fill_pending(first_only=True)  # its matches start now, not a poll later
        if tally is None:
            return
        tally = self._fill_pending()
        if (tally is not None and not opened and not self.frozen_ladder()
                and store.open_blocks(self.engine) < self.capacity):
            table = self._new_table(store.active_versions(self.engine), tally)
            if table is not None:
                store.new_block(self.engine, "ladder", table, len(table), self.contest.name)
                self._fill_pending()

    def _fill_pending(self, *, first_only: bool = False) -> store.Tally | None:
        """Submit checks and pending matches (``first_only``: of versions' first blocks only) to free slots; the
        blocks' tally when a slot is still free (a block may open), else None."""
        running = {j.key for j in self.executor.running()}
        # one check per student at a time: a stream of one student's submissions never takes more than a slot
        checking = {j.info[2] for j in self.executor.running() if j.info and j.info[0] == "check"}
        for v in store.versions_to_check(self.engine):
            if self._free() <= 0:
                return None
            key = f"check:{v['id']}"
            if key not in running and v["student"] not in checking:
                checking.add(v["student"])
                self._submit(self._check_job(v))
        if self._free() <= 0:
            return None
        tally = self._tally()
        busy_blocks = {j.info[1] for j in self.executor.running() if j.info and j.info[0] == "match"}
        paused = self.frozen_ladder()  # the final runs: blocks under way finish, none starts (challenges wait)
        for m in store.pending_matches(self.engine, tally.first):
            if self._free() <= 0:
                return None
            if m["block_id"] in busy_blocks or (first_only and m["block_id"] not in tally.first) or (
                    paused and m["block_state"] == store.PENDING):
                continue
            busy_blocks.add(m["block_id"])
            self._submit(self._match_job(m))
        return tally if self._free() > 0 else None

    def _tally(self) -> store.Tally:
        """:func:`harness.server.store.tally`, read again only when a block was made or finished since (one
        aggregate query a turn instead of every block's seats: the loop turns five times a second)."""
        key = store.blocks_key(self.engine)
        if self._tallied is None or self._tallied[0] != key:
            self._tallied = (key, store.tally(self.engine))
        return self._tallied[1]

    def frozen_ladder(self) -> bool:
        """The ladder is paused while the final runs (the final has the machine): the blocks under way finish,
        no block starts, challenges included."""
        return store.setting(self.engine, "ladder_paused", "") == "1"

    def _submit(self, job: Job) -> None:
        if job.directory.exists():
            shutil.rmtree(job.directory)
        job.directory.mkdir(parents=True)
        if job.info[0] == "match":
            store.start_match(self.engine, job.info[2])
        self.executor.submit(job)
        self._since[job.key] = time.monotonic()

    # -- jobs
    def _check_job(self, v: dict[str, Any]) -> Job:
        c = self.contest
        bot = store.bot_spec(c, v["student"], v["number"], v["folder"], v["command"])
        field = tuple(store.label(a["student"], a["number"]) for a in store.active_versions(self.engine))
        table = CheckTable(c.ladder.table_size, c.ladder.hands, c.stack_mode, field + tuple(r.name for r in
                                                                                              c.references))
        directory = c.data / "checks" / f"v{v['id']}"
        build = BuildLimits(timeout_s=float(c.ladder.build_timeout_s), memory_mb=c.ladder.build_memory_mb,
                            disk_mb=c.ladder.build_disk_mb, max_processes=c.limits.max_processes)
        return Job(key=f"check:{v['id']}", func=admit,
                   args=(bot, v["build"], c.data, build, c.game, c.limits, c.starting_stack, c.sandbox, table,
                         directory, self.roots),
                   directory=directory, info=("check", v["id"], v["student"], v["folder"]))

    def _match_job(self, m: dict[str, Any]) -> Job:
        c = self.contest
        bots = self._bots(json.loads(m["seats"]))
        seated = rotate([b.name for b in bots], m["rotation"])
        by_name = {b.name: b for b in bots}
        spec = MatchSpec(game=c.game, hands=c.ladder.hands, seed=int(m["seed"], 16), starting_stack=c.starting_stack,
                         stack_mode=c.stack_mode, match_id=m["match_id"], compress=True,
                         rotation=m["rotation"], definition=c.definition)
        directory = match_dir(c, m["block_id"], m["rotation"])
        return Job(key=m["match_id"], func=play_and_store,
                   args=(self.play, [by_name[n] for n in seated], spec, c.limits, directory),
                   directory=directory, info=("match", m["block_id"], m["id"], m["rotation"], len(bots)))

    def _bots(self, seats: Sequence[str]) -> list[Any]:
        refs = {r.name: r for r in self.contest.references}
        out = []
        for s in seats:
            if s.startswith("r"):
                out.append(refs[s[1:]])
                continue
            v, st = db.versions, db.students
            with self.engine.connect() as conn:
                row = conn.execute(select(v.c.number, v.c.folder, v.c.command, st.c.name)
                                   .join(st, v.c.student_id == st.c.id).where(v.c.id == int(s[1:]))).one()
            out.append(store.bot_spec(self.contest, row.name, row.number, row.folder, row.command))
        return out

    def _new_table(self, active: list[dict[str, Any]], tally: store.Tally) -> list[str] | None:
        """A new ladder table (seat codes) over the active versions and reference bots (:func:`choose_table`):
        block counts from ``tally``, ratings from the board (pairing only: a board a block behind does no harm)."""
        active = [a for a in active if not a["paused"]]  # a paused version gets no new block
        ids = {store.label(a["student"], a["number"]): f"v{a['id']}" for a in active}
        ids.update({r.name: f"r{r.name}" for r in self.contest.references})
        blocks = {name: tally.given.get(code, 0) for name, code in ids.items()}
        uploaded = {store.label(a["student"], a["number"]): float(a["created"]) for a in active}
        ratings = {r.bot: (r.rating, r.rating_sigma) for r in self.board.rows()}
        table = choose_table(list(ids), blocks, ratings, [r.name for r in self.contest.references],
                             self.contest.ladder.table_size, self.rng, uploaded)
        return None if table is None else [ids[n] for n in table]

    # -- results
    def finished(self, done: Done) -> None:
        kind = done.job.info[0]
        if kind == "check":
            vid = done.job.info[1]
            # the worker's own error and traceback: the server's code, none of the student's (hostpaths)
            data = done.result or {"ok": False,
                                   "reason": for_student(f"the check itself failed: {done.error}", self.roots),
                                   "stderr_tail": for_student(_error_text(done.job.directory), self.roots)}
            store.finish_check(self.engine, vid, bool(data.get("ok")), str(data.get("reason", "")), data)
            if not data.get("ok"):
                store.drop_refused_files(self.contest, done.job.info[2], done.job.info[3])
            return
        _, block_id, match_pk, rotation, seats = done.job.info
        record = None
        error = done.error
        if done.result is not None:
            try:
                result = MatchResult.from_dict(done.result)
                # every student sees a match's statuses: no host path in them
                result = dataclasses.replace(result, status=[for_student(st, self.roots) for st in result.status])
                record = MatchRecord(table=f"b{block_id}", rotation=rotation, unit=self.contest.game.unit,
                                     result=result, rotations=seats).to_dict()
            except (KeyError, TypeError, ValueError) as exc:
                error = f"unreadable result: {exc}"
        slow = slow_decisions(done.job.directory, self.contest.limits.decision_ms) if record else {}
        store.finish_match(self.engine, match_pk, record, error, slow)
        if store.block_state(self.engine, block_id) in (store.DONE, store.FAILED):
            self._pause_faulty(block_id)

    def _pause_faulty(self, block_id: int) -> None:
        """Pause each version of a finished block whose last ``[ladder] pause_after_faulty_blocks`` blocks all
        had a fault of its (:func:`harness.server.store.faulty_streak`); the admin page lists it."""
        n = self.contest.ladder.pause_after_faulty_blocks
        if n <= 0:
            return
        seats = store.block_seats(self.engine, block_id)
        for a in store.active_versions(self.engine):
            bot = store.label(a["student"], a["number"])
            if f"v{a['id']}" in seats and not a["paused"] and store.faulty_streak(self.engine, bot, n):
                faults = store.fault_totals(self.engine, [bot]).get(bot, {})
                shown = ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))
                store.pause(self.engine, a["id"], f"a fault in each of its last {n} blocks ({shown})")


def match_dir(contest: Contest, block_id: int, rotation: int) -> Path:
    """A match's files: ``<data>/matches/b<block>/r<rotation>``."""
    return contest.data / "matches" / f"b{block_id}" / f"r{rotation}"


def _error_text(directory: Path) -> str:
    try:
        return (directory / "error.txt").read_text(encoding="utf-8", errors="replace")[-4000:]
    except OSError:
        return ""
