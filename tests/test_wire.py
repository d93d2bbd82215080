"""The referee's per-hand encoder (harness.match.wire) gives exactly the codec's bytes.

Every request, hand_start and hand_end of random hands (2-6 seats, both structures,
antes, ante-only games, per-seat replacements, short stacks that go all-in, draws of
0-4 cards) is compared byte for byte with ``protocol.codec`` fed the engine's
observation: the wire is the same whichever path built it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.engine.cards import CARD_STRS
from harness.match.wire import HandWire, MatchWire, encode_hand_end_of
from protocol import codec
from tests.engine_helpers import CONFIGS


def _play_and_compare(config: GameConfig, seats: int, seed: int, decision_ms: int) -> int:
    """Play one random hand, comparing every message; return the number of requests compared."""
    rng = random.Random(seed)
    stacks = [rng.choice((3, 40, 1000, 25_000)) for _ in range(seats)]
    stacks = [max(s, config.ante + config.unit + 1) for s in stacks]
    state = HandState.start(config, stacks, rng.randrange(seats), rng.getrandbits(64), rng.randrange(10**6))
    wire = HandWire(MatchWire(config, decision_ms), state)
    names = [f"bot{i}" for i in range(seats)]
    for s in range(seats):
        hole = [CARD_STRS[c] for c in state.hole_cards[s]]
        expected = codec.encode_hand_start(state.hand_id, s, state.button, names, stacks, hole)
        assert wire.hand_start(s, names, stacks) == expected
    asked = 0
    while state.to_act is not None:
        s, legal, draw = state.to_act, state.legal(), state.phase == "draw"
        seq, bank = rng.randrange(1, 2**40), rng.randrange(0, 40_000)
        expected = codec.encode_request(
            draw, seq, state.observation(s), legal.actions, legal.call_amount, legal.min_to, legal.max_to,
            legal.max_discards, decision_ms, bank,
        )
        assert wire.request(draw, seq, s, legal, bank) == expected, (state.phase, s, asked)
        asked += 1
        if draw:
            state.apply(Action(ActionKind.DRAW, 0, tuple(rng.sample(state.cards[s], rng.randint(0, 4)))))
        else:
            kind = rng.choice(legal.actions)
            to = rng.choice((legal.min_to, legal.max_to)) if kind in ("bet", "raise") else 0
            state.apply(Action(kind, to))
    assert wire.hand_end() == encode_hand_end_of(state, state.hand_id)
    return asked


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.structure}-ante{c.ante}-{c.replacements}")
def test_every_message_of_random_hands_is_the_codecs(config: GameConfig) -> None:
    most = 4 if config.replacements == "per-seat" else 6  # R4.4
    asked = sum(_play_and_compare(config, 2 + i % (most - 1), i, 1000) for i in range(60))
    assert asked > 200


@settings(max_examples=150, deadline=None)
@given(
    config=st.sampled_from(CONFIGS), seats=st.integers(2, 6), seed=st.integers(0, 2**32),
    decision_ms=st.integers(1, 2**31),
)
def test_messages_equal_the_codecs_property(config: GameConfig, seats: int, seed: int, decision_ms: int) -> None:
    if config.replacements == "per-seat":
        seats = min(seats, 4)  # R4.4
    _play_and_compare(config, seats, seed, decision_ms)


def test_a_long_history_uses_the_longer_array_headers() -> None:
    """Past 15 events the history array takes a 3-byte header; past 63 the cache of headers ends."""
    config = GameConfig(structure="fixed-limit", cap=0)
    state = HandState.start(config, [10**6, 10**6], 0, 7, 1)
    wire = HandWire(MatchWire(config, 1000), state)
    for _ in range(80):  # raise and re-raise: one event each
        legal = state.legal()
        s = state.to_act
        expected = codec.encode_request(
            False, 1, state.observation(s), legal.actions, legal.call_amount, legal.min_to, legal.max_to,
            legal.max_discards, 1000, 0,
        )
        assert wire.request(False, 1, s, legal, 0) == expected
        state.raise_to(legal.min_to)
    assert len(state.history) > 64
