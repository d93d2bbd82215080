"""Rank intervals, rank groups, LOS, instant run-off and Plackett-Luce ratings on data with known truth."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.specs import MatchResult
from harness.tournament.ratings import (
    bootstrap_ranks,
    instant_runoff,
    plackett_luce_ratings,
    rank_groups,
    seat_ranks,
    table_sets,
    tie_breaks,
    total_bankroll_ranks,
)
from harness.tournament.results import MatchRecord


def record(table: int, rotation: int, bots: list[str], hand_nets: list[list[int]], bb: int = 10) -> MatchRecord:
    n = len(bots)
    net = [sum(row[s] for row in hand_nets) for s in range(n)]
    res = MatchResult(match_id=f"t{table:03d}-r{rotation}", seed=table, hands_played=len(hand_nets), bots=bots,
                      net=net, hand_nets=hand_nets, faults=[{} for _ in bots], status=["ok"] * n)
    return MatchRecord(table=table, rotation=rotation, unit=bb, result=res)


def synthetic_field(skill: dict[str, float], hands: int = 150, seed: int = 1) -> list[MatchRecord]:
    """Heads-up duplicate round robin: each deal has a luck term that duplicate cancels, plus noise.

    A bot's expected chips per hand against another is (skill difference); the
    truth is known: equal skills are equally good.
    """
    rng = random.Random(seed)
    records = []
    for table, (a, b) in enumerate(itertools.combinations(sorted(skill), 2)):
        luck = [rng.gauss(0, 60) for _ in range(hands)]
        for rotation, seats in enumerate(([a, b], [b, a])):
            rows = []
            for h in range(hands):
                # seat 0's edge: its skill minus the other's, plus the deal's luck for seat 0's cards
                edge = skill[seats[0]] - skill[seats[1]]
                x = round(edge + luck[h] + rng.gauss(0, 15))  # the same cards in seat 0 both times
                rows.append([x, -x])
            records.append(record(table, rotation, seats, rows))
    return records


FIELD = {"strong": 8.0, "twin_a": 0.0, "twin_b": 0.0, "twin_c": 0.0, "weak": -8.0}


def test_identical_bots_share_a_group_and_the_better_bot_is_alone_on_top() -> None:
    records = synthetic_field(FIELD)
    boot = bootstrap_ranks(records, resamples=400, seed=3)
    order = sorted(boot.bots, key=lambda b: -boot.bb_per_100[b])
    assert order[0] == "strong" and order[-1] == "weak"
    assert (boot.rank_low["strong"], boot.rank_high["strong"]) == (1, 1)
    groups = rank_groups(order, boot.rank_low, boot.rank_high)
    assert groups["strong"] == "1"
    assert groups["twin_a"] == groups["twin_b"] == groups["twin_c"] == "2-4"
    assert groups["weak"] == "5"
    # LOS: the better bot is surely better; twins are a coin toss-ish; LOS(a,b) + LOS(b,a) = 1
    assert boot.los[("strong", "twin_a")] == 1.0 and boot.los[("weak", "twin_b")] == 0.0
    for a, b in itertools.permutations(["twin_a", "twin_b", "twin_c"], 2):
        assert 0.02 < boot.los[(a, b)] < 0.98
        assert boot.los[(a, b)] + boot.los[(b, a)] == pytest.approx(1.0)


def test_the_bootstrap_is_seeded_and_byte_stable() -> None:
    records = synthetic_field(FIELD, hands=60)
    first = bootstrap_ranks(records, resamples=300, seed=11)
    again = bootstrap_ranks(list(reversed(records)), resamples=300, seed=11)  # file order does not matter
    assert repr(first) == repr(again)
    other = bootstrap_ranks(records, resamples=300, seed=12)
    assert other.los != first.los  # the seed is really used


def test_bb_per_100_of_the_bootstrap_is_that_of_the_leaderboard() -> None:
    from harness.tournament.stats import standings

    records = synthetic_field(FIELD, hands=40)
    boot = bootstrap_ranks(records, resamples=10)
    for row in standings(records):
        assert boot.bb_per_100[row.bot] == pytest.approx(row.estimate.bb_per_100)


def test_rank_groups_chain_overlaps_and_keep_separate_runs_apart() -> None:
    order = ["a", "b", "c", "d", "e", "f"]
    low = {"a": 1, "b": 1, "c": 2, "d": 4, "e": 5, "f": 6}
    high = {"a": 2, "b": 3, "c": 3, "d": 4, "e": 6, "f": 6}
    assert rank_groups(order, low, high) == {"a": "1-3", "b": "1-3", "c": "1-3", "d": "4", "e": "5-6", "f": "5-6"}
    # a bot without an interval (too few duplicate sets) may be at any rank: one group for all
    assert rank_groups(["a", "x", "b"], {"a": 1, "b": 1}, {"a": 3, "b": 3}) == {"a": "1-3", "x": "1-3", "b": "1-3"}
    assert rank_groups(["a", "b", "x"], {"a": 1, "b": 2}, {"a": 1, "b": 2}) == {"a": "1-3", "b": "1-3", "x": "1-3"}
    # overlap is between any two bots, not only with the run's last one: b and d overlap, so b..d are one group
    assert rank_groups(list("abcd"), dict(a=1, b=2, c=3, d=2), dict(a=1, b=3, c=3, d=4)) == \
        {"a": "1", "b": "2-4", "c": "2-4", "d": "2-4"}


def constant_pair(table: int, a: str, b: str, chips_per_hand: int, hands: int = 100) -> list[MatchRecord]:
    """a wins ``chips_per_hand`` every hand from both seats: a's bb/100 is 10 * chips_per_hand (bb = 10)."""
    x = chips_per_hand
    return [record(table, 0, [a, b], [[x, -x]] * hands), record(table, 1, [b, a], [[-x, x]] * hands)]


