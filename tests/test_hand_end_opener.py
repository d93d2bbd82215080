"""``hand_end.opener`` (PROTOCOL.md, RULES.md R7.7): at the end of a deal of Five Card Draw that someone opened,
every bot learns who opened and the openers shown; the key is absent in every other game and in a deal passed
out, so Seven Card Draw's bytes are those of before. The referee's fast encoder, the codec, the SDK's parsed view,
the message-size bound and the human seat all agree."""

from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine import GameConfig, HandState
from harness.engine.cards import CARD_STRS
from harness.engine.games import FIVE_CARD_DRAW, SEVEN_CARD_DRAW, Openers, start_hand, with_openers
from harness.match.msgsize import largest_message_bytes
from harness.match.wire import HandWire, MatchWire, encode_hand_end_of
from harness.play.table import TableView
from protocol import codec
from protocol.errors import ProtocolError
from protocol.messages import (
    CATEGORY_NAMES,
    ActRequest,
    GameSettings,
    HandEnd,
    HandStart,
    Legal,
    MatchLimits,
    MatchStart,
    Opened,
    PotResult,
    TimeLeft,
)
from protocol.sdk import _hand_end_of
from tests.draw_game_helpers import play_out

ANTES = GameConfig(blinds=False, ante=1, min_bet=2)



def _old_layout(state: HandState, hand_id: int) -> bytes:
    """A ``hand_end`` as it was packed before ``opener`` existed: eight keys, written out here independently."""
    res = state.result()
    return msgpack.packb({
        "type": "hand_end", "v": 1, "hand_id": hand_id, "history": list(state.history),
        "shown": [{"seat": s, "cards": [CARD_STRS[c] for c in state.cards[s]], "five": [CARD_STRS[c] for c in r.five],
                   "category": CATEGORY_NAMES[r.category]} for s, r in res.shown.items()],
        "pots": [{"amount": p.amount, "eligible": list(p.eligible), "winners": list(p.winners),
                  "shares": list(p.shares)} for p in res.pots],
        "net": list(res.net), "stacks": list(res.final_stacks),
    })


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 8), check=st.floats(0, 1),
       rule=st.sampled_from(list(Openers)))
def test_five_card_draw_says_who_opened_and_the_openers_shown(seed: int, seats: int, check: float,
                                                              rule: Openers) -> None:
    definition = with_openers(FIVE_CARD_DRAW, rule)
    state = start_hand(definition, ANTES, [60] * seats, seed % seats, seed)
    play_out(state, random.Random(seed), check)
    fast = HandWire(MatchWire(ANTES, 1000, definition), state).hand_end()
    assert fast == encode_hand_end_of(state, state.hand_id)  # the referee's path = the codec's
    end = codec.decode(fast)
    assert isinstance(end, HandEnd)
    res = state.result()
    if res.opener is None:  # passed out (R7.4), or all in on the antes: no key at all
        assert end.opener is None and b"opener" not in fast
        return
    proof = tuple(CARD_STRS[c] for c in res.proof)
    assert end.opener == Opened(res.opener, proof)
    assert len(proof) == {Openers.NONE: 0, Openers.JACK_CARD: 1}.get(rule, len(proof)) and len(proof) <= 5
    assert _hand_end_of(msgpack.unpackb(fast)) == end  # the SDK's parsed view
    assert codec.decode(codec.encode(end)) == end
    assert len(fast) <= largest_message_bytes(ANTES, seats, 60, definition)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 6), check=st.floats(0, 1))
def test_seven_card_draw_hand_end_bytes_stay_identical(seed: int, seats: int, check: float) -> None:
    config = GameConfig()
    state = start_hand(SEVEN_CARD_DRAW, config, [200] * seats, seed % seats, seed)
    play_out(state, random.Random(seed), check)
    fast = HandWire(MatchWire(config, 1000), state).hand_end()
    assert fast == encode_hand_end_of(state, state.hand_id) == _old_layout(state, state.hand_id)
    assert codec.decode(fast).opener is None  # type: ignore[union-attr]


