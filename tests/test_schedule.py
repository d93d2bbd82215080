"""Schedules: round-robin and gauntlet contents for 2-6 seats, duplicate seating, seeds."""

from __future__ import annotations

import hmac
import itertools
from collections import Counter
from math import comb

import pytest

from harness.tournament.schedule import Gauntlet, RoundRobin, ScheduleError, build_schedule, rotate, table_seed

NAMES = ["a", "b", "c", "d", "e", "f", "g"]


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_round_robin_plays_every_combination_in_every_rotation(k: int) -> None:
    bots = NAMES[: k + 1]
    matches = build_schedule(RoundRobin(k), bots, seed=1)
    tables = {m.table: frozenset(m.bots) for m in matches}
    assert sorted(map(sorted, tables.values())) == sorted(map(sorted, itertools.combinations(bots, k)))
    assert len(matches) == comb(len(bots), k) * k
    assert len({m.match_id for m in matches}) == len(matches)
    for t in tables:
        group = [m for m in matches if m.table == t]
        assert sorted(m.rotation for m in group) == list(range(k))
        assert len({m.seed for m in group}) == 1  # same deals for the whole duplicate set
        # every bot sits in every seat exactly once over the set
        for seat in range(k):
            assert sorted(m.bots[seat] for m in group) == sorted(tables[t])
    # over the whole tournament each bot plays each seat equally often
    seats = Counter((name, seat) for m in matches for seat, name in enumerate(m.bots))
    assert len(set(seats.values())) == 1


def test_duplicate_seating_rule() -> None:
    # rotation r puts bot i of the table in seat (i + r) % k
    assert rotate(("a", "b", "c", "d"), 0) == ("a", "b", "c", "d")
    assert rotate(("a", "b", "c", "d"), 1) == ("d", "a", "b", "c")
    assert rotate(("a", "b", "c", "d"), 3) == ("b", "c", "d", "a")
    matches = build_schedule(RoundRobin(2), ["y", "x"], seed=5)  # tables are named and seated by sorted names
    assert [m.bots for m in matches] == [("x", "y"), ("y", "x")]
    assert [m.match_id for m in matches] == ["x+y", "y+x"]
    assert {m.table for m in matches} == {"x+y"} and {m.rotations for m in matches} == {2}


def test_heads_up_pairs() -> None:
    matches = build_schedule(RoundRobin(2), ["a", "b", "c", "d"], seed=0)
    assert len(matches) == 12
    assert {frozenset(m.bots) for m in matches} == {frozenset(p) for p in itertools.combinations("abcd", 2)}


def test_without_duplicate_one_match_per_table_in_a_seating_drawn_from_the_seed() -> None:
    matches = build_schedule(RoundRobin(3), NAMES[:5], seed=0, duplicate=False)
    assert len(matches) == comb(5, 3) and len({m.table for m in matches}) == len(matches)
    assert all(m.rotations == 1 and m.rotation == m.seed % 3 for m in matches)
    assert len({m.rotation for m in matches}) > 1  # not every table seated alike
    assert len({m.seed for m in matches}) == len(matches)
    assert matches == build_schedule(RoundRobin(3), NAMES[:5][::-1], seed=0, duplicate=False)


def test_seeds_are_stable_and_independent_of_the_field() -> None:
    small = build_schedule(RoundRobin(2), ["a", "b", "c"], seed=7)
    big = build_schedule(RoundRobin(2), ["a", "b", "c", "z"], seed=7)
    seeds_small = {m.bots: m.seed for m in small}
    seeds_big = {m.bots: m.seed for m in big}
    assert all(seeds_big[b] == s for b, s in seeds_small.items())
    assert table_seed(7, ("a", "b")) == seeds_small[("a", "b")]
    assert table_seed(7, ("a", "b")) != table_seed(8, ("a", "b"))
    assert 0 <= table_seed(7, ("a", "b")) < 2**256
    assert table_seed(7, ("b", "a")) == table_seed(7, ("a", "b"))  # every rotation, any file order
    # HMAC-SHA256 keyed by the tournament seed, not the salted hash(): a fixed value on every run and machine
    key = (7).to_bytes(32, "big")
    assert table_seed(7, ("a", "b")) == int.from_bytes(hmac.digest(key, b"match\x00a\x00b", "sha256"), "big")


@pytest.mark.parametrize("k", [2, 3, 4])
def test_gauntlet_challengers_meet_every_field_combination(k: int) -> None:
    bots = ["hero", "x", "y", "z", "villain"]
    strategy = Gauntlet(challengers=("hero", "villain"), table_size=k)
    tables = list(strategy.tables(bots))
    field = ["x", "y", "z"]
    assert len(tables) == 2 * comb(3, k - 1)
    for t in tables:
        assert t[0] in ("hero", "villain") and sum(b in ("hero", "villain") for b in t) == 1
        assert set(t[1:]) <= set(field)
    matches = build_schedule(strategy, bots, seed=0)
    assert len(matches) == len(tables) * k


def test_too_few_bots_is_a_schedule_error() -> None:
    with pytest.raises(ScheduleError):
        build_schedule(RoundRobin(3), ["a", "b"], seed=0)
    with pytest.raises(ScheduleError):
        list(Gauntlet(challengers=("a",), table_size=3).tables(["a", "b"]))
    with pytest.raises(ScheduleError):
        list(Gauntlet(challengers=("q",)).tables(["a", "b"]))
