"""Statistics over match records: pure functions, no I/O.

bb/100 and its 95% confidence interval are computed over *duplicate sets*,
not single hands. A duplicate set is one deal (hand index h of a table)
played in every seat rotation of that table; the observation for a bot is
its net over those k hands, in big blinds. Luck of the cards largely
cancels inside a set, so the interval is much narrower than one over
single hands, and the sets are independent of each other (each table and
hand index has its own seed). Without duplicate a set is a single hand.

With n sets, x_j the bot's net in set j (bb) and k_j its hands in the set:
``bb/100 = 100 * sum(x) / sum(k)``; standard error of the ratio
``se = sqrt(sum((x_j - r k_j)^2) / (n (n - 1))) / mean(k)`` with
``r = sum(x) / sum(k)``; the interval is ``bb/100 +- 100 * t * se`` with
t the 97.5% quantile of Student's t with n - 1 degrees of freedom.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from harness.tournament.results import MatchRecord

# Fault kinds as the referee names them (harness.match.specs.FaultKind) and their column names.
FAULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("timeout", "timeouts"),
    ("illegal", "illegal"),
    ("malformed", "malformed"),
    ("oversized", "oversized"),
    ("crash", "crashes"),
    ("disconnected", "disconnections"),
    ("failed_start", "failed_starts"),
)

# 97.5% quantiles of Student's t, df = 1..30.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959964


def t_quantile_975(df: int) -> float:
    """97.5% quantile of Student's t with ``df`` >= 1 degrees of freedom.

    Exact table up to 30, then the Cornish-Fisher expansion (error < 0.001).
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


@dataclass(frozen=True, slots=True)
class Estimate:
    """bb/100 with its 95% confidence interval.

    Attributes:
        bb_per_100: big blinds won per 100 hands.
        low, high: the 95% interval (None with fewer than 2 duplicate sets).
        sets: number of duplicate sets observed.
        hands: hands played.
    """

    bb_per_100: float
    low: float | None
    high: float | None
    sets: int
    hands: int

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


def estimate(sets: Sequence[tuple[float, int]]) -> Estimate:
    """bb/100 and 95% CI from duplicate sets ``(net in bb, hands)``; see the module docstring."""
    n = len(sets)
    hands = sum(k for _, k in sets)
    if hands == 0:
        return Estimate(0.0, None, None, n, 0)
    r = sum(x for x, _ in sets) / hands
    if n < 2:
        return Estimate(100 * r, None, None, n, hands)
    mean_k = hands / n
    se = math.sqrt(sum((x - r * k) ** 2 for x, k in sets) / (n * (n - 1))) / mean_k
    half = 100 * t_quantile_975(n - 1) * se
    return Estimate(100 * r, 100 * r - half, 100 * r + half, n, hands)


def duplicate_sets(records: Iterable[MatchRecord], bot: str, *, with_bot: str | None = None) -> list[tuple[float, int]]:
    """Collect a bot's duplicate sets: (table, hand index) -> (net in bb, hands).

    Args:
        records: match records of one tournament.
        bot: whose nets to collect.
        with_bot: if given, only tables where this bot also sat.

    Returns:
        One ``(net_bb, hands)`` per set, in a stable order.
    """
    acc: dict[tuple[int, int], list[float]] = {}
    for rec in records:
        res = rec.result
        if bot not in res.bots or (with_bot is not None and with_bot not in res.bots):
            continue
        seat = res.bots.index(bot)
        for h, nets in enumerate(res.hand_nets):
            cell = acc.setdefault((rec.table, h), [0.0, 0])
            cell[0] += nets[seat] / rec.big_blind
            cell[1] += 1
    return [(x, int(k)) for (x, k) in (acc[key] for key in sorted(acc))]


@dataclass(frozen=True, slots=True)
class Standing:
    """One leaderboard row.

    Attributes:
        rank: 1-based position (by bb/100, highest first).
        bot: bot name.
        hands: hands played (sum over its matches).
        net_chips: chips won (negative: lost).
        estimate: bb/100 with its 95% CI.
        matches_won / matches_lost: matches finished ahead (net > 0) / behind (net < 0).
        faults: counts keyed by fault kind (timeout, illegal, malformed,
            oversized, crash, disconnected, failed_start).
        put_out: matches in which the referee put the bot out (status not "ok").
    """

    rank: int
    bot: str
    hands: int
    net_chips: int
    estimate: Estimate
    matches_won: int
    matches_lost: int
    faults: Mapping[str, int] = field(default_factory=dict)
    put_out: int = 0


def bot_names(records: Iterable[MatchRecord]) -> list[str]:
    """Every bot seen in the records, in order of first appearance."""
    names: dict[str, None] = {}
    for rec in records:
        for name in rec.result.bots:
            names.setdefault(name, None)
    return list(names)


def standings(records: Sequence[MatchRecord], bots: Sequence[str] | None = None) -> list[Standing]:
    """The leaderboard: one row per bot, sorted by bb/100 (highest first, then name).

    Args:
        records: match records of one tournament.
        bots: names to list (default: every bot in the records); a bot with
            no match yet gets an empty row.
    """
    names = list(bots) if bots is not None else bot_names(records)
    hands: dict[str, int] = defaultdict(int)
    net: dict[str, int] = defaultdict(int)
    won: dict[str, int] = defaultdict(int)
    lost: dict[str, int] = defaultdict(int)
    put_out: dict[str, int] = defaultdict(int)
    faults: dict[str, dict[str, int]] = {name: {kind: 0 for kind, _ in FAULT_COLUMNS} for name in names}
    for rec in records:
        res = rec.result
        for seat, name in enumerate(res.bots):
            hands[name] += res.hands_played
            net[name] += res.net[seat]
            won[name] += res.net[seat] > 0
            lost[name] += res.net[seat] < 0
            put_out[name] += res.status[seat] != "ok"
            counts = faults.setdefault(name, {kind: 0 for kind, _ in FAULT_COLUMNS})
            for kind, count in res.faults[seat].items():
                counts[kind] = counts.get(kind, 0) + count
    rows = [
        (name, estimate(duplicate_sets(records, name)))
        for name in names
    ]
    rows.sort(key=lambda item: (-item[1].bb_per_100, item[0]))
    return [
        Standing(
            rank=i,
            bot=name,
            hands=hands[name],
            net_chips=net[name],
            estimate=est,
            matches_won=won[name],
            matches_lost=lost[name],
            faults=dict(faults[name]),
            put_out=put_out[name],
        )
        for i, (name, est) in enumerate(rows, start=1)
    ]


def crosstable(records: Sequence[MatchRecord], bots: Sequence[str]) -> dict[tuple[str, str], Estimate]:
    """Row bot's bb/100 over the tables it shared with the column bot.

    Returns:
        ``{(row, column): Estimate}`` for every ordered pair that met; pairs
        that never sat together are absent. Heads-up, the matrix is
        antisymmetric; at larger tables the row's result includes its play
        against the other bots of those tables.
    """
    table: dict[tuple[str, str], Estimate] = {}
    for row in bots:
        for col in bots:
            if row == col:
                continue
            sets = duplicate_sets(records, row, with_bot=col)
            if sets:
                table[(row, col)] = estimate(sets)
    return table
