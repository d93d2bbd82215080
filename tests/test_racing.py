"""The racing final's stopping rule (harness.tournament.racing): a pair with a clear gap stops early, equal bots
play to the cap, the decisions are a function of the records alone, and the union bound holds."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.specs import MatchResult
from harness.tournament.racing import (
    RaceRule,
    Racing,
    expected_tables,
    first_plays,
    next_plays,
    pairs_of,
    replay,
    standings,
    worst_case_tables,
)
from harness.tournament.results import MatchRecord
from harness.tournament.schedule import ScheduleError, build_schedule, table_name

BB = 10


def _table(pair: tuple[str, str], instance: int, edge: float, hands: int, rng: random.Random) -> list[MatchRecord]:
    """One duplicate table of ``pair`` (both rotations on the same deals): per deal, the cards give the seat a
    luck ``L`` (chips) and ``pair[0]`` wins ``edge`` big blinds a hand more than ``pair[1]`` on average."""
    deals = [(rng.choice((-40, -20, 0, 20, 40)), rng.gauss(edge * BB, 60)) for _ in range(hands)]
    out = []
    for rotation in range(2):
        seated = pair if rotation == 0 else (pair[1], pair[0])
        rows = []
        for luck, skill in deals:
            first = round(skill) + (luck if rotation == 0 else -luck)  # pair[0]'s net; luck follows the seat
            rows.append([first, -first] if rotation == 0 else [-first, first])
        name = table_name(pair, instance)
        net = [sum(c) for c in zip(*rows, strict=True)]
        res = MatchResult(match_id=f"{'+'.join(seated)}-{instance}-{rotation}", seed=hash(name) % 1000,
                          hands_played=hands, bots=list(seated), net=net, hand_nets=rows, faults=[{}, {}],
                          status=["ok", "ok"])
        out.append(MatchRecord(table=name, rotation=rotation, unit=BB, result=res, rotations=2))
    return out


def _race(edges: dict[tuple[str, str], float], rule: RaceRule, hands: int = 200, seed: int = 1) -> tuple[dict, list]:
    """Play the race to its end with simulated tables; returns the final plays and states."""
    rng = random.Random(seed)
    bots = sorted({b for p in edges for b in p})
    records: list[MatchRecord] = []
    played: dict[tuple[str, str], int] = {p: 0 for p in pairs_of(bots)}
    for _ in range(100):
        plays, states, over = replay(records, bots, rule)
        if over:
            return plays, states
        for pair, n in plays.items():
            while played[pair] < n:
                records += _table(pair, played[pair], edges.get(pair, 0.0), hands, rng)
                played[pair] += 1
    raise AssertionError("the race never ended")


def test_a_pair_with_a_clear_gap_stops_at_its_first_look() -> None:
    rule = RaceRule(delta=0.05, min_tables=2, max_tables=8)
    plays, states = _race({("a", "b"): 2.0}, rule)  # a wins 2 bb a hand: 200 bb/100
    (s,) = states
    assert s.tables == 2 and s.separated and not s.racing and s.bb_per_100 > 0
    assert plays == {("a", "b"): 2}


def test_equal_bots_play_to_the_cap_and_claim_no_order() -> None:
    rule = RaceRule(delta=0.05, min_tables=2, max_tables=6)
    plays, states = _race({("a", "b"): 0.0}, rule, seed=3)
    (s,) = states
    assert s.tables == 6 and not s.separated and not s.racing
    assert plays == {("a", "b"): 6}


def test_a_field_races_only_its_close_pairs() -> None:
    """a far ahead of b and c, b and c level: a's pairs stop at 2 tables, b-c plays to the cap."""
    rule = RaceRule(delta=0.05, min_tables=2, max_tables=5)
    plays, states = _race({("a", "b"): 3.0, ("a", "c"): 3.0, ("b", "c"): 0.0}, rule, seed=5)
    assert plays == {("a", "b"): 2, ("a", "c"): 2, ("b", "c"): 5}
    rows = standings(states, ["a", "b", "c"])
    assert rows[0].bot == "a" and rows[0].wins == 2 and rows[0].half_width is not None
    assert sum(2 * n for n in plays.values()) < 2 * worst_case_tables(3, rule)


def test_a_round_not_yet_recorded_is_played_not_skipped() -> None:
    rule = RaceRule(min_tables=2, max_tables=4)
    rng = random.Random(2)
    records = _table(("a", "b"), 0, 0.0, 100, rng)  # one table of the two of round one
    plays, states, over = replay(records, ["a", "b"], rule)
    assert plays == first_plays(["a", "b"], rule) and not over and states[0].racing
    assert next_plays(records, plays, rule)[0] == plays  # no extra table before the round is whole


def test_the_bound_is_bonferroni_over_pairs_and_looks() -> None:
    rule = RaceRule(delta=0.05, min_tables=2, max_tables=8)
    assert rule.looks == 7
    one = rule.z(1)
    many = rule.z(496)  # 32 bots
    assert 2.6 < one < 2.8 and 4.3 < many < 4.4  # 0.05 / (496 * 7), two-sided


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), edge=st.sampled_from([0.0, 0.3, 3.0]))
def test_the_decisions_are_a_function_of_the_records(seed: int, edge: float) -> None:
    """Same records (in any order), same decisions: what a restarted final relies on."""
    rule = RaceRule(min_tables=1, max_tables=4)
    rng = random.Random(seed)
    records = [r for i in range(3) for r in _table(("a", "b"), i, edge, 50, rng)]
    shuffled = records[:]
    random.Random(seed + 1).shuffle(shuffled)
    assert replay(records, ["a", "b"], rule)[:2] == replay(shuffled, ["a", "b"], rule)[:2]


def test_no_pair_of_equal_bots_is_separated_more_often_than_the_bound_allows() -> None:
    """200 races of two equal bots at delta 0.2: a wrong order (any order, as they are equal) in at most a
    fifth of them (the bound; the normal approximation makes it about 2-5% in practice)."""
    rule = RaceRule(delta=0.2, min_tables=1, max_tables=4)
    wrong = sum(_race({("a", "b"): 0.0}, rule, hands=40, seed=s)[1][0].separated for s in range(200))
    assert wrong <= 0.2 * 200


def test_the_strategy_plays_each_pair_its_tables_with_their_own_deals() -> None:
    strategy = Racing(plays=(("a", "b", 3), ("a", "c", 1)))
    matches = build_schedule(strategy, ["c", "b", "a"], seed=7)
    tables = {m.table for m in matches}
    assert tables == {"a+b", "a+b~2", "a+b~3", "a+c", "b+c"} and len(matches) == 10
    assert len({m.seed for m in matches}) == 5  # every table its own deals
    assert strategy.count(3) == 5
    with pytest.raises(ScheduleError, match="heads-up"):
        list(Racing(table_size=3).tables(["a", "b", "c"]))


def test_expected_tables_lie_between_the_least_and_the_cap() -> None:
    rule = RaceRule(min_tables=2, max_tables=8)
    assert expected_tables([0.0], 100.0, rule) == 8
    assert expected_tables([1000.0], 100.0, rule) == 2
    assert 2 < expected_tables([120.0], 100.0, rule) < 8
