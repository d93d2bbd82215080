"""Statistics over match records: pure functions, no I/O.

bb/100 and its 95% confidence interval are computed over *duplicate sets*,
not single hands. A duplicate set is one deal of a table (deal d, dealt at
whatever hand each rotation's secret order puts it, :func:`harness.deals.deal_of`)
played in every seat rotation of that table with every bot of the table
seated (:func:`set_deals`); the observation for a bot is its net over
those k hands, in big blinds. Luck of the cards largely cancels inside a
set, so the interval is much narrower than one over single hands, and the
sets are independent of each other (each table and deal has its own
seed). Without duplicate a set is a single hand. In a freezeout the
rotations of a table end at different hands (a bust ends a heads-up
match) and a bust reseats the others (the same deal then reaches other
players' hands): a deal some rotation did not reach, or played without
one of the table's bots, is no duplicate set and is not scored, nor is any
later deal of that table. A deal of a set may still have been played with
different stacks in its rotations (stacks carry over).

With n sets, x_j the bot's net in set j (bb) and k_j its hands in the set:
``bb/100 = 100 * sum(x) / sum(k)``; standard error of the ratio
``se = sqrt(sum((x_j - r k_j)^2) / (n (n - 1))) / mean(k)`` with
``r = sum(x) / sum(k)``; the interval is ``bb/100 +- 100 * t * se`` with
t the 97.5% quantile of Student's t with n - 1 degrees of freedom
(:data:`MIN_SETS` = 2 sets at least: one set has no spread to measure).

Only complete duplicate sets are scored (:func:`score`): a table whose
rotations are not all recorded would leave the seat luck of its deals in
the numbers (one rotation of two identical bots shows +1.20 / -1.20 bb/100
where the complete set shows 0.00), so its records are set aside and the
table is reported as incomplete. A record that is not in the plan (an old
result of a changed bot, a line copied from elsewhere) is never counted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.specs import FaultKind
from harness.tournament.results import MatchRecord

#: Duplicate sets a statistic of spread needs (the CI here; rank intervals and LOS in ratings.py).
MIN_SETS = 2
#: A bot put out (or failing to start) in more than this share of its matches is not ranked.
UNRANKED_SHARE = 0.5

#: Every fault kind and its leaderboard column, in the columns' order.
FAULT_COLUMNS: tuple[tuple[FaultKind, str], ...] = (
    (FaultKind.TIMEOUT, "timeouts"),
    (FaultKind.ILLEGAL, "illegal"),
    (FaultKind.MALFORMED, "malformed"),
    (FaultKind.OVERSIZED, "oversized"),
    (FaultKind.CRASH, "crashes"),
    (FaultKind.DISCONNECTED, "disconnections"),
    (FaultKind.FAILED_START, "failed_starts"),
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
        low, high: the 95% interval (None with fewer than :data:`MIN_SETS` duplicate sets).
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


def bb_per_100(net: Any, hands: Any, big_blind: float = 1.0) -> Any:
    """Big blinds won per 100 hands: ``100 * net / big_blind / hands`` (the one formula of bb/100).

    Args:
        net: chips won (with ``big_blind`` the chips of a big blind) or big
            blinds won (``big_blind`` 1); a number or a numpy array.
        hands: hands played: a count (0 gives 0.0) or a numpy array of
            counts, none 0.
        big_blind: chips of a big blind (the game's ``unit`` in fixed-limit).
    """
    if isinstance(hands, int | float) and not hands:
        return 0.0
    return 100.0 * net / big_blind / hands


def estimate(sets: Sequence[tuple[float, int]]) -> Estimate:
    """bb/100 and 95% CI from duplicate sets ``(net in bb, hands)``; see the module docstring."""
    n = len(sets)
    hands = sum(k for _, k in sets)
    if hands == 0:
        return Estimate(0.0, None, None, n, 0)
    won = sum(x for x, _ in sets)
    bb100 = bb_per_100(won, hands)
    if n < MIN_SETS:
        return Estimate(bb100, None, None, n, hands)
    r = won / hands
    mean_k = hands / n
    se = math.sqrt(sum((x - r * k) ** 2 for x, k in sets) / (n * (n - 1))) / mean_k
    half = 100 * t_quantile_975(n - 1) * se
    return Estimate(bb100, bb100 - half, bb100 + half, n, hands)


def seated(rec: MatchRecord) -> list[list[bool]]:
    """Per hand, per seat of a match: was the seat dealt in? (Stacks reset: always; a freezeout: while it had chips.)

    A bot put out for faults is still dealt in (and folded). In a freezeout
    (``freezeout_stack`` set) a bot whose stack reached 0 has left the table.
    """
    res = rec.result
    n = len(res.bots)
    if rec.freezeout_stack is None:
        return [[True] * n for _ in res.hand_nets]
    stacks = [rec.freezeout_stack] * n
    out = []
    for row in res.hand_nets:
        out.append([c > 0 for c in stacks])
        stacks = [c + x for c, x in zip(stacks, row, strict=True)]
    return out


def set_deal_numbers(records: Sequence[MatchRecord]) -> list[int]:
    """The deals of one table that are duplicate sets, ascending (the deal numbers of :func:`harness.deals.deal_of`).

    Deal d is a set when every rotation of the table (``rotations``, or as
    many as are recorded if more) played it with every bot of the table
    seated (:func:`seated`), at whatever hand its rotation's order put it
    (``MatchResult.deals``; a record without them dealt deal h at hand h).
    Stacks reset every hand: every seat is dealt in every hand, so that is
    every deal all rotations played. In a freezeout a rotation's hands with
    every bot seated are a prefix (a bot that left never comes back): a
    deal that some rotation dealt after one of its bots left (or did not
    deal at all) is no set: the same deal then reaches other seats. A table
    of one rotation (no duplicate) has every hand it played: each is a set
    of one hand, for the bots dealt in.

    Args:
        records: the matches of one table.
    """
    if not records:
        return []
    rotations = max(max(rec.rotations for rec in records), len({rec.rotation for rec in records}))
    if len({rec.rotation for rec in records}) < rotations:
        return []
    common: set[int] | None = None
    for rec in records:
        numbers = rec.result.deal_numbers()
        if rotations > 1 and rec.freezeout_stack is not None:
            full = next((h for h, dealt in enumerate(seated(rec)) if not all(dealt)), len(numbers))
            numbers = numbers[:full]  # someone had left before hand `full`
        common = set(numbers) if common is None else common & set(numbers)
    return sorted(common or ())


def set_deals(records: Sequence[MatchRecord]) -> int:
    """How many deals of one table are duplicate sets (:func:`set_deal_numbers`)."""
    return len(set_deal_numbers(records))


def hand_of_deal(rec: MatchRecord) -> dict[int, int]:
    """``{deal: hand}`` of one record: where its order dealt each deal (``MatchResult.deals``)."""
    return {d: h for h, d in enumerate(rec.result.deal_numbers())}


def by_table(records: Iterable[MatchRecord]) -> dict[str, list[MatchRecord]]:
    """Records grouped by table, tables in order of first record."""
    tables: dict[str, list[MatchRecord]] = {}
    for rec in records:
        tables.setdefault(rec.table, []).append(rec)
    return tables


def sets_by_table(records: Iterable[MatchRecord]) -> dict[str, dict[str, list[tuple[float, int]]]]:
    """Every bot's duplicate sets (:func:`set_deals`) per table: ``{table: {bot: [(net in bb, hands), ...]}}``.

    One pass over the records; the sets of a table are in deal order, each rotation's hand of
    the deal found through its order (:func:`hand_of_deal`).
    """
    out: dict[str, dict[str, list[tuple[float, int]]]] = {}
    for table, recs in by_table(records).items():
        deals = set_deal_numbers(recs)
        cells: dict[str, list[list[float]]] = {}
        for rec in recs:
            res = rec.result
            dealt = seated(rec)
            where = hand_of_deal(rec)
            hands = [where[d] for d in deals]  # the rotations' hands paired by deal
            for seat, name in enumerate(res.bots):
                column = cells.setdefault(name, [[0.0, 0] for _ in deals])
                for j, h in enumerate(hands):
                    if dealt[h][seat]:  # a bot that left plays no more hands
                        column[j][0] += res.hand_nets[h][seat] / rec.unit
                        column[j][1] += 1
        out[table] = {name: [(x, int(k)) for x, k in column if k] for name, column in cells.items()}
    return out


def _collect(tables: Mapping[str, Mapping[str, list[tuple[float, int]]]], bot: str,
             with_bot: str | None = None) -> list[tuple[float, int]]:
    """A bot's sets from :func:`sets_by_table`, tables in sorted order (only those shared with ``with_bot``)."""
    return [cell for table in sorted(tables) if bot in tables[table]
            and (with_bot is None or with_bot in tables[table]) for cell in tables[table][bot]]


def duplicate_sets(records: Iterable[MatchRecord], bot: str, *, with_bot: str | None = None) -> list[tuple[float, int]]:
    """Collect a bot's duplicate sets (:func:`set_deals`): (table, deal) -> (net in bb, hands).

    Args:
        records: match records of one tournament.
        bot: whose nets to collect.
        with_bot: if given, only tables where this bot also sat.

    Returns:
        One ``(net_bb, hands)`` per set, in a stable order (table, then deal).
    """
    return _collect(sets_by_table(records), bot, with_bot)


def set_hands(records: Iterable[MatchRecord]) -> int:
    """Hands in duplicate sets (:func:`set_deals`): what bb/100 counts (every hand, unless a freezeout cut sets)."""
    return sum(set_deals(recs) * len(recs) for recs in by_table(records).values())


@dataclass(frozen=True, slots=True)
class Standing:
    """One leaderboard row.

    Attributes:
        rank: 1-based position (by bb/100, highest first); None for a bot
            listed below the ranked ones (:func:`unranked`).
        bot: bot name.
        hands: hands played (sum over its matches; in a freezeout, those it was dealt in).
        net_chips: chips won (negative: lost).
        estimate: bb/100 with its 95% CI.
        matches_won / matches_lost: matches finished ahead (net > 0) / behind (net < 0).
        faults: counts keyed by fault kind (timeout, illegal, malformed,
            oversized, crash, disconnected, failed_start).
        put_out: matches in which the referee put the bot out (status not "ok").
    """

    rank: int | None
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


def standings(records: Sequence[MatchRecord], bots: Sequence[str] | None = None, *,
              ranked: bool = True) -> list[Standing]:
    """The leaderboard: one row per bot, sorted by bb/100 (highest first, then name; bots without a duplicate set last).

    Args:
        records: match records of one tournament (the scored ones, see :func:`score`).
        bots: names to list (default: every bot in the records); a bot with
            no match yet gets an empty row.
        ranked: False gives every row ``rank`` None (bots listed below the ranking).
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
        dealt = seated(rec) if rec.freezeout_stack is not None else None
        for seat, name in enumerate(res.bots):
            # a bot that busted out of a freezeout plays no more of its hands
            hands[name] += res.hands_played if dealt is None else sum(1 for row in dealt if row[seat])
            net[name] += res.net[seat]
            won[name] += res.net[seat] > 0
            lost[name] += res.net[seat] < 0
            put_out[name] += res.status[seat] != "ok"
            counts = faults.setdefault(name, {kind: 0 for kind, _ in FAULT_COLUMNS})
            for kind, count in res.faults[seat].items():
                counts[kind] = counts.get(kind, 0) + count
    tables = sets_by_table(records)
    rows = [(name, estimate(_collect(tables, name))) for name in names]
    rows.sort(key=lambda item: (not item[1].sets, -item[1].bb_per_100, item[0]))  # bots without a set last
    return [
        Standing(
            rank=i if ranked else None,
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
    tables = sets_by_table(records)
    seated: dict[str, list[str]] = {}  # bot -> its tables, sorted
    for name in sorted(tables):
        for bot in tables[name]:
            seated.setdefault(bot, []).append(name)
    table: dict[tuple[str, str], Estimate] = {}
    for row in bots:
        for col in bots:
            if row == col:
                continue
            sets = [cell for name in seated.get(row, ()) if col in tables[name] for cell in tables[name][row]]
            if sets:
                table[(row, col)] = estimate(sets)
    return table


@dataclass(frozen=True, slots=True)
class Scoring:
    """Which records count (:func:`score`).

    Attributes:
        scored: records of complete tables of the plan, in the order given.
        incomplete: ``(table, recorded, planned)`` for each planned table with
            some but not all of its matches recorded, in order of first record.
        foreign: records not in the plan (unknown id, or a fingerprint the plan
            does not have for that id), never counted.
        planned: matches in the plan (None without a plan).
    """

    scored: list[MatchRecord]
    incomplete: list[tuple[str, int, int]]
    foreign: list[MatchRecord]
    planned: int | None


def score(records: Iterable[MatchRecord], plan: Mapping[str, tuple[str, str]] | None) -> Scoring:
    """Keep the records of complete duplicate sets of the plan.

    Args:
        records: stored records (first record per match id).
        plan: ``{match_id: (table, fingerprint)}`` of the current plan; None
            (no plan stored) groups records by their own ``table`` and ``rotations``.

    Returns:
        A :class:`Scoring`.
    """
    records = list(records)
    foreign: list[MatchRecord] = []
    kept: list[MatchRecord] = []
    if plan is None:
        kept = records
        expected: dict[str, int] = {}
        for rec in kept:
            expected.setdefault(rec.table, rec.rotations)
    else:
        for rec in records:
            entry = plan.get(rec.match_id)
            if entry is None or (rec.fingerprint and entry[1] != rec.fingerprint) or entry[0] != rec.table:
                foreign.append(rec)
            else:
                kept.append(rec)
        expected = defaultdict(int)
        for table, _ in plan.values():
            expected[table] += 1
    seen: dict[str, set[int]] = {}
    for rec in kept:
        seen.setdefault(rec.table, set()).add(rec.rotation)
    complete = {t for t, rots in seen.items() if len(rots) >= expected.get(t, 1)}
    return Scoring(
        scored=[r for r in kept if r.table in complete],
        incomplete=[(t, len(rots), expected.get(t, 1)) for t, rots in seen.items() if t not in complete],
        foreign=foreign,
        planned=None if plan is None else len(plan),
    )


def unranked(records: Sequence[MatchRecord], bots: Sequence[str],
             entry_failures: Mapping[str, str] | None = None) -> dict[str, str]:
    """Bots not to rank among the working ones, with the reason (listed below them).

    A bot is not ranked when it failed its entry check, or when it failed to
    start or was put out in more than half (:data:`UNRANKED_SHARE`) of its
    matches: its numbers measure its faults, not its play.

    Args:
        records: the plan's records (complete tables or not).
        bots: every bot of the plan and of the entry check.
        entry_failures: ``{bot: reason}`` from the entry check.

    Returns:
        ``{bot: reason}`` in the order of ``bots``, e.g. ``"failed to start in 8 of
        8 matches (first: failed_start: exited before its hello (exit status 1))"``.
    """
    failures = dict(entry_failures or {})
    played: dict[str, int] = defaultdict(int)
    out: dict[str, int] = defaultdict(int)
    starts: dict[str, int] = defaultdict(int)
    first: dict[str, str] = {}
    for rec in records:
        res = rec.result
        for seat, name in enumerate(res.bots):
            played[name] += 1
            if res.faults[seat].get(FaultKind.FAILED_START):
                starts[name] += 1
            if res.status[seat] != "ok":
                out[name] += 1
                first.setdefault(name, res.status[seat])
    reasons: dict[str, str] = {}
    for name in bots:
        if name in failures:
            reasons[name] = f"failed its entry check: {failures[name]}"
        elif played[name] and out[name] > UNRANKED_SHARE * played[name]:
            what = "failed to start" if starts[name] > UNRANKED_SHARE * played[name] else "put out"
            count = starts[name] if what == "failed to start" else out[name]
            reasons[name] = f"{what} in {count} of {played[name]} matches (first: {first[name]})"
    return reasons
