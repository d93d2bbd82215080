"""The contest leaderboard, recomputed from the stored results of complete blocks.

bb/100 with its 95% CI (:func:`harness.tournament.stats.standings`, over the
blocks as duplicate sets) and the Plackett-Luce rating
(:func:`harness.tournament.ratings.plackett_luce_ratings`, which rates in
table order, so the result never depends on the order blocks finished). The
rows are cached until another block completes, and recomputed in a worker
process so that the pages never wait for the computation's share of the
interpreter.

Under ``harness serve`` the ladder's process keeps the board
(:mod:`harness.server.ladderproc`): it recomputes it once per completed block
and publishes it to ``<data>/board.json`` (:data:`BOARD_FILE`, replaced
whole), and the web process only reads that file, again when it changes
(one ``stat`` a page, no query).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from harness.server import db, store
from harness.server.contest import Contest
from harness.tournament.ratings import finish_keys, plackett_luce_ratings, rate_table
from harness.tournament.results import MatchRecord
from harness.tournament.stats import standings

#: Added to the niceness of the server's background work (the ladder's match workers and their bots, the board's
#: worker, the final's run): the pages a class polls come first for the CPU, the matches use what is left.
BACKGROUND_NICENESS = 10
#: The published board (``<data>/board.json``): ``{"key": complete blocks, "rows": [Row...], "history": {...}}``.
BOARD_FILE = "board.json"


@dataclass(frozen=True, slots=True)
class Row:
    """One leaderboard line (``GET /api/leaderboard``).

    Attributes:
        bot: the bot's name in matches (``<student>.v<N>`` or the reference bot's name).
        student: the student ("" for a reference bot).
        version: the version number (0 for a reference bot).
        hands: hands played.
        bb_per_100: big blinds won per 100 hands; ci95_low/ci95_high its 95% interval (None: too few blocks).
        rating: the rating's mean (rating points); rating_sigma its standard deviation.
        status: ``active``, ``inactive`` (a student's older version) or ``reference``.
        blocks: complete blocks played.
        faults: its faults over every stored match, by kind (:func:`harness.server.store.seat_faults`:
            the protocol's kinds, ``out``: matches it was put out of, ``slow``: decisions paid from the time bank).
        paused: why the ladder gives it no more blocks ("": it plays; :attr:`LadderSettings.pause_after_faulty_blocks`).
        rank: its place by rating among the active versions and reference bots with a complete block (1: best);
            None: not ranked (no complete block yet, or an older version).
        bb_rank: its place by bb/100 among the same bots (the final's report ranks by bb/100); None likewise.
    """

    bot: str
    student: str
    version: int
    hands: int
    bb_per_100: float
    ci95_low: float | None
    ci95_high: float | None
    rating: float
    rating_sigma: float
    status: str
    blocks: int
    faults: dict[str, int] = field(default_factory=dict)
    paused: str = ""
    rank: int | None = None
    bb_rank: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class LiveBoard:
    """The leaderboard of one contest, cached by the number of complete blocks (thread-safe).

    Recomputing takes seconds with thousands of matches, so it runs in a worker process of its
    own (the pages keep the server's interpreter; :func:`compute`), and requests are answered
    from the last computed board while the next one is made (only the very first computation
    is waited for); :attr:`computed` says which board is shown. :meth:`close` ends the worker.

    Args:
        contest: the contest.
        engine: its database.
        worker: recompute in a worker process; False: in this process (a caller that serves no
            pages, e.g. a test, and starts no process: multiprocessing's resource tracker included).
        publish: write each board computed here to this file (:data:`BOARD_FILE`; the ladder's process).
        stored: read the board from this file (published by another process) whenever it exists, computing
            nothing here; without it (not yet written, unreadable), compute as above.
    """

    def __init__(self, contest: Contest, engine: Engine, *, worker: bool = True, publish: Path | None = None,
                 stored: Path | None = None) -> None:
        self.contest = contest
        self.engine = engine
        self._lock = threading.Lock()
        self._refreshing = False
        #: The key (complete blocks) of the board shown now; None before the first computation.
        self.computed: int | None = None
        #: Complete blocks as the ladder counted them at its last turn (:meth:`key`); None: no ladder counts.
        self.known_key: int | None = None
        self._rows: list[Row] = []
        self._history: dict[str, list[dict[str, float]]] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._closed = not worker
        self.publish = publish
        self.stored = stored
        self._stamp: tuple[int, int, int] | None = None
        self._dicts: tuple[list[Row] | None, list[dict[str, Any]]] = (None, [])

    def key(self) -> int:
        """Complete blocks so far (changes when the board does): as the ladder last counted them (it counts once a
        turn, so the pages a class polls do not ask the database each), else from the database."""
        known = self.known_key
        return store.done_count(self.engine) if known is None else known

    def _compute(self) -> tuple[list[Row], dict[str, list[dict[str, Any]]]]:
        """:func:`compute` in the worker process (started on first use), or here if it cannot run."""
        url = self.engine.url.render_as_string(hide_password=False)
        references = [ref.name for ref in self.contest.references]
        with self._lock:
            if self._pool is None and not self._closed:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_exit_with_parent, initargs=(os.getpid(),))
            pool = self._pool
        if pool is not None:
            try:
                return pool.submit(compute, url, references).result()
            except (BrokenProcessPool, RuntimeError):  # the worker died or the pool is shut down
                with self._lock:
                    if self._pool is pool:
                        self._pool = None
        return compute(url, references, self.engine)

    def _refresh(self, key: int) -> None:
        try:
            rows, history = self._compute()
            with self._lock:
                self._rows, self._history, self.computed = rows, history, key
            self._publish(key, rows, history)
        finally:
            self._refreshing = False

    def _publish(self, key: int, rows: list[Row], history: dict[str, list[dict[str, Any]]]) -> None:
        """Write the board to :attr:`publish` whole (a reader never sees half of it: a new file renamed over)."""
        if self.publish is None:
            return
        part = self.publish.with_name(f".{self.publish.name}.{os.getpid()}")
        part.write_text(json.dumps({"key": key, "rows": [r.to_dict() for r in rows], "history": history}),
                        encoding="utf-8")
        os.replace(part, self.publish)

    def _read_stored(self) -> bool:
        """Take the published board when its file changed since the last read (False: no readable file)."""
        if self.stored is None:
            return False
        try:
            st = os.stat(self.stored)
        except OSError:
            return False
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if stamp == self._stamp:
            return True
        with self._lock:
            if stamp != self._stamp:
                try:
                    data = json.loads(self.stored.read_bytes())
                    rows = [Row(**r) for r in data["rows"]]
                    self._rows, self._history, self.computed = rows, data["history"], int(data["key"])
                except (OSError, ValueError, KeyError, TypeError):
                    return False
                self._stamp = stamp
        return True

    def rows(self) -> list[Row]:
        """Active versions and reference bots with a complete block, best rating first; then those without one;
        then inactive versions that played (:func:`ranked`)."""
        if self._read_stored():
            with self._lock:
                return list(self._rows)
        key = self.key()
        if self.computed is None:
            rows, history = self._compute()
            with self._lock:
                first = self.computed is None
                if first:
                    self._rows, self._history, self.computed = rows, history, key
            if first:
                self._publish(key, rows, history)
        elif key != self.computed and not self._refreshing:
            self._refreshing = True
            threading.Thread(target=self._refresh, args=(key,), name="board", daemon=True).start()
        with self._lock:
            return list(self._rows)

    def stamp(self) -> tuple[Any, ...]:
        """Changes whenever :meth:`rows` and :meth:`history` would give something else (a page's entity tag,
        :mod:`harness.server.etag`): the published file's stamp (one ``stat``), else the key of the board shown."""
        if self._read_stored():
            return ("stored", self._stamp)
        self.rows()
        return ("computed", self.computed)

    def dicts(self) -> list[dict[str, Any]]:
        """:meth:`rows` as dictionaries (:meth:`Row.to_dict`), made once per board (pages ask for them often)."""
        self.rows()
        with self._lock:
            rows, made = self._dicts
            if rows is not self._rows:  # a new board since
                rows, made = self._rows, [r.to_dict() for r in self._rows]
                self._dicts = (rows, made)
        return made

    def history(self, bots: set[str]) -> list[dict[str, float]]:
        """The rating (mu, sigma) of ``bots`` after each of their blocks (the last 100 each), oldest first."""
        self.rows()
        with self._lock:
            points = [p for b in bots for p in self._history.get(b, [])]
        return sorted(points, key=lambda p: p["t"])

    def close(self) -> None:
        """End the worker process (idempotent); a later computation runs in this process."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _exit_with_parent(parent: int) -> None:
    """In the board's worker: exit when the server process is gone (even killed with SIGKILL); behind the pages
    for the CPU (:data:`BACKGROUND_NICENESS`)."""
    os.nice(BACKGROUND_NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


#: The chart's state after the rows it last rated, per database URL (the board's worker keeps it between
#: recomputations): ``(hash of those rows' (block, finished) keys, how many, ratings, points)``.
_CHART: dict[str, tuple[int, int, dict[str, tuple[float, float]], dict[str, list[dict[str, Any]]]]] = {}


def _rating_history(rows: list[tuple[int, float, MatchRecord]], memo: str = "") -> dict[str, list[dict[str, Any]]]:
    """Ratings after each block in the order blocks finished (the chart; the board rates in table order), from
    ``(block id, finished, record)`` in that order (records parsed once for the board and the chart).

    With ``memo`` (the database's URL), the rows rated last time are not rated again when they are still the
    first rows, unchanged: blocks finish one after another, so a recomputation rates only the new ones.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    prior = (float(model.rating().mu), float(model.rating().sigma))
    current: dict[str, tuple[float, float]] = {}
    out: dict[str, list[dict[str, Any]]] = {}
    start = 0
    state = _CHART.get(memo) if memo else None
    if state is not None:
        digest, count, rated_before, points_before = state
        if count <= len(rows) and hash(tuple((b, f) for b, f, _ in rows[:count])) == digest:
            start, current = count, dict(rated_before)
            out = {name: list(points) for name, points in points_before.items()}
    for _block, finished, rec in rows[start:]:
        if rec.result.hands_played == 0:
            continue
        names = rec.result.bots
        rated = rate_table(model, [current.get(n, prior) for n in names], finish_keys(rec))
        for name, (mu, sigma) in zip(names, rated, strict=True):
            current[name] = (mu, sigma)
            if rec.rotation == rec.rotations - 1:  # one point per block
                points = out.setdefault(name, [])
                points.append({"bot": name, "t": finished, "mu": round(mu, 3), "sigma": round(sigma, 3)})
                del points[:-100]
    if memo:
        _CHART[memo] = (hash(tuple((b, f) for b, f, _ in rows)), len(rows), dict(current),
                        {name: list(points) for name, points in out.items()})
    return out


def compute(url: str, references: Sequence[str], engine: Engine | None = None
            ) -> tuple[list[Row], dict[str, list[dict[str, Any]]]]:
    """The leaderboard rows and each bot's rating history, from the database at ``url``.

    Runs in the board's worker process (which opens its own engine), or with ``engine`` here.

    Args:
        url: the database (SQLAlchemy URL, password included).
        references: the contest's reference bots.
        engine: an open engine of ``url`` to use instead of a new one.
    """
    own = engine is None
    engine = engine if engine is not None else db.make_engine(url)
    try:
        stored = store.done_records(engine)
        faults = store.fault_totals(engine)
        v, st = db.versions, db.students
        with engine.connect() as conn:
            vers = conn.execute(select(v.c.number, v.c.active, v.c.state, st.c.name, v.c.paused)
                                .join(st, v.c.student_id == st.c.id)).all()
    finally:
        if own:
            engine.dispose()
    records = [MatchRecord.from_dict(r) for _, _, r in stored]
    who: dict[str, tuple[str, int, str]] = {}
    paused: dict[str, str] = {}
    for number, active, state, name, why in vers:
        if state == store.ADMITTED:
            who[store.label(name, number)] = (name, number, "active" if active else "inactive")
            paused[store.label(name, number)] = why
    for ref in references:
        who[ref] = ("", 0, "reference")
    played: dict[str, int] = {}
    for rec in records:
        if rec.rotation == 0:
            for name in rec.result.bots:
                played[name] = played.get(name, 0) + 1
    names = [n for n, (_, _, status) in who.items() if status != "inactive" or n in played]
    table = {s.bot: s for s in standings(records, names)}
    ratings = plackett_luce_ratings(records, names)
    rows = []
    for name in names:
        s, r = table[name], ratings[name]
        student, number, status = who[name]
        rows.append(Row(bot=name, student=student, version=number, hands=s.hands,
                        bb_per_100=round(s.estimate.bb_per_100, 3),
                        ci95_low=None if s.estimate.low is None else round(s.estimate.low, 3),
                        ci95_high=None if s.estimate.high is None else round(s.estimate.high, 3),
                        rating=round(r.mu, 3), rating_sigma=round(r.sigma, 3), status=status,
                        blocks=played.get(name, 0), faults=faults.get(name, {}), paused=paused.get(name, "")))
    chart = [(block, finished, rec) for (block, finished, _), rec in zip(stored, records, strict=True)]
    return ranked(rows), _rating_history(chart, memo=url)


def ranked(rows: list[Row]) -> list[Row]:
    """The board's order and ranks: the active versions and reference bots with a complete block by rating
    (ranks 1..n, and their ranks by bb/100 beside), then those without one (unranked: never placed at the prior
    rating), then older versions that played (unranked)."""
    def group(row: Row) -> int:
        return 2 if row.status == "inactive" else 0 if row.blocks else 1

    rows = sorted(rows, key=lambda row: (group(row), -row.rating, row.bot))
    placed = [row for row in rows if group(row) == 0]
    by_bb = {row.bot: k for k, row in enumerate(sorted(placed, key=lambda r: (-r.bb_per_100, r.bot)), 1)}
    rank = {row.bot: k for k, row in enumerate(placed, 1)}
    return [dataclasses.replace(row, rank=rank.get(row.bot), bb_rank=by_bb.get(row.bot)) for row in rows]
