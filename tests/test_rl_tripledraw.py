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

from harness.deals import match_seed  # noqa: E402
from harness.engine import Phase  # noqa: E402
from harness.engine.cards import CARD_STRS  # noqa: E402
from harness.engine.lowball import keep_27  # noqa: E402
from harness.rl import encoding, features, tripledraw  # noqa: E402
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
    ({"game": "five-card-draw", "blinds": False, "ante": 1, "min_bet": 10, "small_blind": 0, "big_blind": 0,
      "features": True}, "five-card-draw has no feature fields"),
    ({"game": TRIPLE, "replacements": "per-seat"}, "R6.9"),
    ({"game": TRIPLE, "blinds": False, "ante": 2, "min_bet": 10, "small_blind": 0, "big_blind": 0}, "R8.1"),
])
def test_what_the_environment_refuses_is_one_line_naming_it(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words) as caught:
        raw_env(**kwargs)
    assert "\n" not in str(caught.value)


def test_the_vector_environment_refuses_a_game_without_an_encoding_in_one_line() -> None:
    with pytest.raises(ValueError, match="'five-card-draw' is not a game the vector environment plays") as caught:
        VectorEnv(2, game={"name": "five-card-draw", "blinds": False, "ante": 1, "min_bet": 10, "small_blind": 0,
                           "big_blind": 0})
    assert "\n" not in str(caught.value)


@settings(max_examples=10, deadline=None)
@given(tables=st.integers(1, 5), n=st.integers(2, 6), seed=st.integers(0, 2**64), fixed=st.booleans(),
       choices=st.integers(0, 2**32), with_features=st.booleans())
def test_the_vector_environment_matches_single_tables_step_for_step(tables: int, n: int, seed: int, fixed: bool,
                                                                    choices: int, with_features: bool) -> None:
    """N Triple Draw tables stepped in one call give, row by row, what N single environments give on the same
    deals and actions: observation (with the features or not), mask, the seat to act, rewards and each finished
    hand's last views."""
    game = GAMES["fixed-limit" if fixed else "no-limit"]
    venv = VectorEnv(tables, num_players=n, game=game, starting_stack=150, features=with_features)
    views, info = venv.reset(seed=seed)
    obs, masks = views["observation"], views["action_mask"]
    size = tripledraw.obs_size(n) + (features.SIZE_27 if with_features else 0)
    assert obs.shape == (tables, size) and obs.dtype == np.float32
    assert masks.shape == (tables, tripledraw.N_ACTIONS) and masks.dtype == np.int8
    assert venv.single_action_space.n == tripledraw.N_ACTIONS
    singles = [raw_env(num_players=n, game=game, starting_stack=150, features=with_features) for _ in range(tables)]
    for i, t in enumerate(singles):
        t.reset(seed=match_seed(seed, ["vector", str(i)]))
    rng = np.random.default_rng(choices)
    ended = 0
    for _ in range(120):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        for i, t in enumerate(singles):
            mine = t.observe(t.agent_selection)
            assert np.array_equal(obs[i], mine["observation"]) and np.array_equal(masks[i], mine["action_mask"])
            assert info["seat"][i] == int(t.agent_selection[7:])
        acting = [t.agent_selection for t in singles]
        views, reward, done, truncated, info = venv.step(actions)
        obs, masks = views["observation"], views["action_mask"]
        assert not truncated.any()
        for i, t in enumerate(singles):
            t.step(int(actions[i]))
            if done[i]:
                ended += 1
                assert all(t.terminations.values())
                assert info["rewards"][i].tolist() == pytest.approx([t.rewards[a] for a in t.possible_agents])
                assert reward[i] == pytest.approx(t.rewards[acting[i]])
                assert np.array_equal(info["final_obs"][i]["observation"], t.observe(acting[i])["observation"])
                for s, agent in enumerate(t.possible_agents):
                    assert np.array_equal(info["final_info"]["observations"][i][s], t.observe(agent)["observation"])
                t.reset()
            else:
                assert reward[i] == 0 and not info.get("_final_obs", np.zeros(tables, bool))[i]
    assert ended > 0


def test_the_vector_environment_refuses_an_illegal_action_and_no_table_moves() -> None:
    venv = VectorEnv(3, game=TRIPLE)
    masks = venv.reset(seed=4)[0]["action_mask"]
    before = [len(t.state.history) for t in venv.tables]
    actions = np.argmax(masks, axis=1)
    actions[2] = next(i for i in range(tripledraw.N_ACTIONS) if not masks[2][i])
    with pytest.raises(ValueError, match="table 2: action .* is not legal") as caught:
        venv.step(actions)
    assert "no table moved" in str(caught.value)
    assert [len(t.state.history) for t in venv.tables] == before


def test_the_env_bench_measures_triple_draw_on_the_python_engine() -> None:
    from harness.rl import bench

    figures = bench.run(seconds=0.05, game=TRIPLE)
    assert figures["game"] == TRIPLE
    assert figures["steps_per_s"] > 0 and figures["steps_per_s_vector_python"] > 0 and figures["clone_us"] > 0
    assert "steps_per_s_vector" not in figures  # no native figures: the core plays Seven Card Draw only
    expected = 1e6 / figures["rules_us_per_step"] / figures["steps_per_s"]
    assert figures["vector_over_single_ceiling"] == pytest.approx(expected, rel=0.02)


def test_pettingzoo_api_test_passes_with_the_features() -> None:
    api_test(env(num_players=3, game=GAMES["fixed-limit"], starting_stack=300, features=True), num_cycles=200,
             verbose_progress=False)


def test_gymnasium_check_env_passes_with_the_features() -> None:
    g = SingleAgentEnv([random_policy()], illegal="default", game=TRIPLE, features=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(g)
    assert [str(w.message) for w in caught if "not having a spec" not in str(w.message)] == []
    assert g.reset(seed=1)[0]["observation"].shape == (tripledraw.obs_size(2) + features.SIZE_27,)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_the_features_read_the_seats_own_cards_and_name_the_keep_rules_draw(n: int, seed: int) -> None:
    """features=True appends Triple Draw's 2-7 fields: one category, an equity in 0..1, the cards keep_27 keeps
    (a subset of the seat's own), and while a draw is to come the action index that discards the others."""
    aec = raw_env(num_players=n, game=TRIPLE, starting_stack=200, features=True)
    base = tripledraw.obs_size(n)
    lay = features.layout(base, low=True)
    space = aec.observation_space("player_0")
    assert space["observation"].shape == (base + features.SIZE_27,)
    rng = random.Random(seed)
    aec.reset(seed=seed)
    draws_named = 0
    for _hand in range(8):
        while not all(aec.terminations.values()):
            agent = aec.agent_selection
            seat = int(agent[7:])
            obs = aec.observe(agent)
            assert space.contains(obs)
            v = obs["observation"]
            cards = aec.state.cards[seat]
            assert v[lay["category"]].sum() == 1 and 0 <= v[lay["equity"]][0] <= 1
            kept = set(np.flatnonzero(v[lay["keep"]]).tolist())
            assert kept == set(keep_27(cards)) and kept <= set(cards)
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if aec.state.phase is Phase.DRAW:
                index = tripledraw.DRAW_BASE + int(v[lay["choice"]][0])
                assert index in legal
                kind, discards = tripledraw.decode(aec.state, index)
                assert kind == "draw" and set(discards) == set(cards) - kept, [CARD_STRS[c] for c in cards]
                draws_named += 1
            else:
                index = rng.choice(legal)
            aec.step(index)
        aec.reset()
    assert draws_named > 0
