"""The contest leaderboard, recomputed from the stored results of complete blocks.

bb/100 with its 95% CI (:func:`harness.tournament.stats.standings`, over the
blocks as duplicate sets) and the Plackett-Luce rating
(:func:`harness.tournament.ratings.plackett_luce_ratings`, which rates in
table order, so the result never depends on the order blocks finished). The
rows are cached until another block completes.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Engine, select

from harness.server import db, store
from harness.server.contest import Contest
from harness.tournament.ratings import plackett_luce_ratings
from harness.tournament.results import MatchRecord
from harness.tournament.stats import standings


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Board:
    """The leaderboard of one contest, cached by the number of complete blocks (thread-safe)."""

    def __init__(self, contest: Contest, engine: Engine) -> None:
        self.contest = contest
        self.engine = engine
        self._lock = threading.Lock()
        self._key: int | None = None
        self._rows: list[Row] = []
        self._records: list[MatchRecord] = []

    def key(self) -> int:
        """Complete blocks so far (changes when the board does)."""
        return store.done_count(self.engine)

    def rows(self) -> list[Row]:
        """Active versions and reference bots, best rating first; inactive versions that played below."""
        key = self.key()
        with self._lock:
            if key != self._key:
                self._rows, self._records = self._compute()
                self._key = key
            return list(self._rows)

    def records(self) -> list[MatchRecord]:
        """The match records counted so far."""
        self.rows()
        with self._lock:
            return list(self._records)

    def _compute(self) -> tuple[list[Row], list[MatchRecord]]:
        records = [MatchRecord.from_dict(r) for _, _, r in store.done_records(self.engine)]
        v, st = db.versions, db.students
        with self.engine.connect() as conn:
            vers = conn.execute(select(v.c.number, v.c.active, v.c.state, st.c.name)
                                .join(st, v.c.student_id == st.c.id)).all()
        who: dict[str, tuple[str, int, str]] = {}
        for number, active, state, name in vers:
            if state == store.ADMITTED:
                who[store.label(name, number)] = (name, number, "active" if active else "inactive")
        for ref in self.contest.references:
            who[ref.name] = ("", 0, "reference")
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
                            blocks=played.get(name, 0)))
        rows.sort(key=lambda row: (row.status == "inactive", -row.rating, row.bot))
        return rows, records
