"""A racing round robin: heads-up pairs play duplicate tables until their order is clear, or a cap.

The design is a race in the sense of Maron & Moore (1994, "Hoeffding races") run
as successive elimination over pairs (Even-Dar, Mannor & Mansour 2006, "Action
elimination and stopping conditions"): every pair of bots that is still racing
plays one more duplicate table (both seatings on the same deals) per round; after
each round, a pair whose confidence interval of duplicate bb/100 excludes 0 has a
clear order and stops. A pair still level at ``max_tables`` tables stops too,
reported as *not separated* (no order is claimed). Pairs that stop early save
their tables; pairs that are close play the most.

The bound: Hoeffding's inequality needs a bounded result, and a table's bb/100
is bounded only by stacks times hands (a useless range), so each look uses the
normal approximation of the mean over the pair's duplicate sets (hundreds per
table: :mod:`harness.tournament.stats`, its ratio standard error) at level
``delta / (pairs * looks)``. By the union bound over every pair and every look,
the chance that the race stops *any* pair with the wrong order is at most
``delta`` (under that approximation; :attr:`RaceRule.delta`, 0.05 by default).
Pairs not separated at the cap carry no claim.

Everything here is pure: the decisions are a function of the recorded results
alone (:func:`replay`), so a final stopped mid-way and started again makes the
same decisions, and the tables' deals come from the final's committed seeds
(:mod:`harness.tournament.seeds`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from harness.tournament.results import MatchRecord
from harness.tournament.schedule import ScheduleError, instance_of
from harness.tournament.stats import bb_per_100, sets_by_table

#: A pair of bots, names sorted.
Pair = tuple[str, str]


@dataclass(frozen=True, slots=True)
class RaceRule:
    """When a pair stops racing.

    Attributes:
        delta: the chance, at most, that the race stops any pair with the wrong order (union bound).
        min_tables: duplicate tables every pair plays before its first look (>= 1).
        max_tables: the cap: a pair still level after this many tables stops, not separated.
    """

    delta: float = 0.05
    min_tables: int = 1
    max_tables: int = 4

    @property
    def looks(self) -> int:
        """Looks at one pair at most: after each of tables ``min_tables..max_tables``."""
        return self.max_tables - self.min_tables + 1

    def z(self, pairs: int) -> float:
        """The normal quantile of one look: two-sided level ``delta / (pairs * looks)`` (Bonferroni)."""
        alpha = self.delta / (max(1, pairs) * self.looks)
        return NormalDist().inv_cdf(1 - alpha / 2)


@dataclass(frozen=True, slots=True)
class PairState:
    """One pair's race so far.

    Attributes:
        pair: the two bots, sorted; ``bb_per_100`` is the first's against the second.
        tables: complete duplicate tables counted (the first ``tables`` of the pair).
        bb_per_100: the first bot's duplicate bb/100 against the second.
        se: its standard error (bb/100; None with fewer than 2 duplicate sets).
        half_width: the look's interval half width, ``z * se`` (None without ``se``).
        racing: True while the pair plays on.
        separated: the interval excludes 0 (the order is clear).
    """

    pair: Pair
    tables: int
    bb_per_100: float
    se: float | None
    half_width: float | None
    racing: bool
    separated: bool


def pairs_of(bots: Sequence[str]) -> list[Pair]:
    """Every pair of ``bots``, sorted (the round robin's tables, heads-up)."""
    names = sorted(bots)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def ratio_se(sets: Sequence[tuple[float, int]]) -> float | None:
    """Standard error of bb/100 over duplicate sets ``(net in bb, hands)`` (the ratio estimator of
    :func:`harness.tournament.stats.estimate`); None with fewer than 2 sets."""
    n = len(sets)
    hands = sum(k for _, k in sets)
    if n < 2 or not hands:
        return None
    r = sum(x for x, _ in sets) / hands
    return 100 * math.sqrt(sum((x - r * k) ** 2 for x, k in sets) / (n * (n - 1))) / (hands / n)


def pair_sets(records: Sequence[MatchRecord],
              plays: Mapping[Pair, int]) -> dict[Pair, tuple[int, list[tuple[float, int]]]]:
    """For each pair: its complete tables among its first ``plays[pair]``, and the first bot's duplicate sets there.

    Tables of other sizes or beyond a pair's count are ignored (a resumed race counts what its round counted).
    """
    out: dict[Pair, tuple[int, list[tuple[float, int]]]] = {p: (0, []) for p in plays}
    for table, cells in sorted(sets_by_table(records).items()):
        if len(cells) != 2:
            continue
        a, b = sorted(cells)
        pair = (a, b)
        if pair not in plays or instance_of(table) >= plays[pair] or not cells[a]:
            continue
        count, sets = out[pair]
        out[pair] = (count + 1, sets + cells[a])
    return out


def look(pair: Pair, tables: int, sets: Sequence[tuple[float, int]], wanted: int, rule: RaceRule,
         z: float) -> PairState:
    """One pair's state after its tables: racing on unless separated (after ``min_tables``) or at the cap.

    ``wanted`` is the tables the pair was given; a pair short of them (a table not yet recorded) races on.
    """
    hands = sum(k for _, k in sets)
    bb = bb_per_100(sum(x for x, _ in sets), hands)
    se = ratio_se(sets)
    half = z * se if se is not None else None
    separated = half is not None and tables >= max(rule.min_tables, wanted) and abs(bb) > half
    racing = tables < wanted or not (separated or tables >= rule.max_tables)
    return PairState(pair, tables, bb, se, half, racing, separated)


def next_plays(records: Sequence[MatchRecord], plays: Mapping[Pair, int],
               rule: RaceRule) -> tuple[dict[Pair, int], list[PairState]]:
    """The next round: every pair still racing gets one more table; and every pair's state now.

    A pair short of its tables (not all recorded) keeps its count (the round is not over for it).
    """
    z = rule.z(len(plays))
    states = []
    nxt = dict(plays)
    for pair, (tables, sets) in pair_sets(records, plays).items():
        state = look(pair, tables, sets, plays[pair], rule, z)
        states.append(state)
        if state.racing and tables >= plays[pair]:
            nxt[pair] = plays[pair] + 1
    return nxt, sorted(states, key=lambda s: s.pair)


def first_plays(bots: Sequence[str], rule: RaceRule) -> dict[Pair, int]:
    """Round one: every pair plays ``min_tables`` tables before its first look."""
    return {p: rule.min_tables for p in pairs_of(bots)}


def replay(records: Sequence[MatchRecord], bots: Sequence[str],
           rule: RaceRule) -> tuple[dict[Pair, int], list[PairState], bool]:
    """The race's decisions from its recorded results: the tables each pair is to play now, every pair's
    state, and whether the race is over (no pair racing). Pure: a restart makes the same decisions.
    """
    plays = first_plays(bots, rule)
    while True:
        nxt, states = next_plays(records, plays, rule)
        if not any(s.racing for s in states):
            return plays, states, True
        if nxt == plays:  # some table of this round is not recorded yet: play it
            return plays, states, False
        plays = nxt


@dataclass(frozen=True, slots=True)
class Racing:
    """Pairing strategy of one round of the race: pair ``(a, b)`` at ``plays[(a, b)]`` tables (instances
    ``a+b``, ``a+b~2``, ...: each its own deals, :func:`harness.tournament.schedule.build_schedule`).

    Attributes:
        plays: ``((a, b, tables), ...)``, names sorted; a pair not listed plays one table.
    """

    plays: tuple[tuple[str, str, int], ...] = ()
    table_size: int = 2

    def _counts(self) -> dict[Pair, int]:
        return {(a, b): n for a, b, n in self.plays}

    def tables(self, bots: Sequence[str]) -> Iterator[tuple[str, ...]]:
        """Yield each pair's tables, pair by pair in sorted order.

        Raises:
            ScheduleError: fewer than two bots, or a table size other than 2 (a race is of pairs).
        """
        if self.table_size != 2:
            raise ScheduleError(f"a racing final is heads-up (table_size 2), got table_size {self.table_size}")
        if len(bots) < 2:
            raise ScheduleError(f"a racing final needs at least 2 bots, got {len(bots)}")
        counts = self._counts()
        for pair in pairs_of(bots):
            for _ in range(counts.get(pair, 1)):
                yield pair

    def count(self, bots: int) -> int:
        """Tables of this round's plan for ``bots`` bots (pairs not listed: one each)."""
        listed = sum(n for _, _, n in self.plays)
        return listed + max(0, math.comb(bots, 2) - len(self.plays))


@dataclass(frozen=True, slots=True)
class RaceStanding:
    """A bot's row in the race's standings: the mean of its pairs' bb/100 (every opponent weighs the same,
    whatever the tables their pair played).

    Attributes:
        bot: its name.
        bb_per_100: mean over its opponents of its duplicate bb/100 against each.
        half_width: 95% half width of that mean (normal, from the pairs' standard errors); None if one is missing.
        wins / losses: pairs it is separated from, ahead / behind.
        level: pairs not (yet) separated.
        tables: duplicate tables it played.
    """

    bot: str
    bb_per_100: float
    half_width: float | None
    wins: int
    losses: int
    level: int
    tables: int


def standings(states: Sequence[PairState], bots: Sequence[str]) -> list[RaceStanding]:
    """Rows of every bot with a table played, best mean bb/100 first (then name); bots with none last."""
    by: dict[str, list[tuple[float, float | None, int, int]]] = {b: [] for b in bots}
    for s in states:
        a, b = s.pair
        if not s.tables:
            continue
        sign = 1 if s.bb_per_100 > 0 else -1
        by.setdefault(a, []).append((s.bb_per_100, s.se, sign if s.separated else 0, s.tables))
        by.setdefault(b, []).append((-s.bb_per_100, s.se, -sign if s.separated else 0, s.tables))
    rows = []
    for bot, cells in by.items():
        if not cells:
            rows.append(RaceStanding(bot, 0.0, None, 0, 0, 0, 0))
            continue
        m = len(cells)
        ses = [se for _, se, _, _ in cells]
        half = 1.959964 * math.sqrt(sum(se * se for se in ses if se is not None)) / m if None not in ses else None
        rows.append(RaceStanding(bot, sum(x for x, _, _, _ in cells) / m, half,
                                 sum(1 for c in cells if c[2] > 0), sum(1 for c in cells if c[2] < 0),
                                 sum(1 for c in cells if c[2] == 0), sum(c[3] for c in cells)))
    rows.sort(key=lambda r: (not r.tables, -r.bb_per_100, r.bot))
    return rows


def worst_case_tables(bots: int, rule: RaceRule) -> int:
    """Tables if no pair separates: every pair at the cap."""
    return math.comb(bots, 2) * rule.max_tables


def least_tables(bots: int, rule: RaceRule) -> int:
    """Tables if every pair separates at its first look."""
    return math.comb(bots, 2) * rule.min_tables


def expected_tables(gaps: Sequence[float], table_sd: float, rule: RaceRule) -> float:
    """Expected tables over pairs with true gaps ``gaps`` (bb/100) when one table's duplicate bb/100 has standard
    deviation ``table_sd``: a pair stops near the first n with ``|gap| > z * table_sd / sqrt(n)`` (a model for the
    plan, not a promise), clamped to ``min_tables..max_tables``.
    """
    z = rule.z(len(gaps))
    total = 0.0
    for gap in gaps:
        n = rule.max_tables if not gap else math.ceil((z * table_sd / abs(gap)) ** 2)
        total += min(rule.max_tables, max(rule.min_tables, n))
    return total
