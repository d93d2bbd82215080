"""harness.rl's features=True observation (hand strength, outs, pot odds, position, best keep) and the draw
abstraction: the default layout unchanged, the bot sees what the environment shows, the values on known hands."""

from __future__ import annotations

import warnings

import pytest

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
pytest.importorskip("gymnasium", reason=_EXTRA)

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from harness.engine import GameConfig  # noqa: E402
from harness.engine.cards import parse_cards  # noqa: E402
from harness.engine.evaluator import best_keep  # noqa: E402
from harness.rl import encoding, features, raw_env  # noqa: E402
from harness.rl.gym import SingleAgentEnv, random_policy  # noqa: E402
from harness.rl.vector import VectorEnv  # noqa: E402
from tests.rl_helpers import assert_as_bot_sees_the_environments_view  # noqa: E402


def test_the_default_layout_is_unchanged_and_features_are_appended() -> None:
    plain, rich = raw_env(num_players=3), raw_env(num_players=3, features=True)
    base = encoding.obs_size(3)
    assert plain.observation_space("player_0")["observation"].shape == (base,)
    assert rich.observation_space("player_0")["observation"].shape == (base + features.SIZE,)
    plain.reset(seed=5)
    rich.reset(seed=5)
    for a in plain.possible_agents:
        p, r = plain.observe(a)["observation"], rich.observe(a)["observation"]
        assert np.array_equal(p, r[:base])
        lay = features.layout(base)
        assert r[lay["category"]].sum() == 1 and 0 < r[lay["equity"]][0] < 1
        assert r[lay["keep"]].sum() in (3, 4, 5)
    with pytest.raises(ValueError, match="features must be True or False"):
        raw_env(features="yes")


def test_feature_values_on_a_known_hand() -> None:
    cards = parse_cards("As Ks 7s 2s 9d 9c 3h")  # a pair of nines and a four-card spade flush draw
    # outs replacing the 3h: 9 spades (flush), the last nine (trips), 12 pairing A, K, 7 or 2 (two pair)
    assert features.outs(cards) == 22
    assert sorted(best_keep(cards)) == sorted(parse_cards("As Ks 7s 2s"))
    v = np.zeros(features.SIZE, np.float32)
    features.fill(v, 0, 2, 1, cards, False, 1, 30, 10)  # heads-up, seat 1 on the button, 10 to call into 30
    lay = features.layout()
    assert v[lay["category"]].tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0]  # one pair
    assert v[lay["outs"]][0] == 22 and v[lay["pot_odds"]][0] == pytest.approx(0.25)
    assert v[lay["position"]][0] == 1.0
    assert np.flatnonzero(v[lay["keep"]]).tolist() == sorted(parse_cards("As Ks 7s 2s"))
    offsets = [encoding.DRAW_BASE + int(i) for i in v[lay["choices"]]]  # the draw abstraction's actions, in order
    assert offsets == [features.draw_choices(cards)[k] for k in ("best", "made", "draw")]
    assert [cards[p] for p in encoding.DISCARDS[offsets[1] - encoding.DRAW_BASE]] == parse_cards("Ks 7s 2s 3h")
    drawn = np.zeros(features.SIZE, np.float32)
    features.fill(drawn, 0, 2, 0, cards, True, 1, 30, 0)
    assert drawn[lay["outs"]][0] == 0 and drawn[lay["position"]][0] == 0.0 and drawn[lay["pot_odds"]][0] == 0
    assert not drawn[lay["choices"]].any()  # no draw to choose once drawn
    strong = features.equity(parse_cards("As Ah Ad Ac Ks 2d 3c"))
    weak = features.equity(parse_cards("7s 5h 4d 3c 9s 2d Jc"))
    assert strong > 0.99 and weak < 0.1
    tens = parse_cards("Ts Th 4d 5c 8s 2d Jc")
    assert features.equity(tens, 3) < features.equity(tens)  # three opponents beat a pair more often than one


def test_the_draw_abstraction_names_legal_draws() -> None:
    cards = parse_cards("As Ks 7s 2s 9d 9c 3h")
    choice = features.draw_choices(cards)
    discards = {k: [cards[p] for p in encoding.DISCARDS[i - encoding.DRAW_BASE]] for k, i in choice.items()}
    assert sorted(discards["best"]) == sorted(parse_cards("9d 9c 3h"))
    assert sorted(discards["draw"]) == sorted(parse_cards("9d 9c 3h"))
    assert sorted(discards["made"]) == sorted(parse_cards("Ks 7s 2s 3h"))  # the nines and the ace stay
    rng = np.random.default_rng(1)
    for _ in range(500):
        hand = [int(c) for c in rng.choice(52, 7, replace=False)]
        for i in features.draw_choices(hand).values():
            assert encoding.DRAW_BASE <= i < encoding.N_ACTIONS  # at most four discards (R4.1)


def test_best_keep_has_one_home() -> None:
    from bots import _cards

    hand = parse_cards("As Ks 7s 2s 9d 9c 3h")
    assert _cards.smart_keep(hand) == best_keep(hand)
    assert not hasattr(_cards, "_flush_draw")  # the bots' copy is gone: they ask the evaluator


def test_check_env_passes_with_features() -> None:
    g = SingleAgentEnv([random_policy()], illegal="default", features=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(g)
    assert [str(w.message) for w in caught if "not having a spec" not in str(w.message)] == []


def test_vector_rows_carry_the_features() -> None:
    venv = VectorEnv(3, num_players=2, features=True)
    views, info = venv.reset(seed=6)
    assert venv.observation_space.contains(views)
    for i, t in enumerate(venv.tables):
        assert np.array_equal(views["observation"][i], t.observe(f"player_{info['seat'][i]}")["observation"])


def test_as_bot_with_features_sees_what_the_environment_shows() -> None:
    assert_as_bot_sees_the_environments_view([GameConfig(), GameConfig(structure="fixed-limit", cap=4)], 78,
                                             features=True)


@pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's advice to flatten Dict observations
@pytest.mark.parametrize("n", [2, 3])
def test_pettingzoo_tests_pass_with_features_and_render(n: int) -> None:
    from pettingzoo.test import api_test, render_test, seed_test

    from harness.rl import env

    api_test(env(num_players=n, starting_stack=300, features=True), num_cycles=200, verbose_progress=False)
    seed_test(lambda: env(num_players=n, starting_stack=300, features=True), num_cycles=60)
    render_test(lambda render_mode=None: env(num_players=n, render_mode=render_mode))


def test_improving_cards_counts_as_evaluate_does() -> None:
    from harness.engine.errors import CardError
    from harness.engine.evaluator import evaluate, improving_cards

    rng = np.random.default_rng(9)
    for _ in range(2000):
        hand = [int(c) for c in rng.choice(52, 7, replace=False)]
        rest, now = hand[:6], evaluate(hand) >> 20
        slow = sum(1 for c in range(52) if c not in hand[:6] and evaluate([*rest, c]) >> 20 > now)
        assert improving_cards(rest, now) == slow, hand
    with pytest.raises(CardError):
        improving_cards([1, 1, 2, 3], 0)
