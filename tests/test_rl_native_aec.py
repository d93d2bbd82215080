"""The AEC environment on the native core (harness.rl.aec, engine "native", the default) against the same environment
on the Python engine (engine="python", the oracle): the same seed and actions give the same observations, masks,
agent selection, rewards and terminations at every step, for every seat, in every table size and game the
environment takes; illegal actions are refused with the same words; ``state``, ``clone`` and ``render`` read the
one hand whichever engine plays it."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
pytest.importorskip("gymnasium", reason=_EXTRA)

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.rl import encoding  # noqa: E402
from harness.rl.aec import SevenCardDrawEnv  # noqa: E402

GAMES: list[dict[str, Any]] = [
    {},  # no-limit, blinds 5/10, 1000 chips
    {"structure": "fixed-limit"},
    {"structure": "fixed-limit", "ante": 1},
    {"ante": 2, "starting_stack": 300},
    {"starting_stack": 37, "ante": 3},  # short stacks: all-ins, side pots
    {"starting_stack": 12},  # all-in on the blinds or the first raise
    {"blinds": False, "min_bet": 10, "ante": 5, "starting_stack": 200},  # ante-only (R2.5)
    {"starting_stack": 4, "ante": 5},  # every stack all-in on its ante: hands over before anyone acts
    {"structure": "fixed-limit", "cap": 0, "starting_stack": 300},
    {"replacements": "per-seat"},  # R4.4 (at most 4 seats)
]


def pair(players: int, game: dict[str, Any]) -> tuple[SevenCardDrawEnv, SevenCardDrawEnv]:
    native = SevenCardDrawEnv(num_players=players, **game)
    python = SevenCardDrawEnv(num_players=players, engine="python", **game)
    assert native.engine == "native" and python.engine == "python"  # a silent fallback would compare nothing
    return native, python


def assert_same_view(a: SevenCardDrawEnv, b: SevenCardDrawEnv, where: str) -> None:
    """Every agent's observation and mask, the selection and the PettingZoo bookkeeping are equal."""
    assert a.agent_selection == b.agent_selection, where
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        assert getattr(a, name) == getattr(b, name), f"{where}: {name}"
    for agent in a.possible_agents:
        x, y = a.observe(agent), b.observe(agent)
        for key in ("observation", "action_mask"):
            u, v = x[key], y[key]
            assert (u.dtype, u.shape) == (v.dtype, v.shape), f"{where} {agent} {key}"
            bad = np.flatnonzero(u != v)
            assert not len(bad), f"{where} {agent} {key}: differ at {bad[:5].tolist()}: {u[bad[:5]]} != {v[bad[:5]]}"
        assert a.observation_space(agent).contains(x), f"{where} {agent}: outside the space"


def refusal(env: SevenCardDrawEnv, action: Any) -> str:
    with pytest.raises(ValueError) as caught:
        env.step(action)
    return str(caught.value)


def play(players: int, game: dict[str, Any], seed: int, choices: int, hands: int, probes: bool = True) -> int:
    """``hands`` hands of random legal play on both engines, checked at every step; returns the steps."""
    a, b = pair(players, game)
    rng = random.Random(choices)
    steps = 0
    for h in range(hands):
        if h == 0:
            a.reset(seed=seed), b.reset(seed=seed)
        elif h % 3 == 2:  # a hand picked by number, as well as the next one in sequence
            number = rng.randrange(10**6)
            a.reset(options={"hand": number}), b.reset(options={"hand": number})
        else:
            a.reset(), b.reset()
        assert a.hand == b.hand
        assert_same_view(a, b, f"hand {a.hand} dealt")
        while not a.terminations[a.agent_selection]:
            legal = a.observe(a.agent_selection)["action_mask"].nonzero()[0]
            if probes and rng.random() < 0.2:  # an illegal index: the same words, and nothing moves
                illegal = [i for i in range(encoding.N_ACTIONS) if i not in set(legal.tolist())]
                bad = rng.choice(illegal + [-1, encoding.N_ACTIONS, 2**70, -(2**70)])
                assert refusal(a, bad) == refusal(b, bad)
                assert_same_view(a, b, f"hand {a.hand} after refusing {bad}")
            action = int(legal[rng.randrange(len(legal))])
            a.step(np.int64(action) if rng.random() < 0.3 else action)
            b.step(action)
            steps += 1
            assert_same_view(a, b, f"hand {a.hand} step {steps} action {action}")
        a.step(None), b.step(None)  # the dead steps after the end, agent by agent
        assert_same_view(a, b, f"hand {a.hand} after a dead step")
    return steps


