"""How the standings moved over a tournament: cumulative bb/100 with its 95% interval after each table,
and Plackett-Luce ratings after each match, both in schedule order (tables sorted, then rotations); and the
same rating lines from points the contest server's board has computed (:func:`rating_points_history`).

The interval is that of :func:`harness.tournament.stats.estimate` (Student's t over duplicate sets),
kept as running sums so each step costs O(1): after the last table the numbers are the leaderboard's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.tournament.ratings import plackett_luce_history
from harness.tournament.results import MatchRecord
from harness.tournament.stats import estimate, sets_by_table


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
    so_far: dict[str, list[tuple[float, int]]] = {bot: [] for bot in bots}
    series = {bot: Series(bot) for bot in bots}
    for table in order:
        for bot, sets in tables[table].items():
            if bot in so_far:
                so_far[bot].extend(sets)
        for bot in bots:
            est = estimate(so_far[bot]) if so_far[bot] else None  # None: not played yet
            series[bot].value.append(None if est is None or not est.hands else est.bb_per_100)
            series[bot].low.append(None if est is None else est.low)
            series[bot].high.append(None if est is None else est.high)
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


def rating_points_history(points: Sequence[dict[str, Any]],
                          step_label: Callable[[float], str] = str) -> tuple[list[str], list[Series]]:
    """The same lines as :func:`rating_history` from rating points already computed (the contest server's
    board keeps them per finished block): each bot holds its last rating between its own points.

    Args:
        points: ``{"bot", "t" (seconds since the epoch), "mu", "sigma"}`` dicts, any order.
        step_label: how a step's time is written (the hover text).

    Returns:
        (one label per distinct time, oldest first; one :class:`Series` per bot, in order of first point).
    """
    ordered = sorted(points, key=lambda p: p["t"])
    times = sorted({p["t"] for p in ordered})
    bots = list(dict.fromkeys(p["bot"] for p in ordered))
    series = {bot: Series(bot) for bot in bots}
    at: dict[str, tuple[float, float]] = {}
    i = 0
    for t in times:
        while i < len(ordered) and ordered[i]["t"] == t:
            at[ordered[i]["bot"]] = (ordered[i]["mu"], ordered[i]["sigma"])
            i += 1
        for bot in bots:
            mu, sigma = at.get(bot, (None, None))
            line = series[bot]
            line.value.append(mu)
            line.low.append(None if mu is None or sigma is None else mu - 1.96 * sigma)
            line.high.append(None if mu is None or sigma is None else mu + 1.96 * sigma)
    return [step_label(t) for t in times], [series[bot] for bot in bots]