def _end_map(**opener: object) -> dict[str, object]:
    return {"type": "hand_end", "v": 1, "hand_id": 0, "history": [], "shown": [],
            "pots": [{"amount": 4, "eligible": [1], "winners": [1], "shares": [4]}], "net": [-1, 2, -1],
            "stacks": [9, 12, 9], **opener}


@pytest.mark.parametrize(("opener", "field"), [
    (None, "opener"),
    ({"seat": 1}, "opener.cards"),
    ({"seat": 1, "cards": ["Jh", "Jc"], "shown": True}, "opener.shown"),
    ({"seat": 8, "cards": ["Jh", "Jc"]}, "opener.seat"),
    ({"seat": 1, "cards": ["Jh", "Jc", "Qh", "Qc", "Qs", "2c"]}, "opener.cards"),
    ({"seat": 1, "cards": ["Jx"]}, "opener.cards[0]"),
])
def test_the_codec_refuses_a_bad_opener_naming_the_field(opener: object, field: str) -> None:
    with pytest.raises(ProtocolError) as info:
        codec.decode(msgpack.packb(_end_map(opener=opener)))
    assert info.value.field == field, str(info.value)


def test_a_five_card_draw_bound_counts_the_opener() -> None:
    """The bound of section 7 holds the widest hand_end with five openers shown (R7.7)."""
    for seats in (2, 8):
        wide = codec.encode_hand_end(
            2**31, [], [(s, CARD_STRS[:7], CARD_STRS[:5], "three_of_a_kind") for s in range(seats)],
            [(2**40, list(range(seats)), list(range(seats)), [2**40] * seats)] * seats, [-(2**40)] * seats,
            [2**40] * seats, (seats - 1, CARD_STRS[:5]))
        assert len(wide) <= largest_message_bytes(ANTES, seats, 2**40, FIVE_CARD_DRAW)


def test_the_human_seat_shows_another_players_openers() -> None:
    view = TableView()
    game = GameSettings.of(ANTES, FIVE_CARD_DRAW.name)
    view.update(MatchStart("m", 0, ("me", "b1", "b2"), game, 1, 100, "reset", MatchLimits(1000, 0, 1000, 3, 65536)))
    cards = ["2c", "3d", "5h", "8s", "9c"]
    view.update(HandStart(0, 0, 0, ("me", "b1", "b2"), (100, 100, 100), tuple(cards)))
    antes = [{"seat": s, "action": "ante", "amount": 1} for s in range(3)]
    state = {"cards": cards, "phase": "bet1", "history": [*antes, {"seat": 1, "action": "bet", "amount": 2}],
             "stacks": [99, 97, 99], "bets": [0, 2, 0], "folded": [False] * 3, "all_in": [False] * 3,
             "draws": [0] * 3, "openers": "jacks", "carried": 0}
    view.update(ActRequest(seq=1, state=state, legal=Legal(("fold", "call", "raise"), 2, 4, 99, 0),
                           time=TimeLeft(1000, 0)))
    state = {**state, "history": [*state["history"], {"seat": 2, "action": "fold"}]}
    view.update(ActRequest(seq=2, state=state, legal=Legal(("fold", "call", "raise"), 2, 4, 99, 0),
                           time=TimeLeft(1000, 0)))
    end = HandEnd(0, (*state["history"], {"seat": 0, "action": "fold"}), (), (PotResult(5, (1,), (1,), (5,)),),
                  (-1, 2, -1), (99, 102, 99), opener=Opened(1, ("Jh", "Jc")))
    lines = view.update(codec.decode(codec.encode(end)))
    assert "b1 shows their openers: Jh Jc (R7.7)" in lines, lines
    assert view.snapshot()["openers"]["proof"] == ["Jh", "Jc"]
    assert view.snapshot()["openers"]["opener"] == "b1"
