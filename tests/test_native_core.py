"""The native core (native/, harness_core) against the pure-Python engine, its oracle.

The generator and the deal (CPython's Mersenne Twister and shuffle), the evaluator (value and the five
that play), and the hand state machine: random hands in every setting through both engines, compared
after every action (harness/bench/differential.py), under hypothesis and for some thousands of seeded
hands. The rule tests (test_engine_rules.py, test_engine_state.py) play every worked example through
both engines as well (the ``both_engines`` fixture).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import GameConfig, HandState, best_hand, evaluate
from tests.engine_helpers import CONFIGS, new_hand
from tests.skip_helpers import NATIVE_CORE_MISSING, native_core_missing, skip_loudly

if native_core_missing():  # make install and make test always build it: only a bare pip install lacks it
    skip_loudly(NATIVE_CORE_MISSING, module=True)

import harness_core  # noqa: E402

from harness.bench.differential import Mismatch, compare_state, play_differential, random_table, run  # noqa: E402
from harness.engine.native import start_native  # noqa: E402
from tests.native_core_helpers import mirror_native  # noqa: E402

SEEDS = st.one_of(st.integers(-(2**40), 2**64), st.integers(2**64, 2**200),
                  st.sampled_from([0, 1, -1, 2**32, 2**32 - 1]))


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_the_generator_is_pythons_random(seed: int) -> None:
    rng = random.Random(seed)
    assert harness_core.random_words(seed, 700) == [rng.getrandbits(32) for _ in range(700)]  # past one refill


@settings(max_examples=300, deadline=None)
@given(cards=st.integers(5, 7).flatmap(lambda k: st.lists(st.integers(0, 51), min_size=k, max_size=k, unique=True)))
def test_the_evaluator_is_the_python_one(cards: list[int]) -> None:
    hand = best_hand(cards)
    assert harness_core.best_hand(cards) == (hand.value, list(hand.five))
    assert harness_core.evaluate(cards) == evaluate(cards)


def test_the_evaluator_agrees_on_many_seeded_hands() -> None:
    rng = random.Random(5)
    for _ in range(20_000):
        cards = rng.sample(range(52), rng.randint(5, 7))
        hand = best_hand(cards)
        assert harness_core.best_hand(cards) == (hand.value, list(hand.five)), cards


@pytest.mark.parametrize("cards", [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 2, 3, 4], [1, 2, 3, 4, 52],
                                   [-1, 2, 3, 4, 5]])
def test_the_evaluator_refuses_what_is_not_five_to_seven_cards(cards: list[int]) -> None:
    with pytest.raises(ValueError, match="R5.1"):
        harness_core.best_hand(cards)
    with pytest.raises(ValueError, match="R5.1"):
        harness_core.evaluate(cards)


@settings(max_examples=300, deadline=None)
@given(table=st.integers(0, 2**64), raise_cap=st.booleans())
def test_random_hands_are_the_same_hand_in_both_engines(table: int, raise_cap: bool) -> None:
    rnd = random.Random(table)
    config, stacks, button, seed = random_table(rnd)
    assert play_differential(config, stacks, button, seed, rnd, raise_cap=raise_cap) > 0


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 4), config=st.sampled_from(CONFIGS),
       stacks=st.lists(st.integers(1, 400), min_size=6, max_size=6),
       button=st.integers(0, 5), seed=SEEDS, chooser=st.integers(0, 2**32))
def test_short_stacks_in_every_listed_setting(n: int, config: GameConfig, stacks: list[int], button: int, seed: int,
                                              chooser: int) -> None:
    play_differential(config, stacks[:n], button % n, seed, random.Random(chooser))


def test_thousands_of_seeded_hands_agree() -> None:
    figures = run(3000, seed=20261207)
    assert figures["hands"] == 3000 and figures["actions"] > 15_000


def test_a_difference_is_caught() -> None:
    state = HandState.start(GameConfig(), [1000, 1000], 0, seed=1)
    with pytest.raises(Mismatch, match="cards differ"):
        compare_state(state, start_native(GameConfig(), [1000, 1000], 0, seed=2), "")
    native = start_native(GameConfig(), [1000, 1000], 0, seed=1)
    compare_state(state, native, "")
    native.apply("call")
    with pytest.raises(Mismatch, match="to_act differ"):
        compare_state(state, native, "")


def test_the_mirror_of_the_rule_tests_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = mirror_native(monkeypatch)
    state = new_hand([1000, 1000], button=0)
    (_, native), = pairs.values()
    native.apply("fold")  # the native hand goes its own way
    with pytest.raises(Mismatch):
        state.call()


@pytest.mark.parametrize(("stacks", "button", "settings", "match"), [
    ([100], 0, {}, "R1.2"),
    ([100] * 7, 0, {}, "R1.2"),
    ([100, 0], 0, {}, "R1.4"),
    ([100, 100], 2, {}, "R2.1"),
    ([100] * 5, 0, {"replacements": "per-seat"}, "R4.4"),
    ([100, 100], 0, {"structure": "pot-limit"}, "R3.6"),
    ([100, 100], 0, {"blinds": False, "ante": 1}, "R2.5"),
    ([100, 100], 0, {"deck": list(range(51)) + [0]}, "R1.1"),
])
def test_the_native_core_refuses_a_bad_table(stacks: list[int], button: int, settings: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        harness_core.NativeHand(stacks, button, 1, **settings)


@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
@pytest.mark.parametrize("players", [2, 4])
def test_the_rust_loop_plays_every_setting(config: GameConfig, players: int) -> None:
    settings = {k: v for k, v in config.to_dict().items()}
    assert harness_core.play_random_hands(players, 300, 3, **settings) > 300
    assert harness_core.evaluate_random(1000, 3) > 0


def test_bench_engine_runs_the_differential_test() -> None:
    result = CliRunner().invoke(app, ["bench", "engine", "--differential", "40", "--seed", "9", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["differential_hands"] == 40 and figures["mismatches"] == 0 and figures["differential_actions"] > 0


def test_bench_engine_says_when_the_engines_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.bench.differential as differential

    def differ(hands: int, seed: int) -> dict[str, int]:
        raise Mismatch("config {}: stacks differ: python [1], native [2]")

    monkeypatch.setattr(differential, "run", differ)
    result = CliRunner().invoke(app, ["bench", "engine", "--differential", "5"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "harness bench engine: the engines differ: config {}: stacks differ: python [1], native [2]"]


def test_the_engine_bench_says_when_the_native_core_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import harness.bench.engine as engine_bench

    monkeypatch.setitem(sys.modules, "harness_core", None)  # import harness_core raises ImportError
    monkeypatch.delitem(sys.modules, "harness.engine.native")
    monkeypatch.setattr(engine_bench, "evals_per_second", lambda: 1.0)
    figures = engine_bench.run(seconds=0.01)
    assert figures["hands_per_s_heads_up"] > 0 and figures["native"].startswith("not built")
    assert not any(key.startswith("native_") for key in figures)
