"""Deuce-to-Seven Triple Draw, the hand state machine (RULES.md R8): worked examples E23-E25, hypothesis
properties (chips conserved, no card in two places), and the same hands played in PokerKit.

The PokerKit test plays a few hundred random seeded hands in both (tools/pokerkit_triple_draw.py, which
also runs many more); without pokerkit (the ``test`` extra installs it) it is skipped loudly.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine.actions import Action, ActionKind
from harness.engine.cards import DECK_SIZE, parse_cards
from harness.engine.config import GameConfig
from harness.engine.errors import GameConfigError, IllegalActionError
from harness.engine.tripledraw import TripleDrawHand
from tests.skip_helpers import skip_loudly

FOLD, CHECK, CALL, BET, RAISE, DRAW = (
    ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE, ActionKind.DRAW,
)
FIXED = GameConfig(structure="fixed-limit")
TOOL = Path(__file__).resolve().parents[1] / "tools" / "pokerkit_triple_draw.py"


def deck(hands: list[str], button: int) -> list[int]:
    """A deck that deals ``hands[s]`` to seat s, one card at a time from left of the button (R2.7)."""
    n = len(hands)
    order = [-1] * (5 * n)
    for s, hand in enumerate(hands):
        for i, c in enumerate(parse_cards(hand)):
            order[(s - button - 1) % n + i * n] = c
    return order + [c for c in range(DECK_SIZE) if c not in order]


def play(hand: TripleDrawHand, *moves: tuple[int, ActionKind, int]) -> None:
    for seat, kind, amount in moves:
        assert hand.to_act == seat, (hand.to_act, seat, kind)
        hand.apply(Action(kind, amount))


def stand_pat_all(hand: TripleDrawHand) -> None:
    while str(hand.phase) == "draw":
        hand.draw([])


def where_cards_are(hand: TripleDrawHand) -> list[int]:
    """Every card: held, still in the stock (deck and reshuffled stock), or in the muck."""
    held = [c for cards in hand.cards for c in cards]
    stock = hand._deck.upto(DECK_SIZE)[hand._pos:] + hand._stock
    return sorted(held + stock + hand._muck)


def test_e23_heads_up_order_and_sizes() -> None:
    hand = TripleDrawHand.start(FIXED, [1000, 1000], button=0, seed=3)
    assert hand.to_act == 0 and hand.legal().min_to == hand.legal().max_to == 20
    play(hand, (0, RAISE, 20), (1, RAISE, 30), (0, RAISE, 40))
    assert RAISE not in hand.legal().actions  # cap 4: 10, 20, 30, 40
    play(hand, (1, CALL, 0))
    for bet in (10, 20, 20):
        assert hand.to_act == 1 and str(hand.phase) == "draw"  # each draw serves seat 1 first
        stand_pat_all(hand)
        assert hand.to_act == 1 and hand.legal().min_to == bet
        play(hand, (1, BET, bet), (0, CALL, 0))
    assert hand.is_complete and hand.result().pots[0].amount == 80 + 20 + 40 + 40


def test_e24_the_muck_is_reshuffled_and_no_card_is_held_twice() -> None:
    hand = TripleDrawHand.start(FIXED, [1000] * 6, button=5, seed=11)
    play(hand, *[(s, CALL, 0) for s in (2, 3, 4, 5, 0)], (1, CHECK, 0))
    for s in range(6):
        assert hand.to_act == s
        hand.draw(list(hand.cards[s]))
    log = [e for e in hand.action_log() if e[1] is DRAW]
    assert [len(e[3]) for e in log] == [5] * 6
    assert [e[4] for e in log] == [0, 0, 0, 0, 3, 5]  # the fifth: 2 from the stock, 3 from the new one
    assert where_cards_are(hand) == list(range(DECK_SIZE))
    held = [c for cards in hand.cards for c in cards]
    assert len(set(held)) == 30
    fifth_threw = set(log[4][2])
    assert not fifth_threw & set(log[4][3])  # never its own discards


def test_e25_a_hand_to_the_low_showdown() -> None:
    hands = ["Kc Kd Qh Js 9c", "8h 6d 4c 3s 2h", "7h 5d 4s 3c 2d"]
    hand = TripleDrawHand.start(FIXED, [1000] * 3, button=0, seed=1, deck=deck(hands, button=0))
    play(hand, (0, RAISE, 20), (1, CALL, 0), (2, CALL, 0))
    stand_pat_all(hand)
    play(hand, (1, BET, 10), (2, CALL, 0), (0, CALL, 0))
    stand_pat_all(hand)
    play(hand, (1, BET, 20), (2, RAISE, 40), (0, FOLD, 0), (1, CALL, 0))
    assert hand.cards[0] == []  # a folded hand is in the muck
    stand_pat_all(hand)
    play(hand, (1, CHECK, 0), (2, BET, 20), (1, CALL, 0))
    result = hand.result()
    assert result.net == (-30, -90, 120)
    assert [p.amount for p in result.pots] == [210] and result.pots[0].winners == (2,)


def test_draws_of_five_and_no_more() -> None:
    hand = TripleDrawHand.start(FIXED, [100, 100], button=0, seed=5)
    play(hand, (0, CALL, 0), (1, CHECK, 0))
    assert hand.legal().max_discards == 5
    with pytest.raises(IllegalActionError, match="R4.1"):
        hand.apply(Action(DRAW, discards=(*hand.cards[1], hand.cards[0][0])))
    hand.draw(list(hand.cards[1]))
    assert len(hand.cards[1]) == 5


@pytest.mark.parametrize(("stacks", "config", "rule"), [
    ([100] * 7, FIXED, "R6.8"),
    ([100], FIXED, "R6.8"),
    ([100, 100], GameConfig(blinds=False, ante=1, min_bet=10), "R8.1"),
    ([100, 100], GameConfig(replacements="per-seat"), "R6.9"),
])
def test_tables_the_game_refuses(stacks: list[int], config: GameConfig, rule: str) -> None:
    with pytest.raises(GameConfigError, match=rf"^{rule}"):
        TripleDrawHand.start(config, stacks, button=0, seed=1)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), fixed=st.booleans(), ante=st.integers(0, 3),
       stacks=st.lists(st.integers(1, 400), min_size=6, max_size=6))
def test_chips_are_conserved_and_no_card_is_in_two_places(seed: int, n: int, fixed: bool, ante: int,
                                                          stacks: list[int]) -> None:
    config = GameConfig(structure="fixed-limit" if fixed else "no-limit", ante=ante)
    hand = TripleDrawHand.start(config, stacks[:n], button=seed % n, seed=seed)
    rng = random.Random(seed)
    total = sum(stacks[:n])
    while not hand.is_complete:
        legal = hand.legal()
        kind = rng.choice(legal.actions)
        seat = hand.to_act
        assert seat is not None
        if kind is DRAW:
            hand.draw(rng.sample(hand.cards[seat], rng.randint(0, 5)))
        elif kind in (BET, RAISE):
            hand.apply(Action(kind, rng.randint(legal.min_to, legal.max_to)))
        else:
            hand.apply(Action(kind))
        assert where_cards_are(hand) == list(range(DECK_SIZE))
        assert all(not hand.cards[s] for s in range(n) if hand.folded[s])
        if not hand.is_complete:  # once paid out, the chips are in the stacks
            assert sum(hand.stacks) + sum(hand.contrib) == total
    result = hand.result()
    assert sum(result.final_stacks) == total and sum(result.net) == 0
    assert hand.betting_round <= 4


def _tool():  # noqa: ANN202
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        skip_loudly("pokerkit is not installed (pip install -e '.[test]'): the PokerKit cross-check of "
                    "Deuce-to-Seven Triple Draw did not run")
    spec = importlib.util.spec_from_file_location("pokerkit_triple_draw", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_hands_play_out_as_in_pokerkit() -> None:
    outcomes = _tool().run(300, 0)
    assert len(outcomes) == 300
    differ = [(o.seed, o.mismatch) for o in outcomes if o.mismatch and not o.by_design]
    assert differ == []
    assert sum(1 for o in outcomes if not o.mismatch) >= 270  # most hands use no rule played otherwise
    assert {o.structure for o in outcomes} == {"fixed-limit", "no-limit"}


def test_no_limit_later_rounds_open_at_the_big_blind() -> None:
    """R6.6: the doubled first bet after the draw is Seven Card Draw's only; here every round opens at the big blind."""
    hand = TripleDrawHand.start(GameConfig(), [1000, 1000], button=0, seed=2)
    play(hand, (0, RAISE, 30), (1, CALL, 0))
    stand_pat_all(hand)
    legal = hand.legal()
    assert (legal.min_to, legal.max_to) == (10, 970)
    play(hand, (1, BET, 10), (0, RAISE, 20))
    assert hand.legal().min_to == 30  # a raise of at least the last full raise (R3.6)