def test_instant_runoff_reproduces_a_hand_worked_example() -> None:
    # Head-to-head bb/100 (row against column):
    #            E      F      G      H     total
    #   E        .   +400    -30    -30     +340
    #   F     -400      .    -50    -40     -490
    #   G      +30    +50      .    +10      +90
    #   H      +30    +40    -10      .      +60
    # Total bankroll: E 1, G 2, H 3, F 4. Instant run-off: F out (-490); among E, G, H:
    # E -60, G +40, H +20 -> E out; G +10, H -10 -> H out: G 1, H 2, E 3, F 4.
    records = (constant_pair(0, "E", "F", 40) + constant_pair(1, "G", "E", 3) + constant_pair(2, "H", "E", 3)
               + constant_pair(3, "G", "F", 5) + constant_pair(4, "H", "F", 4) + constant_pair(5, "G", "H", 1))
    assert total_bankroll_ranks(records) == {"E": 1, "G": 2, "H": 3, "F": 4}
    runoff = instant_runoff(records)
    assert runoff.rank == {"G": 1, "H": 2, "E": 3, "F": 4}
    assert [r.dropped for r in runoff.rounds] == [("F",), ("E",), ("H",), ("G",)]
    first, second, third, _ = runoff.rounds
    assert first.bankroll == pytest.approx({"E": 340, "F": -490, "G": 90, "H": 60})
    assert second.bankroll == pytest.approx({"E": -60, "G": 40, "H": 20})
    assert third.bankroll == pytest.approx({"G": 10, "H": -10})


def test_instant_runoff_drops_tied_bots_together_and_refuses_multiway_tables() -> None:
    records = constant_pair(0, "A", "B", 0) + constant_pair(1, "A", "C", 2) + constant_pair(2, "B", "C", 2)
    runoff = instant_runoff(records)
    assert runoff.rounds[0].dropped == ("C",)
    assert runoff.rounds[1].dropped == ("A", "B") and runoff.rank == {"A": 1, "B": 1, "C": 3}
    three = record(9, 0, ["A", "B", "C"], [[10, -5, -5]])
    with pytest.raises(ValueError, match="heads-up"):
        instant_runoff([three])


# Weng and Lin (2011), Algorithm 4 (Plackett-Luce), written out independently of openskill.
MU, SIGMA, BETA, KAPPA = 25.0, 25.0 / 3, 25.0 / 6, 1e-4


def weng_lin_update(ratings: dict[str, tuple[float, float]], order: list[str], ranks: list[int]) -> None:
    c = math.sqrt(sum(ratings[p][1] ** 2 + BETA**2 for p in order))
    e = {p: math.exp(ratings[p][0] / c) for p in order}
    rank = dict(zip(order, ranks, strict=True))
    big_c = {q: sum(e[s] for s in order if rank[s] >= rank[q]) for q in order}
    ties = {q: sum(1 for s in order if rank[s] == rank[q]) for q in order}
    new = {}
    for i in order:
        mu, sigma = ratings[i]
        omega = delta = 0.0
        for q in order:
            if rank[q] <= rank[i]:
                share = e[i] / big_c[q]
                omega += ((1.0 if q == i else 0.0) - share) / ties[q]
                delta += share * (1 - share) / ties[q]
        gamma = sigma / c
        new[i] = (mu + sigma**2 / c * omega, math.sqrt(sigma**2 * max(1 - gamma * sigma**2 / c**2 * delta, KAPPA)))
    ratings.update(new)


