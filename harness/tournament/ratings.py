"""Rankings with their uncertainty: pure functions over match records, no I/O.

Four statistics beside bb/100 (:mod:`harness.tournament.stats`), each from a
published method:

- **Rank interval** (:func:`bootstrap_ranks`): the 2.5%-97.5% range of a
  bot's rank over bootstrap resamples of the duplicate sets, after Hall and
  Miller, "Using the bootstrap to quantify the authority of an empirical
  ranking", Annals of Statistics 37(6B), 2009. The resampling is stratified
  by table (Efron and Tibshirani, *An Introduction to the Bootstrap*, 1993,
  section 8.4): each table keeps its number of duplicate sets, drawn with
  replacement, so every resample has the schedule of the real contest.
  Seeded: the same records and seed give the same numbers, bit for bit.
- **Rank groups** (:func:`rank_groups`): two bots whose rank intervals
  overlap share one group with every bot between them, labelled by the
  positions it spans ("1-3"); a bot without an interval (too few duplicate
  sets: :data:`MIN_RESAMPLED_SETS`) may be at any rank and joins everyone.
- **Likelihood of superiority** (LOS, the name used by cutechess-cli and
  BayesElo; the ACPC results give the same "probability that the row player
  is better" table): the share of the same resamples in which the row bot's
  bb/100 exceeds the column bot's (ties count half).
- **Instant run-off** (:func:`instant_runoff`), heads-up only: the ACPC's
  winner determination that repeatedly drops the bot with the lowest total
  bankroll against the bots still in (Annual Computer Poker Competition,
  rules, "Winner Determination: Instant Run-off",
  http://www.computerpokercompetition.org/index.php/competitions/rules).
  Bots tied for lowest drop together and share their positions.
- **Plackett-Luce rating** (:func:`plackett_luce_ratings`), for 3-6 seat
  tables: Weng and Lin, "A Bayesian Approximation Method for Online Ranking",
  JMLR 12, 2011 (Algorithm 4), as implemented by the ``openskill`` library.
  Each match is one game whose seats are ordered by chips won (equal nets
  tie; a tie is rated as the mean over every order of the tied seats,
  :func:`rate_table`, not by the library's own tie rule). It is a skill
  rating (mu, sigma: a Gaussian belief about skill, in rating points), not
  a bb/100.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from harness.tournament.results import MatchRecord
from harness.tournament.stats import MIN_SETS, bb_per_100, by_table, hand_of_deal, seated, set_deal_numbers

if TYPE_CHECKING:  # numpy is imported where the bootstrap runs: `harness run`'s usage errors stay fast
    import numpy as np

#: Resamples of :func:`bootstrap_ranks` by default (Hall and Miller use 1000-2000).
DEFAULT_RESAMPLES = 1000
#: Seed of the bootstrap's generator by default (numpy PCG64).
DEFAULT_SEED = 0
#: Duplicate sets a bot needs at tables the bootstrap can vary (of 2 sets or more) for its rank interval and LOS.
#: When all n sets of two equal bots favour one (chance 2^(1-n): 50% at 2 sets), every resample has it ahead:
#: LOS 1.00 and rank intervals apart. From 6 sets that chance (3.1%) is below the 5% of the 95% intervals.
MIN_RESAMPLED_SETS = 6


@dataclass(frozen=True, slots=True)
class TableSets:
    """One table's duplicate sets: a deal of the table played in every rotation (see ``stats.set_deals``).

    Attributes:
        table: the table index of the schedule.
        bots: the table's bots (sorted names).
        unit: chips per big blind (the "bb" of bb/100: :attr:`harness.engine.GameConfig.unit`).
        nets: per set (deal number, ascending), each bot's net chips summed over the rotations.
        hands: per set, each bot's hands in it (its number of rotations).
    """

    table: str
    bots: tuple[str, ...]
    unit: int
    nets: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]


def table_sets(records: Iterable[MatchRecord]) -> list[TableSets]:
    """Group match records into each table's duplicate sets (tables in ascending order).

    Only the deals that are duplicate sets count (:func:`harness.tournament.stats.set_deals`):
    the same sets as the leaderboard's bb/100.

    Raises:
        ValueError: records of one table with different bots or big blinds.
    """
    tables = by_table(records)
    out = []
    for table in sorted(tables):
        recs = tables[table]
        bots = tuple(sorted(recs[0].result.bots))
        if any(tuple(sorted(r.result.bots)) != bots or r.unit != recs[0].unit for r in recs):
            raise ValueError(f"table {table}: its matches have different bots or big blinds")
        column = {name: i for i, name in enumerate(bots)}
        deals = set_deal_numbers(recs)
        nets = [[0] * len(bots) for _ in deals]
        hands = [[0] * len(bots) for _ in deals]
        for rec in recs:
            cols = [column[name] for name in rec.result.bots]
            dealt = seated(rec)
            where = hand_of_deal(rec)  # each rotation's hand of the deal (its secret order)
            for j, d in enumerate(deals):
                h = where[d]
                row = rec.result.hand_nets[h]
                for seat, col in enumerate(cols):
                    if dealt[h][seat]:  # a bot that left a freezeout (one rotation) plays no more hands
                        nets[j][col] += row[seat]
                        hands[j][col] += 1
        out.append(TableSets(table, bots, recs[0].unit, tuple(map(tuple, nets)), tuple(map(tuple, hands))))
    return out


@dataclass(frozen=True, slots=True)
class RankBootstrap:
    """What :func:`bootstrap_ranks` found.

    Attributes:
        bots: the bots ranked (those with at least one duplicate set), as given.
        resamples: number of bootstrap resamples.
        seed: the generator's seed.
        bb_per_100: each bot's bb/100 on the real data.
        rank_low, rank_high: the 2.5% and 97.5% quantiles of each bot's rank
            (1 = best; a bot's rank is 1 + the number of bots strictly ahead);
            empty when a bot is in :attr:`too_few` (its rank, and so everyone's, is unknown).
        los: ``{(row, column): P}``, the likelihood that row's bb/100 exceeds column's,
            for pairs of bots not in :attr:`too_few`.
        too_few: bots with fewer than :data:`MIN_RESAMPLED_SETS` duplicate sets the
            bootstrap can vary (at tables of 2 sets or more), in the order given.
    """

    bots: tuple[str, ...]
    resamples: int
    seed: int
    bb_per_100: Mapping[str, float]
    rank_low: Mapping[str, int]
    rank_high: Mapping[str, int]
    los: Mapping[tuple[str, str], float]
    too_few: tuple[str, ...] = ()


def _quantile(sorted_ranks: np.ndarray, p: float) -> int:
    """Inverted-CDF quantile (Hyndman and Fan type 1) of sorted integers: the smallest value with CDF >= p."""
    index = max(0, math.ceil(p * len(sorted_ranks)) - 1)
    return int(sorted_ranks[index])


def bootstrap_ranks(records: Sequence[MatchRecord], bots: Sequence[str] | None = None, *,
                    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> RankBootstrap:
    """Rank intervals and likelihoods of superiority by a stratified bootstrap of the duplicate sets.

    Each resample draws, for every table, as many of its duplicate sets as
    it has, with replacement (numpy's PCG64 seeded with ``seed``; integer
    chip sums, so the result does not depend on the CPU's floating point
    order), and recomputes every bot's bb/100 over the tables it sat at.

    Args:
        records: match records of one tournament (only complete duplicate
            sets should be given: see the leaderboard).
        bots: the bots to rank (default: every bot in the records); bots
            without a duplicate set are left out of the result.
        resamples: bootstrap resamples (>= 1).
        seed: the generator's seed.

    Raises:
        ValueError: ``resamples`` < 1, or inconsistent records (see :func:`table_sets`).
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    import numpy as np

    tables = table_sets(records)
    seen = {name for t in tables for name in t.bots}
    names = [b for b in (bots if bots is not None else sorted(seen)) if b in seen]
    index = {name: i for i, name in enumerate(names)}
    varying = dict.fromkeys(names, 0)  # sets each bot has at tables the bootstrap can vary
    for t in tables:
        if len(t.nets) >= MIN_SETS:
            for col, name in enumerate(t.bots):
                if name in varying:
                    varying[name] += sum(1 for row in t.hands if row[col])  # a bot that left has no more sets
    too_few = tuple(name for name in names if varying[name] < MIN_RESAMPLED_SETS)
    rng = np.random.Generator(np.random.PCG64(seed))
    # Per bot: chips summed over resampled sets, by big blind (tables of one contest share it).
    chips: dict[int, np.ndarray] = {}
    hands = np.zeros((resamples, len(names)), dtype=np.int64)
    real_chips: dict[int, np.ndarray] = {}
    real_hands = np.zeros(len(names), dtype=np.int64)
    for t in tables:
        n = len(t.nets)
        if n == 0:
            continue
        cols = [index.get(name) for name in t.bots]
        keep = [i for i, c in enumerate(cols) if c is not None]
        if not keep:
            continue
        target = [c for c in cols if c is not None]
        nets = np.asarray(t.nets, dtype=np.int64)[:, keep]
        hand_counts = np.asarray(t.hands, dtype=np.int64)[:, keep]
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(np.int64)
        bb_chips = chips.setdefault(t.unit, np.zeros((resamples, len(names)), dtype=np.int64))
        bb_chips[:, target] += counts @ nets
        hands[:, target] += counts @ hand_counts
        real = real_chips.setdefault(t.unit, np.zeros(len(names), dtype=np.int64))
        real[target] += nets.sum(axis=0)
        real_hands[target] += hand_counts.sum(axis=0)
    big_blinds = sorted(chips)
    bb_won = sum((chips[bb] / bb for bb in big_blinds), np.zeros((resamples, len(names))))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(hands > 0, bb_per_100(bb_won, np.maximum(hands, 1)), -np.inf)
    real_bb = sum((real_chips[bb] / bb for bb in big_blinds), np.zeros(len(names)))
    bb100 = {name: float(bb_per_100(real_bb[i], int(real_hands[i]))) for name, i in index.items()}
    # rank = 1 + bots strictly ahead, per resample
    ahead = (values[:, None, :] > values[:, :, None]).sum(axis=2)
    ranks = np.sort(1 + ahead, axis=0)
    low: dict[str, int] = {}
    high: dict[str, int] = {}
    if not too_few:
        low = {name: _quantile(ranks[:, i], 0.025) for name, i in index.items()}
        high = {name: _quantile(ranks[:, i], 0.975) for name, i in index.items()}
    los: dict[tuple[str, str], float] = {}
    for a, i in index.items():
        for b, j in index.items():
            if i != j and a not in too_few and b not in too_few:
                wins = int((values[:, i] > values[:, j]).sum())
                ties = int((values[:, i] == values[:, j]).sum())
                los[(a, b)] = (wins + ties / 2) / resamples
    return RankBootstrap(tuple(names), resamples, seed, bb100, low, high, los, too_few)


def rank_groups(order: Sequence[str], low: Mapping[str, int], high: Mapping[str, int]) -> dict[str, str]:
    """Label runs of bots whose rank intervals overlap, by the positions they span.

    Args:
        order: bots in leaderboard order (position 1 first).
        low, high: each bot's rank interval (:class:`RankBootstrap`); a bot
            missing from them has an unknown rank, which may be any of
            1 .. len(order): it overlaps every bot (with one, all share one group).

    Returns:
        ``{bot: "1-3"}`` (or ``"4"`` for a bot alone): two bots whose intervals
        overlap are in one group with every bot between them, directly or
        through a chain of such pairs.
    """
    n = len(order)
    spans = [(low[b], high[b]) if b in low and b in high else (1, n) for b in order]
    # reach[i]: the last position whose interval overlaps position i's
    reach = [max(j for j in range(i, n) if spans[j][0] <= spans[i][1] and spans[i][0] <= spans[j][1])
             for i in range(n)]
    labels: dict[str, str] = {}
    start = 0
    while start < n:
        end, pos = reach[start], start
        while pos <= end:
            end = max(end, reach[pos])
            pos += 1
        label = f"{start + 1}" if end == start else f"{start + 1}-{end + 1}"
        for name in order[start:end + 1]:
            labels[name] = label
        start = end + 1
    return labels


@dataclass(frozen=True, slots=True)
class RunoffRound:
    """One round of :func:`instant_runoff`.

    Attributes:
        bankroll: each remaining bot's total bankroll against the others still
            in, in bb/100 (the sum of its head-to-head bb/100 against them).
        dropped: the bot(s) with the lowest bankroll, ranked below the rest.
    """

    bankroll: Mapping[str, float]
    dropped: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Runoff:
    """The instant run-off ranking and how it was reached.

    Attributes:
        rank: ``{bot: position}``; bots dropped together share the best position of their group.
        rounds: the rounds, first to last.
    """

    rank: Mapping[str, int]
    rounds: tuple[RunoffRound, ...]


def head_to_head(records: Iterable[MatchRecord]) -> dict[tuple[str, str], Fraction]:
    """Heads-up bb per hand of the row bot against the column bot, exact (a Fraction), over duplicate sets.

    Only the hands of duplicate sets count (:func:`harness.tournament.stats.set_deals`), as
    for bb/100: a freezeout deal played in one rotation is no set.

    Raises:
        ValueError: a record that is not heads-up.
    """
    chips: dict[tuple[str, str], Fraction] = {}
    hands: dict[tuple[str, str], int] = {}
    for recs in by_table(records).values():
        for rec in recs:
            if len(rec.result.bots) != 2:
                raise ValueError(f"match {rec.result.match_id}: instant run-off is for heads-up matches, "
                                 f"it has {len(rec.result.bots)}")
        deals = set_deal_numbers(recs)
        for rec in recs:
            res = rec.result
            where = hand_of_deal(rec)
            played = [where[d] for d in deals]
            for seat, name in enumerate(res.bots):
                key = (name, res.bots[1 - seat])
                won = sum(res.hand_nets[h][seat] for h in played)
                chips[key] = chips.get(key, Fraction(0)) + Fraction(won, rec.unit)
                hands[key] = hands.get(key, 0) + len(deals)
    return {key: chips[key] / hands[key] for key in chips if hands[key]}


def instant_runoff(records: Sequence[MatchRecord], bots: Sequence[str] | None = None) -> Runoff:
    """The ACPC instant run-off ranking of a heads-up field (see the module docstring).

    Each round, every remaining bot's total bankroll is the sum over the
    other remaining bots of its bb/100 against them (proportional to its
    chips won against them when every pair played the same number of hands,
    as in the ACPC); the bots with the lowest total are ranked below all
    the others still in and dropped. Exact arithmetic, so ties are real ties.

    Args:
        records: heads-up match records.
        bots: the field (default: every bot in the records).

    Raises:
        ValueError: a record that is not heads-up.
    """
    pair = head_to_head(records)
    remaining = list(bots) if bots is not None else sorted({b for key in pair for b in key})
    rank: dict[str, int] = {}
    rounds = []
    while remaining:
        total = {a: sum((pair.get((a, b), Fraction(0)) for b in remaining if b != a), Fraction(0))
                 for a in remaining}
        lowest = min(total.values())
        dropped = tuple(a for a in remaining if total[a] == lowest)
        remaining = [a for a in remaining if a not in dropped]
        for a in dropped:
            rank[a] = len(remaining) + 1
        rounds.append(RunoffRound({a: float(100 * v) for a, v in total.items()}, dropped))
    return Runoff(rank, tuple(rounds))


def total_bankroll_ranks(records: Sequence[MatchRecord], bots: Sequence[str] | None = None) -> dict[str, int]:
    """Heads-up total-bankroll positions: by the sum of head-to-head bb/100 against the whole field.

    The first round of :func:`instant_runoff`; bots with equal totals share a position.
    """
    runoff = instant_runoff(records, bots)
    if not runoff.rounds:
        return {}
    total = runoff.rounds[0].bankroll
    return {a: 1 + sum(1 for b in total if total[b] > total[a]) for a in total}


@dataclass(frozen=True, slots=True)
class Rating:
    """A Plackett-Luce rating: a Gaussian belief about a bot's skill, in rating points (not bb/100).

    Attributes:
        mu: the mean (25 before any game).
        sigma: its standard deviation (25/3 before any game); ``mu +- 2 sigma`` covers about 95%.
        games: matches rated.
    """

    mu: float
    sigma: float
    games: int

    @property
    def low(self) -> float:
        """``mu - 1.96 sigma``."""
        return self.mu - 1.96 * self.sigma

    @property
    def high(self) -> float:
        """``mu + 1.96 sigma``."""
        return self.mu + 1.96 * self.sigma


def seat_ranks(nets: Sequence[Any]) -> list[int]:
    """Finishing positions of a table's seats by chips won: 1 + seats with strictly more (ties share).

    Any comparable keys do (the tuples of :func:`finish_keys`).
    """
    return [1 + sum(1 for other in nets if other > net) for net in nets]


def finish_keys(rec: MatchRecord) -> list[tuple[int, float, int]]:
    """Per seat, what orders a match's finish (higher finishes ahead): ``(net, bust hand, stack before it)``.

    Stacks reset every hand: chips won alone (the other two are constant).
    In a freezeout (``freezeout_stack`` set) every busted bot ends on the
    same net (minus the starting stack), yet the later a bot busted the
    further it went: busted bots are ordered by the hand they busted in,
    and two busted in the same hand by the larger stack they had before
    it (the usual tournament rule); equal stacks tie. A bot still in has
    bust hand infinity.
    """
    res = rec.result
    n = len(res.bots)
    if rec.freezeout_stack is None:
        return [(net, math.inf, 0) for net in res.net]
    stacks = [rec.freezeout_stack] * n
    bust: list[float] = [math.inf] * n
    before = [0] * n
    for h, row in enumerate(res.hand_nets):
        for seat in range(n):
            if stacks[seat] > 0 and stacks[seat] + row[seat] <= 0:
                bust[seat], before[seat] = h, stacks[seat]
        stacks = [c + x for c, x in zip(stacks, row, strict=True)]
    return [(res.net[seat], bust[seat], before[seat]) for seat in range(n)]


def tie_breaks(ranks: Sequence[int]) -> list[list[int]]:
    """Every strict order of a table's finish that keeps its ties' places: one rank list per order.

    Seats of equal rank take the positions they share (ranks 1, 1, 3 give
    positions 1 and 2 to the tied pair) in every order among themselves;
    seats without a tie keep their rank. ``[1, 1, 3]`` gives
    ``[[1, 2, 3], [2, 1, 3]]``; no tie gives the ranks alone. At most 6! = 720
    orders for a table of six.
    """
    groups: dict[int, list[int]] = {}
    for seat, rank in enumerate(ranks):
        groups.setdefault(rank, []).append(seat)
    orders = []
    for choice in itertools.product(*(itertools.permutations(seats) for _, seats in sorted(groups.items()))):
        strict = [0] * len(ranks)
        position = 1
        for seats in choice:
            for seat in seats:
                strict[seat] = position
                position += 1
        orders.append(strict)
    return orders


def rate_table(model: Any, priors: Sequence[tuple[float, float]], nets: Sequence[Any]) -> list[tuple[float, float]]:
    """One match rated by openskill's ``model`` with its ties broken every way: ``(mu, sigma)`` per seat.

    openskill's own tie handling for Plackett-Luce (Weng and Lin's A_q
    divisor) can rate a tied winner below a worse finisher (nets 40, 40, 10,
    -30, -60 give the third 26.556 against 26.000 for the winners). Here the
    library only ever rates strict orders: the match is rated once per order
    of its tied seats (:func:`tie_breaks`, each counted once) and each seat
    gets the mean of its mu and of its sigma squared over those updates. From
    equal priors a seat that finished strictly ahead of another then never
    has the lower mu, and tied seats get the same mu and sigma.

    Args:
        model: an openskill model (``PlackettLuce``).
        priors: ``(mu, sigma)`` per seat before the match.
        nets: chips won per seat, or any keys of the finish (:func:`finish_keys`); equal keys tie.
    """
    mus: list[list[float]] = [[] for _ in priors]
    variances: list[list[float]] = [[] for _ in priors]
    for strict in tie_breaks(seat_ranks(nets)):
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in priors]
        for seat, (rated,) in enumerate(model.rate(teams, ranks=strict)):
            mus[seat].append(float(rated.mu))
            variances[seat].append(float(rated.sigma) ** 2)
    # fsum: exactly rounded, so seats with the same updates in another order get the same numbers
    return [(math.fsum(m) / len(m), math.sqrt(math.fsum(v) / len(v))) for m, v in zip(mus, variances, strict=True)]


def plackett_luce_history(
        records: Sequence[MatchRecord]) -> Iterator[tuple[MatchRecord, dict[str, tuple[float, float]]]]:
    """Every bot's Plackett-Luce ``(mu, sigma)`` after each match, in schedule order (table, rotation).

    The updates of :func:`plackett_luce_ratings` (which returns the last of them), one match at a
    time: ``(record, {bot: (mu, sigma)})`` for each match of at least one hand; the dict holds
    every bot rated so far and is a new one at each step.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    prior = model.rating()
    current: dict[str, tuple[float, float]] = {}
    for rec in sorted(records, key=lambda r: (r.table, r.rotation, r.match_id)):
        res = rec.result
        if res.hands_played == 0:  # no hand, no finish to learn from
            continue
        priors = [current.get(name, (float(prior.mu), float(prior.sigma))) for name in res.bots]
        current = dict(current)
        for name, rating in zip(res.bots, rate_table(model, priors, finish_keys(rec)), strict=True):
            current[name] = rating
        yield rec, current


def plackett_luce_ratings(records: Sequence[MatchRecord], bots: Sequence[str] | None = None) -> dict[str, Rating]:
    """Rate every bot from its matches with openskill's Plackett-Luce model, ties by :func:`rate_table`.

    Matches are rated in schedule order (table, then rotation), never in the
    order they finished, so a run and a recomputation agree; a match of no
    hand is not rated. Each match is one game of single-bot teams ranked by
    :func:`seat_ranks` of :func:`finish_keys` (chips won; in a freezeout,
    busted bots by bust order); a tie is rated as every order of the tied
    seats, averaged (:func:`rate_table`). The model's dynamic factor tau is
    0: a bot does not change during a contest, so its uncertainty only
    shrinks (Weng and Lin's algorithm as published).

    Args:
        records: match records (any table size; meant for 3-6 seats).
        bots: the bots to return (default: every bot in the records); a bot
            without a match keeps the prior (mu 25, sigma 25/3, 0 games).
    """
    from openskill.models import PlackettLuce

    prior = PlackettLuce(tau=0.0).rating()
    current: dict[str, tuple[float, float]] = {}
    for _, after in plackett_luce_history(records):
        current = after
    games: dict[str, int] = {}
    for rec in records:
        if rec.result.hands_played:
            for name in rec.result.bots:
                games[name] = games.get(name, 0) + 1
    names = list(bots) if bots is not None else sorted(current)
    out = {}
    for name in names:
        mu, sigma = current.get(name, (float(prior.mu), float(prior.sigma)))
        out[name] = Rating(mu, sigma, games.get(name, 0))
    return out


@dataclass(frozen=True, slots=True)
class Rankings:
    """Every statistic of this module for one leaderboard, in its order.

    Attributes:
        order: the bots in leaderboard order (position 1 first).
        bootstrap: rank intervals and LOS (:func:`bootstrap_ranks`).
        groups: rank group label per bot (:func:`rank_groups`).
        runoff: the instant run-off (heads-up fields only, else None).
        bankroll: total-bankroll positions (heads-up fields only, else None).
        ratings: Plackett-Luce ratings (fields with 3-6 seat tables, else None).
    """

    order: tuple[str, ...]
    bootstrap: RankBootstrap
    groups: Mapping[str, str]
    runoff: Runoff | None
    bankroll: Mapping[str, int] | None
    ratings: Mapping[str, Rating] | None

    def los_next(self, bot: str) -> float | None:
        """LOS of ``bot`` over the bot just below it in :attr:`order` (None for the last one)."""
        pos = self.order.index(bot)
        if pos + 1 >= len(self.order):
            return None
        return self.bootstrap.los.get((bot, self.order[pos + 1]))


def rankings(records: Sequence[MatchRecord], order: Sequence[str], *, resamples: int = DEFAULT_RESAMPLES,
             seed: int = DEFAULT_SEED) -> Rankings:
    """Compute every statistic for the bots of ``order`` (the leaderboard's ranked bots, best first).

    Heads-up records (all tables of 2) get the instant run-off and total
    bankroll; records with larger tables get Plackett-Luce ratings.
    """
    order = tuple(order)
    boot = bootstrap_ranks(records, order, resamples=resamples, seed=seed)
    groups = rank_groups(order, boot.rank_low, boot.rank_high)
    heads_up = bool(records) and all(len(r.result.bots) == 2 for r in records)
    runoff = instant_runoff(records, [b for b in order if b in boot.bb_per_100]) if heads_up else None
    bankroll = total_bankroll_ranks(records, [b for b in order if b in boot.bb_per_100]) if heads_up else None
    ratings = plackett_luce_ratings(records, order) if records and not heads_up else None
    return Rankings(order, boot, groups, runoff, bankroll, ratings)
