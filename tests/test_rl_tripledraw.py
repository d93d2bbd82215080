"""The RL environments play Deuce-to-Seven Triple Draw (``game="deuce-to-seven-triple-draw"``, RULES.md R8) with
its own encoding (32 discard sets of 0-5 of the five cards): PettingZoo's api_test and Gymnasium's check_env pass
unchanged, random legal play conserves chips over many hands, and what the environments refuse is one line."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from harness.engine import Phase  # noqa: E402
from harness.rl import encoding, tripledraw  # noqa: E402
from harness.rl.aec import env, raw_env  # noqa: E402
from harness.rl.gym import SingleAgentEnv, random_policy  # noqa: E402
from harness.rl.vector import VectorEnv  # noqa: E402

TRIPLE = "deuce-to-seven-triple-draw"
GAMES = {"no-limit": {"name": TRIPLE}, "fixed-limit": {"name": TRIPLE, "structure": "fixed-limit", "cap": 4}}


def test_the_action_space_is_the_betting_indices_then_32_discard_sets() -> None:
    assert tripledraw.DRAW_BASE == encoding.DRAW_BASE and tripledraw.N_ACTIONS == encoding.DRAW_BASE + 32
    assert tripledraw.DISCARDS[0] == () and tripledraw.DISCARDS[-1] == (0, 1, 2, 3, 4)
    assert len(set(tripledraw.DISCARDS)) == 32 and max(map(len, tripledraw.DISCARDS)) == 5
    aec = raw_env(game=TRIPLE, structure="fixed-limit")
    assert aec.action_space("player_0").n == 39 and aec.engine == "python"
    assert raw_env().action_space("player_0").n == encoding.N_ACTIONS  # Seven Card Draw's is unchanged


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("n", [2, 3, 6])
def test_pettingzoo_api_test_passes(game: str, n: int) -> None:
    api_test(env(num_players=n, game=GAMES[game], starting_stack=300), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("n", [2, 3])
def test_gymnasium_check_env_passes(game: str, n: int) -> None:
    g = SingleAgentEnv([random_policy() for _ in range(n - 1)], illegal="default", game=GAMES[game])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(g)
    assert [str(w.message) for w in caught if "not having a spec" not in str(w.message)] == []


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), fixed=st.booleans())
def test_random_legal_play_conserves_chips_over_many_hands(n: int, seed: int, fixed: bool) -> None:
    """Rewards sum to 0 in every hand, every observation is in its space, a seat holds its five cards, every
    draw offers all 32 sets, and the three draws and four rounds are seen in the phase field."""
    aec = raw_env(num_players=n, game=GAMES["fixed-limit" if fixed else "no-limit"], starting_stack=200)
    space = aec.observation_space("player_0")
    lay = tripledraw.layout(n)
    rng = random.Random(seed)
    aec.reset(seed=seed)
    phases: set[int] = set()
    discarded: set[int] = set()
    for _hand in range(25):
        while not all(aec.terminations.values()):
            agent = aec.agent_selection
            obs = aec.observe(agent)
            assert space.contains(obs), agent
            assert obs["observation"][lay["cards"]].sum() == 5 or aec.state.folded[int(agent[7:])]
            phases.add(int(np.argmax(obs["observation"][lay["phase"]])))
            legal = np.flatnonzero(obs["action_mask"])
            if aec.state.phase is Phase.DRAW:
                assert legal.tolist() == list(range(tripledraw.DRAW_BASE, tripledraw.N_ACTIONS))
            index = int(rng.choice(legal.tolist()))
            if index >= tripledraw.DRAW_BASE:
                discarded.add(len(tripledraw.DISCARDS[index - tripledraw.DRAW_BASE]))
            aec.step(index)
        state = aec.state
        assert sum(state.result().final_stacks) == 200 * n
        assert abs(sum(aec.rewards.values())) < 1e-9
        assert sorted(c for s in range(n) for c in state.cards[s]) == sorted(set(c for s in range(n)
                                                                                 for c in state.cards[s]))
        aec.reset()
    assert discarded and max(discarded) <= 5
    assert phases & {1, 3, 5}, "a draw was decided"


def test_the_observation_counts_each_draw_and_each_round() -> None:
    """Check to the end, everyone drawing two: three draws of 2 each, one check per seat in rounds 2-4."""
    aec = raw_env(num_players=2, game=TRIPLE)
    aec.reset(seed=5)
    two = tripledraw.DRAW_BASE + tripledraw.DISCARDS.index((0, 1))
    while not all(aec.terminations.values()):
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(two if mask[two] else encoding.CALL)
    v = aec.observe("player_0")["observation"]
    lay = tripledraw.layout(2)
    assert v[lay["draws"]].tolist() == [2.0] * 6
    assert v[lay["phase"]].tolist() == [0.0] * 7 + [1.0]
    actions = v[lay["actions"]].reshape(4, 2, 3)
    assert actions[1:, :, 0].tolist() == [[1.0, 1.0]] * 3  # one check per seat in rounds 2-4
    assert v[lay["shown"]].sum() == 5  # the opponent's five, shown down


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"game": "razz"}, "is not a game the environments play"),
    ({"game": "five-card-draw"}, "R7.1"),
    ({"game": TRIPLE, "openers": "jacks"}, "no opening requirement"),
    ({"game": TRIPLE, "features": True}, "features are Seven Card Draw's"),
    ({"game": TRIPLE, "replacements": "per-seat"}, "R6.9"),
    ({"game": TRIPLE, "blinds": False, "ante": 2, "min_bet": 10, "small_blind": 0, "big_blind": 0}, "R8.1"),
])
def test_what_the_environment_refuses_is_one_line_naming_it(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words) as caught:
        raw_env(**kwargs)
    assert "\n" not in str(caught.value)


def test_the_vector_environment_refuses_triple_draw_in_one_line() -> None:
    with pytest.raises(ValueError, match="the vector environment plays Seven Card Draw, not deuce-to-seven"):
        VectorEnv(2, game=TRIPLE)
