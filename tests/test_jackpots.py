"""Five Card Draw with openers, the hand state machine (RULES.md R7): worked examples E18, E19, E21 and
hypothesis properties (chips conserved, cards never repeated, passed-out deals carry their antes)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine.actions import Action, ActionKind
from harness.engine.cards import parse_cards
from harness.engine.config import GameConfig
from harness.engine.errors import GameConfigError, IllegalActionError, InvalidActionError
from harness.engine.games import Openers
from harness.engine.jackpots import JackpotHand, foul_refunds

FOLD, CHECK, CALL, BET, RAISE, DRAW = (
    ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE, ActionKind.DRAW,
)
FIXED = GameConfig(structure="fixed-limit", blinds=False, ante=1, min_bet=10)
NO_LIMIT = GameConfig(blinds=False, ante=1, min_bet=10)
NOTHING = ["2c 4d 6h 8s Tc", "3c 5d 7h 9s Qc", "2d 4h 6s 8c Td", "3d 5h 7s 9c Qd", "2h 4s 6c 8d Th",
           "3h 5s 7c 9d Qh", "2s 4c 6d 8h Ts", "3s 5c 7d 9h Qs"]  # no openers under "jacks"


def deck(hands: list[str], button: int) -> list[int]:
    """A deck that deals ``hands[s]`` to seat s, one card at a time from left of the button (R2.7)."""
    n = len(hands)
    order = [-1] * (5 * n)
    for s, hand in enumerate(hands):
        for i, c in enumerate(parse_cards(hand)):
            order[(s - button - 1) % n + i * n] = c
    return order + [c for c in range(52) if c not in order]


def play(hand: JackpotHand, *moves: tuple[int, ActionKind, int]) -> None:
    for seat, kind, amount in moves:
        assert hand.to_act == seat, (hand.to_act, seat, kind)
        hand.act(Action(kind, amount))


def test_e18_a_passed_out_deal_carries_its_antes() -> None:
    hands = NOTHING[:5]
    first = JackpotHand.start(FIXED, [100] * 5, button=0, seed=1, deck=deck(hands, 0))
    play(first, (1, CHECK, 0), (2, CHECK, 0), (3, CHECK, 0), (4, CHECK, 0), (0, CHECK, 0))
    r1 = first.result()
    assert r1.passed_out and r1.carried_out == 5 and r1.net == (-1,) * 5 and r1.pots == ()
    hands[3] = "Jc Jd Kc Ah 9h"
    second = JackpotHand.start(FIXED, list(r1.final_stacks), button=1, seed=2, carried=5, deck=deck(hands, 1))
    assert sum(second.contrib) + second.carried == 10  # the pot before any bet
    play(second, (2, CHECK, 0), (3, BET, 10), (4, FOLD, 0), (0, FOLD, 0), (1, FOLD, 0), (2, FOLD, 0))
    r2 = second.result()
    assert r2.uncalled == ((3, 10),) and r2.pots[0].amount == 10 and r2.opener == 3
    assert [a + b for a, b in zip(r1.net, r2.net, strict=True)] == [-2, -2, -2, 8, -2]
    assert r2.carried_out == 0 and sum(r2.net) == 5  # the carried chips came back into play


def test_r7_3_no_bet_without_openers() -> None:
    hand = JackpotHand.start(FIXED, [100] * 3, button=0, seed=1, deck=deck(NOTHING[:3], 0))
    assert hand.legal().actions == (FOLD, CHECK)
    with pytest.raises(IllegalActionError, match=r"R7\.3: opening needs openers"):
        hand.act(Action(BET, 10))
    assert hand.to_act == 1 and hand.opener is None  # refused: nothing changed
    jack_card = JackpotHand.start(FIXED, [100] * 3, button=0, seed=1, rule=Openers.JACK_CARD,
                                  deck=deck(["2c 4d 6h 8s Tc", "3c 5d 7h 9s Qc", "2d 4h 6s 8c Td"], 0))
    assert jack_card.legal().actions == (FOLD, CHECK, BET)  # Q high opens under "jack-card"


def _e19(opener_folds: bool) -> JackpotHand:
    hands = NOTHING[:4]
    hands[2] = "Jc Jd 4c 6c 9h"
    hand = JackpotHand.start(FIXED, [100] * 4, button=0, seed=5, deck=deck(hands, 0))
    play(hand, (1, CHECK, 0), (2, BET, 10), (3, RAISE, 20), (0, FOLD, 0), (1, CALL, 0))
    play(hand, (2, FOLD if opener_folds else CALL, 0))
    return hand


def test_e19_the_opener_acts_first_after_the_draw() -> None:
    hand = _e19(opener_folds=False)
    assert hand.phase == "draw"
    for seat in (1, 2, 3):  # left of the button, the button last (R7.5)
        assert hand.to_act == seat
        hand.act(Action(DRAW, discards=tuple(hand.cards[seat][:3])))
    assert hand.to_act == 2 and hand.legal().min_to == hand.legal().max_to == 20  # the big bet
    assert hand.proof == tuple(parse_cards("Jd Jc"))


def test_e19_when_the_opener_folded_the_next_player_left_of_it_acts_first() -> None:
    hand = _e19(opener_folds=True)
    hand.act(Action(DRAW))
    hand.act(Action(DRAW))
    assert hand.to_act == 3 and hand.phase == "bet2"


def test_e20_split_openers_may_be_discarded() -> None:
    hands = NOTHING[:2]
    hands[1] = "Jh Js Th 9h 8h"
    hand = JackpotHand.start(NO_LIMIT, [100] * 2, button=0, seed=3, deck=deck(hands, 0))
    play(hand, (1, BET, 10), (0, CALL, 0))
    hand.act(Action(DRAW, discards=tuple(parse_cards("Js"))))
    assert hand.proof == tuple(parse_cards("Js Jh")) and parse_cards("Js")[0] not in hand.cards[1]


def test_e21_a_foul_hand_returns_all_but_the_antes() -> None:
    assert foul_refunds([22, 22, 22, 2], [2] * 4, [True, True, True, False]) == ((20, 20, 20, 0), 8)


def test_a_draw_of_cards_not_held_is_refused() -> None:
    hand = JackpotHand.start(NO_LIMIT, [100] * 2, button=0, seed=3, deck=deck(["2c 4d 6h 8s Tc", "Jh Js Th 9h 8h"], 0))
    play(hand, (1, BET, 10), (0, CALL, 0))
    with pytest.raises(InvalidActionError, match=r"^R7\.1: seat 1 may discard 0 to 5"):
        hand.act(Action(DRAW, discards=(0,)))


@pytest.mark.parametrize(("stacks", "config", "rule"), [
    ([100] * 9, FIXED, "R6.8"), ([100], FIXED, "R6.8"), ([100, 100], GameConfig(), "R7.1"), ([100, 0], FIXED, "R1.4"),
])
def test_tables_the_game_refuses(stacks: list[int], config: GameConfig, rule: str) -> None:
    with pytest.raises(GameConfigError, match=rf"^{rule}"):
        JackpotHand.start(config, stacks, button=0, seed=1)


def random_deal(hand: JackpotHand, rng: random.Random) -> None:
    """Random legal actions to the end, checking after each that every card is in one place (R1.1)."""
    while not hand.is_complete:
        legal = hand.legal()
        kind = rng.choice(legal.actions)
        seat = hand.to_act
        assert seat is not None
        if kind == DRAW:
            held = hand.cards[seat]
            action = Action(DRAW, discards=tuple(rng.sample(held, rng.randint(0, 5))))
        else:
            action = Action(kind, rng.randint(legal.min_to, legal.max_to) if kind in (BET, RAISE) else 0)
        hand.act(action)
        held = [c for s in range(hand.n) for c in hand.cards[s]]  # a folded seat holds nothing (in the muck)
        assert sorted(held + hand._stock + hand._muck) == list(range(52))
        if not hand.is_complete:
            assert sum(hand.stacks) + sum(hand.contrib) == sum(hand.initial)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 8), fixed=st.booleans(),
       stacks=st.lists(st.integers(1, 300), min_size=8, max_size=8), ante=st.integers(1, 5))
def test_chips_are_conserved_and_passed_out_deals_carry_their_antes(
        seed: int, n: int, fixed: bool, stacks: list[int], ante: int) -> None:
    config = GameConfig(structure="fixed-limit" if fixed else "no-limit", blinds=False, ante=ante, min_bet=10)
    rng = random.Random(seed)
    chips, carried, button = stacks[:n], 0, 0
    for deal in range(6):  # a table: the carried pot and the button move on, busted seats leave
        hand = JackpotHand.start(config, chips, button=button, seed=seed + deal, carried=carried,
                                 rule=rng.choice(list(Openers)))
        antes = sum(hand.contrib)
        random_deal(hand, rng)
        r = hand.result()
        assert sum(r.net) + r.carried_out == r.carried_in  # R1.4
        assert all(c >= 0 for c in r.final_stacks)
        if r.passed_out:
            assert r.carried_out == carried + antes and r.opener is None  # R7.4
        else:
            assert r.carried_out == 0 and sum(p.amount for p in r.pots) == carried + sum(hand.contrib)
        carried = r.carried_out
        chips = [c for c in r.final_stacks if c > 0]
        button = (button + 1) % max(1, len(chips))
        if len(chips) < 2:
            break


def test_r7_4_a_deal_where_one_player_can_act_is_not_passed_out() -> None:
    """Seats 1 and 2 are all-in on their antes: nobody is asked to open, the deal goes to the draw (R3.4)."""
    hand = JackpotHand.start(FIXED, [100, 1, 1], button=0, seed=4, deck=deck(NOTHING[:3], 0))
    assert hand.phase == "draw" and hand.to_act == 1
    for _ in range(3):
        hand.act(Action(DRAW))
    r = hand.result()
    assert not r.passed_out and r.carried_out == 0 and [p.amount for p in r.pots] == [3] and len(r.shown) == 3


def test_no_limit_raises_are_at_least_the_last_raise() -> None:
    hands = NOTHING[:3]
    hands[1] = "Ac Ad 4c 6c 9h"
    hand = JackpotHand.start(NO_LIMIT, [500] * 3, button=0, seed=6, deck=deck(hands, 0))
    assert hand.legal().min_to == 10 and hand.legal().max_to == 499  # the least bet is min_bet (R6.6)
    play(hand, (1, BET, 30), (2, RAISE, 80))
    assert (hand.legal().min_to, hand.legal().max_to) == (130, 499)
    with pytest.raises(IllegalActionError, match=r"may raise to 130\.\.499, got 120"):
        hand.act(Action(RAISE, 120))