def test_plackett_luce_moves_the_right_way_on_a_hand_worked_three_table_example() -> None:
    # Three 3-seat tables of four bots, seats ordered by chips won:
    #   table 0: A +30 > B 0 > C -30;  table 1: A +20 > D -5 > B -15;  table 2: C +40 > A -20 = D -20 (tie)
    tables = [(["A", "B", "C"], [30, 0, -30]), (["A", "B", "D"], [20, -15, -5]), (["C", "A", "D"], [40, -20, -20])]
    records = [record(t, 0, bots, [nets]) for t, (bots, nets) in enumerate(tables)]
    assert seat_ranks([40, -20, -20]) == [1, 2, 2]
    expected = {name: (MU, SIGMA) for name in "ABCD"}
    for bots, nets in tables[:2]:
        weng_lin_update(expected, bots, seat_ranks(nets))
    # the tie: the update of each order of A and D (C 1, A 2, D 3 and C 1, D 2, A 3), mu and sigma^2 averaged
    orders = []
    for ranks in ([1, 2, 3], [1, 3, 2]):
        one = dict(expected)
        weng_lin_update(one, ["C", "A", "D"], ranks)
        orders.append(one)
    for name in "CAD":
        expected[name] = ((orders[0][name][0] + orders[1][name][0]) / 2,
                          math.sqrt((orders[0][name][1] ** 2 + orders[1][name][1] ** 2) / 2))
    rated = plackett_luce_ratings(records)
    for name in "ABCD":
        assert rated[name].mu == pytest.approx(expected[name][0], abs=1e-6), name
        assert rated[name].sigma == pytest.approx(expected[name][1], abs=1e-6), name
    # Right way: A won two tables of three and is rated highest; B lost both its tables (a second and a third);
    # every sigma shrank (more games, less uncertainty).
    assert rated["A"].mu > max(rated[n].mu for n in "BCD") and rated["A"].mu > MU
    assert rated["B"].mu < MU and rated["B"].mu == min(r.mu for r in rated.values())
    assert all(r.sigma < SIGMA for r in rated.values())
    assert (rated["A"].games, rated["B"].games, rated["C"].games, rated["D"].games) == (3, 2, 2, 2)
    assert plackett_luce_ratings(records, ["A", "Z"])["Z"].games == 0


def one_table(nets: list[int]) -> list[float]:
    """mu of each seat after one match from equal priors."""
    bots = [f"s{i}" for i in range(len(nets))]
    rated = plackett_luce_ratings([record(0, 0, bots, [nets])])
    return [rated[b].mu for b in bots]


def test_tied_winners_are_never_rated_below_a_worse_finisher() -> None:
    # openskill 6.2's own tie handling gave 26.000, 26.000, 26.556 (third above both winners), 24.889, 21.556
    # and, for 30, 30, -20, -40, 25.932 to the first three.
    five = one_table([40, 40, 10, -30, -60])
    assert five[0] == five[1] > five[2] > five[3] > five[4]
    # the mean over the two orders of the winners: positions 1 and 2 of a strict five-seat finish
    strict = one_table([50, 40, 10, -30, -70])
    assert five[0] == pytest.approx((strict[0] + strict[1]) / 2, abs=1e-9)
    assert five[2:] == pytest.approx(strict[2:], abs=1e-9)
    assert [round(m, 3) for m in five] == [27.250, 27.250, 25.722, 24.056, 20.722]
    four = one_table([30, 30, -20, -40])
    assert four[0] == four[1] > four[2] > four[3]
    assert [round(m, 3) for m in four] == [27.174, 27.174, 24.689, 20.963]
    assert one_table([0, 0, 0]) == pytest.approx([MU] * 3)  # a full tie teaches nothing about the order


def test_tie_breaks_keep_the_places_of_the_ties() -> None:
    assert tie_breaks([1, 1, 3]) == [[1, 2, 3], [2, 1, 3]]
    assert tie_breaks([2, 1, 3]) == [[2, 1, 3]]
    assert len(tie_breaks([1] * 6)) == 720 and len(tie_breaks([1, 1, 3, 3, 3, 6])) == 12


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=2, max_size=6))
def test_from_equal_priors_one_table_respects_the_finish(nets: list[int]) -> None:
    nets = [*nets[:-1], -sum(nets[:-1])]  # chips are won from the table: they sum to zero (ties are common)
    mu = one_table(nets)
    for i, j in itertools.permutations(range(len(nets)), 2):
        if nets[i] > nets[j]:
            assert mu[i] >= mu[j], (nets, mu)
        elif nets[i] == nets[j]:
            assert mu[i] == mu[j], (nets, mu)


def test_ratings_do_not_depend_on_the_order_matches_finished() -> None:
    records = [record(t, r, bots, [[9, -4, -5]]) for t, bots in enumerate([["a", "b", "c"], ["b", "c", "d"]])
               for r in range(2)]
    assert plackett_luce_ratings(records) == plackett_luce_ratings(list(reversed(records)))


def test_table_sets_sum_each_deal_over_the_rotations() -> None:
    records = [record(0, 0, ["x", "y"], [[20, -20], [-10, 10]]), record(0, 1, ["y", "x"], [[25, -25], [10, -10]])]
    (t,) = table_sets(records)
    assert t.bots == ("x", "y") and t.nets == ((-5, 5), (-20, 20)) and t.hands == ((2, 2), (2, 2))
