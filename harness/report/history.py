"""How the standings moved over a tournament: cumulative bb/100 with its 95% interval after each table,
and Plackett-Luce ratings after each match, both in schedule order (tables sorted, then rotations).

The interval is that of :func:`harness.tournament.stats.estimate` (Student's t over duplicate sets),
kept as running sums so each step costs O(1): after the last table the numbers are the leaderboard's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.tournament.ratings import plackett_luce_history
from harness.tournament.results import MatchRecord
from harness.tournament.stats import MIN_SETS, sets_by_table, t_quantile_975


@dataclass(slots=True)
class _Running:
    """Running sums of a bot's duplicate sets (net in bb x, hands k)."""

    n: int = 0
    x: float = 0.0
    k: float = 0.0
    xx: float = 0.0
    xk: float = 0.0
    kk: float = 0.0

    def add(self, x: float, k: int) -> None:
        self.n += 1
        self.x += x
        self.k += k
        self.xx += x * x
        self.xk += x * k
        self.kk += k * k

    def estimate(self) -> tuple[float | None, float | None, float | None]:
        """(bb/100, low, high) as :func:`harness.tournament.stats.estimate` gives them (None: not measured)."""
        if not self.k:
            return None, None, None
        r = self.x / self.k
        if self.n < MIN_SETS:
            return 100 * r, None, None
        spread = max(0.0, self.xx - 2 * r * self.xk + r * r * self.kk)  # sum of (x - r k)^2
        se = math.sqrt(spread / (self.n * (self.n - 1))) / (self.k / self.n)
        half = 100 * t_quantile_975(self.n - 1) * se
        return 100 * r, 100 * r - half, 100 * r + half


@dataclass(slots=True)
class Series:
    """One bot's line over the tournament: a value (and interval) after each step, None before it played."""

    bot: str
    value: list[float | None] = field(default_factory=list)
    low: list[float | None] = field(default_factory=list)
    high: list[float | None] = field(default_factory=list)


def bb_history(records: Sequence[MatchRecord], bots: Sequence[str]) -> tuple[list[str], list[Series]]:
    """Cumulative bb/100 and its 95% interval of each bot after each table (schedule order).

    Returns:
        (the tables in order, one :class:`Series` per bot of ``bots``).
    """
    tables = sets_by_table(records)
    order = sorted(tables)
    running = {bot: _Running() for bot in bots}
    series = {bot: Series(bot) for bot in bots}
    for table in order:
        for bot, sets in tables[table].items():
            if bot in running:
                for x, k in sets:
                    running[bot].add(x, k)
        for bot in bots:
            value, low, high = running[bot].estimate()
            series[bot].value.append(value)
            series[bot].low.append(low)
            series[bot].high.append(high)
    return order, [series[bot] for bot in bots]


def rating_history(records: Sequence[MatchRecord], bots: Sequence[str]) -> tuple[list[str], list[Series]]:
    """Plackett-Luce mu (low/high: mu -+ 1.96 sigma) of each bot after each match, schedule order.

    Returns:
        (the match ids in order, one :class:`Series` per bot of ``bots``).
    """
    ids: list[str] = []
    series = {bot: Series(bot) for bot in bots}
    for rec, ratings in plackett_luce_history(records):
        ids.append(rec.match_id)
        for bot in bots:
            mu, sigma = ratings.get(bot, (None, None))
            series[bot].value.append(mu)
            series[bot].low.append(None if mu is None or sigma is None else mu - 1.96 * sigma)
            series[bot].high.append(None if mu is None or sigma is None else mu + 1.96 * sigma)
    return ids, [series[bot] for bot in bots]
