"""The fast RL encodings give exactly what the reference ones give (tests/rl_reference.py), over thousands of
random decisions at 2-6 seats and every game structure, and the vector environment's rows equal single tables'."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy", reason="harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.engine import Action, ActionKind, GameConfig, HandState  # noqa: E402
from harness.rl import encoding  # noqa: E402
from tests import rl_reference as ref  # noqa: E402

GAMES = {
    "no-limit": GameConfig(),
    "fixed-limit": GameConfig(structure="fixed-limit", cap=4),
    "fixed-limit-uncapped": GameConfig(structure="fixed-limit", cap=0),
    "ante-only": GameConfig(blinds=False, ante=2, min_bet=10, small_blind=0, big_blind=0),
    "no-limit-ante-per-seat": GameConfig(ante=1, replacements="per-seat"),
    "big-blinds-ante": GameConfig(small_blind=3, big_blind=6, ante=2),
}


def _reference_action(state: HandState, index: int) -> Action | None:
    """The engine action the reference decoding names for ``index``, None where it refuses it."""
    s = state.to_act
    try:
        kind, arg = ref.decode_of(str(state.phase), state.legal(), state.bets[s], sum(state.contrib), state.cards[s],
                                  index)
    except ValueError:
        return None
    if kind == "draw":
        return Action(ActionKind.DRAW, 0, tuple(arg))
    return Action(ActionKind(kind), arg or 0)


def _check_decision(state: HandState) -> None:
    """Every seat's observation, and the mask and every index's action of the seat to act, against the reference."""
    for seat in range(state.n):
        fast = encoding.observe(state, seat)
        assert fast.dtype == np.float32 and fast.shape == (encoding.obs_size(state.n),)
        assert np.array_equal(fast, ref.observe(state, seat)), (seat, state)
    if state.is_complete:
        assert not encoding.mask(state).any()
        return
    s = state.to_act
    bet, pot = state.bets[s], sum(state.contrib)
    expected = ref.mask_of(str(state.phase), state.legal(), bet, pot)
    assert np.array_equal(encoding.mask(state), expected)
    assert np.array_equal(encoding.mask_of(str(state.phase), state.legal(), bet, pot), expected)
    found = encoding.decision(state)
    for index in range(-1, encoding.N_ACTIONS + 1):
        want = _reference_action(state, index)
        if want is None:
            assert not (0 <= index < encoding.N_ACTIONS and expected[index])
            with pytest.raises(ValueError):
                encoding.action_of(state, found, index)
            with pytest.raises(ValueError):
                encoding.decode(state, index)
        else:
            assert expected[index] == 1
            assert encoding.action_of(state, found, np.int64(index)) == want
            assert encoding.decode(state, index) == ref.decode_of(str(state.phase), state.legal(), bet, pot,
                                                                  state.cards[s], index)


def _play(config: GameConfig, n: int, stacks: list[int], seed: int, choice: random.Random) -> int:
    """Play one hand by random legal indices, checking every decision; returns how many were checked."""
    state = HandState.start(config, stacks, seed % n, seed)
    checked = 0
    while True:
        _check_decision(state)
        checked += 1
        if state.is_complete:
            return checked
        legal = np.flatnonzero(encoding.mask(state))
        state.apply(encoding.action_of(state, encoding.decision(state), int(choice.choice(legal.tolist()))))


@pytest.mark.slow
def test_fast_encodings_equal_the_reference_over_thousands_of_decisions() -> None:
    choice = random.Random(2027)
    checked = 0
    for hand in range(1000):
        n = 2 + hand % 5
        game = list(GAMES)[hand % len(GAMES)]
        config = GAMES[game]
        if n > 4 and config.replacements == "per-seat":
            config = GameConfig(ante=1)
        stacks = [choice.choice([1, 9, 15, 40, 300, 1000]) for _ in range(n)]  # short stacks: all-ins, side pots
        checked += _play(config, n, stacks, hand * 7919 + 13, choice)
    assert checked > 8000  # 1,000 hands, about 8,200 decisions


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), n=st.integers(2, 6), game=st.sampled_from(list(GAMES)),
       stacks=st.lists(st.integers(1, 2000), min_size=6, max_size=6), choice=st.randoms(use_true_random=False))
def test_fast_encodings_equal_the_reference_for_any_deal(seed: int, n: int, game: str, stacks: list[int],
                                                        choice: random.Random) -> None:
    config = GAMES[game]
    if n > 4 and config.replacements == "per-seat":
        config = GameConfig()
    _play(config, n, stacks[:n], seed, choice)


def test_masks_are_rows_of_one_read_only_table() -> None:
    state = HandState.start(GameConfig(), [1000, 1000], 0, 7)
    m = encoding.mask(state)
    m[:] = 0  # a caller's copy: changing it changes no later mask
    assert encoding.mask(state).any()
    with pytest.raises(ValueError):
        encoding.MASKS[0, 0] = 1
    assert encoding.MASKS.shape == (encoding.NONE_KEY + 1, encoding.N_ACTIONS)
    assert not encoding.MASKS[encoding.NONE_KEY].any() and encoding.MASKS[encoding.DRAW_KEY].sum() == 99