@pytest.mark.parametrize("game", GAMES, ids=lambda g: ",".join(f"{k}={v}" for k, v in g.items()) or "default")
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_native_aec_plays_as_the_python_one(players: int, game: dict[str, Any]) -> None:
    if game.get("replacements") == "per-seat" and players > 4:
        pytest.skip("R4.4: per-seat replacements seat at most 4")
    assert play(players, game, seed=players * 101 + len(game), choices=players, hands=12) > 0


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 6), game=st.sampled_from(GAMES[:-1]), seed=st.integers(0, 2**256 - 1),
       choices=st.integers(0, 2**32), stack=st.one_of(st.none(), st.integers(1, 400)), ante=st.integers(0, 6),
       limit=st.booleans())
def test_random_hands_in_every_setting_agree(players: int, game: dict[str, Any], seed: int, choices: int,
                                            stack: int | None, ante: int, limit: bool) -> None:
    game = dict(game)
    if stack is not None:
        game["starting_stack"] = stack
    if ante:
        game["ante"] = ante
    if limit:
        game["structure"] = "fixed-limit"
    play(players, game, seed, choices, hands=4)


def test_non_actions_are_refused_alike() -> None:
    a, b = pair(3, {})
    a.reset(seed=5), b.reset(seed=5)
    for bad in (1.0, "1", None, [1], 2**64, -(2**63) - 1):
        assert refusal(a, bad) == refusal(b, bad), bad
    assert_same_view(a, b, "after the refusals")


def test_state_is_the_python_hand_and_play_goes_on_from_it() -> None:
    """Reading ``state`` mid-hand gives the engine's HandState of the hand the core played; acting on it (as the
    Gymnasium wrapper and the tests do) moves the environment, and the next hand is the core's again."""
    a, b = pair(2, {})
    a.reset(seed=11), b.reset(seed=11)
    for action in (1, 1, encoding.DRAW_BASE + 3):  # call, check, then the first seat discards its fourth card
        a.step(action), b.step(action)
    assert a._live and a._core.phase == "draw"  # still on the core  # still on the core
    assert a.state.history == b.state.history and a.state.cards == b.state.cards
    assert not a._live  # the hand moved to the Python engine
    default = a.state.default_action()
    a.state.apply(default), b.state.apply(default)
    a._sync(), b._sync()
    assert_same_view(a, b, "after an action through state")
    a.reset(), b.reset()
    assert a._live
    assert_same_view(a, b, "the next hand")


def test_clone_and_render_leave_the_hand_as_it_was() -> None:
    a, b = pair(3, {"ante": 1})
    a.reset(seed=21), b.reset(seed=21)
    a.step(1), b.step(1)
    copy = a.clone()
    assert copy._core is not a._core
    while not copy.terminations[copy.agent_selection]:  # the copy plays to the end, folding where it can
        mask = copy.observe(copy.agent_selection)["action_mask"]
        copy.step(0 if mask[0] else int(mask.nonzero()[0][0]))
    assert_same_view(a, b, "after the copy played")
    assert a.render() is not None and a.render() == b.render()
    a.step(1), b.step(1)
    assert_same_view(a, b, "after rendering")


def test_copies_and_pickles_carry_the_hand_in_play() -> None:
    """``copy.deepcopy`` and ``pickle`` (which the Python engine always allowed) keep the hand in play, leave the
    environment on its core, and the copies play on as the oracle does."""
    a, b = pair(3, {"structure": "fixed-limit"})
    a.reset(seed=8), b.reset(seed=8)
    a.step(1), b.step(1)
    for twin in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert a._live and twin._core is not a._core
        oracle = b.clone()
        assert_same_view(twin, oracle, "the copy")
        for _ in range(3):
            while not twin.terminations[twin.agent_selection]:
                legal = twin.observe(twin.agent_selection)["action_mask"].nonzero()[0]
                twin.step(int(legal[-1])), oracle.step(int(legal[-1]))
                assert_same_view(twin, oracle, "the copy playing")
            twin.reset(), oracle.reset()
            assert twin._live
    assert_same_view(a, b, "the original")


def test_without_the_native_core_the_python_engine_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "harness.engine.native", None)  # importing it raises ImportError
    e = SevenCardDrawEnv(num_players=2)
    assert e.engine == "python" and e._core is None
    a = SevenCardDrawEnv(num_players=2, engine="python")
    e.reset(seed=4), a.reset(seed=4)
    assert_same_view(e, a, "dealt")
    with pytest.raises(ValueError, match="engine must be 'native' or 'python'"):
        SevenCardDrawEnv(engine="rust")
