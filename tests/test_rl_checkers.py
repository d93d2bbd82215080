"""harness.rl against the field's own checkers, in every draw game: Gymnasium's check_env on SingleAgentEnv,
PettingZoo's api_test, a real Gymnasium vector environment (spaces, autoreset mode, final observations,
all-or-none steps), finite observation bounds."""

from __future__ import annotations

import warnings

import pytest

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
gymnasium = pytest.importorskip("gymnasium", reason=_EXTRA)

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from harness.engine import GameConfig  # noqa: E402
from harness.rl import encoding, env, raw_env  # noqa: E402
from harness.rl.gym import SingleAgentEnv, random_policy  # noqa: E402
from harness.rl.vector import VectorEnv  # noqa: E402

GAMES = {
    "no-limit": GameConfig(),
    "fixed-limit": GameConfig(structure="fixed-limit", cap=4),
    "ante-only": GameConfig(blinds=False, ante=2, min_bet=10, small_blind=0, big_blind=0),
}
TRIPLE, FIVE = "deuce-to-seven-triple-draw", "five-card-draw"
#: The other draw games' settings, as a tournament file's [game] table gives them.
OTHER_GAMES: dict[str, dict[str, object]] = {
    "triple-draw-no-limit": {"name": TRIPLE},
    "triple-draw-fixed-limit": {"name": TRIPLE, "structure": "fixed-limit", "cap": 4},
    "five-card-draw-no-limit": {"name": FIVE, "blinds": False, "ante": 1, "min_bet": 10},
    "five-card-draw-fixed-limit": {"name": FIVE, "blinds": False, "ante": 2, "min_bet": 10,
                                   "structure": "fixed-limit", "cap": 4},
}
EVERY_GAME: dict[str, object] = {**GAMES, **OTHER_GAMES}
# check_env cannot test other render modes of an environment made without gymnasium.make (no spec): that
# advice is the one warning allowed; any other (an infinite bound, a wrong dtype...) fails the test.
_NO_SPEC = "not having a spec"


@pytest.mark.parametrize("game", sorted(EVERY_GAME))
@pytest.mark.parametrize("n", [2, 3])
def test_check_env_passes_with_illegal_default(game: str, n: int) -> None:
    g = SingleAgentEnv([random_policy() for _ in range(n - 1)], illegal="default", game=EVERY_GAME[game])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(g)
    assert [str(w.message) for w in caught if _NO_SPEC not in str(w.message)] == []


