"""The RL environments play Five Card Draw with openers (``game={"name": "five-card-draw", ...}``, RULES.md R7)
with their own encoding (harness/rl/fivedraw.py): PettingZoo's api_test and Gymnasium's check_env pass
unchanged; the mask never offers an open without openers (R7.3); a passed-out deal ends its episode with
rewards of 0 and its antes carried into the next hand dealt in sequence (R7.4), whose winner is charged them,
so every hand's rewards sum to 0 and chips are conserved over many hands."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.engine import Phase  # noqa: E402
from harness.engine.openers import may_open  # noqa: E402
from harness.rl import encoding, fivedraw  # noqa: E402
from harness.rl.aec import raw_env  # noqa: E402

FIVE = "five-card-draw"
GAMES = {
    "no-limit": {"name": FIVE, "blinds": False, "ante": 1, "min_bet": 10},
    "fixed-limit": {"name": FIVE, "blinds": False, "ante": 2, "min_bet": 10, "structure": "fixed-limit", "cap": 4},
}
BETS = range(encoding.BET_BASE, fivedraw.DRAW_BASE)


def test_the_action_space_is_triple_draws_and_the_fields_are_laid_end_to_end() -> None:
    aec = raw_env(game=GAMES["no-limit"])
    assert aec.action_space("player_0").n == fivedraw.N_ACTIONS == 39 and aec.engine == "python"
    lay = fivedraw.layout(3)
    assert lay["cards"].start == 0 and lay["shown"].stop == fivedraw.obs_size(3)
    assert all(a.stop == b.start for a, b in zip(list(lay.values())[:-1], list(lay.values())[1:], strict=True))
    assert (lay["carried"].stop - lay["carried"].start, lay["opener"].stop - lay["opener"].start) == (1, 3)


def _check_to_the_end(aec: object) -> None:
    while not all(aec.terminations.values()):  # type: ignore[attr-defined]
        aec.step(encoding.CALL)  # type: ignore[attr-defined]  # check, or call


def test_a_passed_out_deal_carries_its_antes_into_the_next_hand_dealt_in_sequence() -> None:
    aec = raw_env(num_players=3, game=GAMES["no-limit"], starting_stack=100)
    aec.reset(seed=0)
    _check_to_the_end(aec)  # nobody bets: passed out (R7.4)
    assert aec.state.result().passed_out and not aec.state.result().shown
    assert aec.rewards == dict.fromkeys(aec.possible_agents, 0.0)  # the antes are still held, not lost
    assert aec.infos["player_0"] == {"passed_out": True, "carried": 3}
    aec.reset()
    lay = fivedraw.layout(3)
    obs = aec.observe(aec.agent_selection)["observation"]
    assert aec.state.carried == 3 and aec.state.pot == 6 and aec.state.button == 1
    assert obs[lay["carried"]].tolist() == [pytest.approx(0.3)] and obs[lay["pot"]].tolist() == [pytest.approx(0.6)]
    opener = aec.agent_selection
    while not all(aec.terminations.values()):  # the first seat able to opens for the least, the others fold
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(encoding.BET_BASE if mask[encoding.BET_BASE] and aec.state.opener is None else encoding.FOLD
                 if mask[encoding.FOLD] else encoding.CALL)
        opener = opener if aec.state.opener is None else f"player_{aec.state.opener}"
    assert not aec.state.result().passed_out and opener == "player_0"
    assert sum(aec.rewards.values()) == pytest.approx(0.0)  # the winner is charged the others' held antes
    # It takes 6 chips (3 carried, 3 antes), 2 of them its own antes; each other seat is charged its 2 antes.
    assert list(aec.rewards.values()) == [pytest.approx(0.4), pytest.approx(-0.2), pytest.approx(-0.2)]
    aec.reset(seed=0, options={"hand": 1})  # a jump: nothing carried in
    assert aec.state.carried == 0


def test_opening_without_openers_is_masked_and_the_observation_says_who_may_open() -> None:
    lay = fivedraw.layout(4)
    seen = {True: 0, False: 0}
    for seed in range(12):
        aec = raw_env(num_players=4, game=GAMES["no-limit"], starting_stack=100)
        aec.reset(seed=seed)
        while aec.state.phase is Phase.BET1 and aec.state.opener is None:
            agent = aec.agent_selection
            seat = int(agent[7:])
            obs = aec.observe(agent)
            can = may_open(aec.state.cards[seat], aec.state.game.openers)
            assert obs["observation"][lay["can_open"]].tolist() == [float(can)]
            assert bool(obs["action_mask"][list(BETS)].any()) == can  # R7.3
            seen[can] += 1
            aec.step(encoding.BET_BASE if can else encoding.CALL)
        if aec.state.opener is not None:
            obs = aec.observe("player_0")["observation"]
            assert obs[lay["opener"]].sum() == 1.0
    assert seen[True] and seen[False]


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), fixed=st.booleans(),
       rule=st.sampled_from(["jacks", "jack-card", "none"]))
def test_random_legal_play_conserves_chips_over_many_hands(n: int, seed: int, fixed: bool, rule: str) -> None:
    """Every hand's rewards sum to 0, a passed-out deal's antes are carried into the next hand, the chips at the
    table plus those in the middle stay constant, and every observation is in its space."""
    stack = 60
    aec = raw_env(num_players=n, game=GAMES["fixed-limit" if fixed else "no-limit"], starting_stack=stack,
                  openers=rule)
    space = aec.observation_space("player_0")
    rng = random.Random(seed)
    aec.reset(seed=seed)
    carried = 0
    for _hand in range(30):
        state = aec.state
        assert state.carried == carried and state.game.openers == rule
        while not all(aec.terminations.values()):
            obs = aec.observe(aec.agent_selection)
            assert space.contains(obs)
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if aec.state.phase is Phase.DRAW:
                assert legal == list(range(fivedraw.DRAW_BASE, fivedraw.N_ACTIONS))
            aec.step(int(rng.choice(legal)))
        r = aec.state.result()
        assert sum(r.final_stacks) + r.carried_out == n * stack + carried  # R1.4 with R7.4
        assert abs(sum(aec.rewards.values())) < 1e-9
        carried = r.carried_out
        aec.reset()
    assert aec.state.carried == carried


def test_a_clone_settles_its_own_hand() -> None:
    aec = raw_env(num_players=2, game=GAMES["no-limit"], starting_stack=100)
    aec.reset(seed=3)
    _check_to_the_end(aec)
    twin = aec.clone()
    twin.reset()
    aec.reset()
    assert twin.state.carried == aec.state.carried == 2