def test_check_env_fails_by_default_on_the_unmasked_sample() -> None:
    """Mistakes are never hidden by default: the checker's unmasked action is refused."""
    g = SingleAgentEnv([random_policy()])
    g.action_space.seed(0)  # the checker's first sample then is one the mask forbids (most indices are)
    with pytest.raises(ValueError, match="is not legal now"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(g)


def test_illegal_default_plays_the_default_action_and_says_so() -> None:
    a = SingleAgentEnv([random_policy(1)], illegal="default")
    b = SingleAgentEnv([random_policy(1)])
    view, _ = a.reset(seed=5)
    b.reset(seed=5)
    illegal = int(np.flatnonzero(view["action_mask"] == 0)[0])
    default = a.aec.state.default_action()
    _, _, _, _, info = a.step(illegal)
    assert info["illegal_action"] is True
    assert a.aec.state.history[-1]["action"] == default.kind.value
    legal = int(np.flatnonzero(view["action_mask"])[-1])
    _, _, _, _, info = b.step(legal)
    assert info["illegal_action"] is False
    with pytest.raises(ValueError, match="an action is an index"):  # a float is a mistake in any mode
        a.step(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="illegal must be"):
        SingleAgentEnv([random_policy()], illegal="ignore")


@pytest.mark.parametrize("game", sorted(EVERY_GAME))
def test_every_observation_lies_within_the_finite_bounds(game: str) -> None:
    e = raw_env(num_players=3, game=EVERY_GAME[game], starting_stack=40)
    space = e.observation_space("player_0")
    assert np.isfinite(space["observation"].high).all() and np.isfinite(space["observation"].low).all()
    rng = np.random.default_rng(3)
    e.reset(seed=9)
    for _ in range(3000):
        agent = e.agent_selection
        if e.terminations[agent]:
            for a in e.possible_agents:  # the end of a hand, shown cards included
                assert space.contains(e.observe(a)), a
            e.reset()
            continue
        view = e.observe(agent)
        assert space.contains(view)
        e.step(int(rng.choice(np.flatnonzero(view["action_mask"]))))


@pytest.mark.parametrize("game", sorted(OTHER_GAMES))
@pytest.mark.parametrize("n", [2, 3, 6])
def test_pettingzoo_api_test_passes_in_the_other_draw_games(game: str, n: int) -> None:
    """Seven Card Draw's, with PettingZoo's seed_test, is in tests/test_rl.py."""
    api_test(env(num_players=n, game=OTHER_GAMES[game], starting_stack=300), num_cycles=300,
             verbose_progress=False)


def test_vector_env_is_a_gymnasium_vector_env() -> None:
    venv = VectorEnv(3, num_players=2)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert venv.single_action_space == gymnasium.spaces.Discrete(encoding.N_ACTIONS)
    assert venv.single_observation_space == raw_env(num_players=2).observation_space("player_0")
    assert venv.observation_space["observation"].shape == (3, encoding.obs_size(2))
    assert venv.action_space.shape == (3,)
    views, info = venv.reset(seed=4)
    assert venv.observation_space.contains(views) and info["seat"].shape == (3,)
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = np.argmax(rng.random(views["action_mask"].shape) * views["action_mask"], axis=1)
        views, reward, term, trunc, info = venv.step(actions)
        assert venv.observation_space.contains(views)
        assert reward.shape == term.shape == trunc.shape == (3,)
        assert views["action_mask"].shape == (3, encoding.N_ACTIONS) and info["seat"].shape == (3,)
        assert np.array_equal(info["action_mask"], views["action_mask"])  # masks in info too
    venv.close()
    venv.close()  # closing twice is allowed


def test_the_last_observation_of_a_finished_hand_is_returned() -> None:
    venv = VectorEnv(2, num_players=2)
    views, _ = venv.reset(seed=8)
    # fold at table 0 whenever folding is legal, else check/call: the hand ends within a few steps
    for _ in range(50):
        acts = [encoding.FOLD if views["action_mask"][i][encoding.FOLD] else encoding.CALL for i in range(2)]
        seat = venv.tables[0].state.to_act
        before = venv.tables[0].state.clone()
        views, reward, term, _, info = venv.step(acts)
        if term[0]:
            break
    else:
        raise AssertionError("no hand ended in 50 steps")
    assert info["_final_obs"][0]
    final = info["final_obs"][0]
    assert final["action_mask"].sum() == 0
    assert final["observation"][encoding.layout(2)["phase"]].tolist() == [0, 0, 0, 1]  # complete
    before.apply(encoding.action_of(before, encoding.decision(before), acts[0]))
    assert np.array_equal(final["observation"], encoding.observe(before, seat))
    assert reward[0] == pytest.approx(before.result().net[seat] / before.config.unit)


def test_an_illegal_action_at_table_2_moves_no_table() -> None:
    venv = VectorEnv(4, num_players=2)
    views, _ = venv.reset(seed=1)
    before = [len(t.state.history) for t in venv.tables]
    actions = [int(np.flatnonzero(m)[0]) for m in views["action_mask"]]
    actions[2] = int(np.flatnonzero(views["action_mask"][2] == 0)[0])
    with pytest.raises(ValueError, match=r"table 2: action \d+ is not legal now .*no table moved"):
        venv.step(actions)
    assert [len(t.state.history) for t in venv.tables] == before
    venv.step([encoding.CALL] * 4)  # then a legal step (check/call: no hand ends) moves them all
    assert [len(t.state.history) for t in venv.tables] == [b + 1 for b in before]
