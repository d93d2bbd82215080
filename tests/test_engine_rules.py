"""The rules of RULES.md as tests: worked examples E1-E10 with their exact numbers, and the
other cases the engine issue lists (side pots, odd chips, minimum raises, antes, short posts,
fixed-limit cap, showing order, uncalled chips)."""

from __future__ import annotations

import random

import pytest

from harness.engine import (
    Action,
    ActionKind,
    Category,
    GameConfig,
    HandState,
    IllegalActionError,
    best_hand,
    cards_str,
    parse_cards,
)
from harness.engine.pots import build_pots, split_pot
from harness.history.v1 import build_record
from tests.engine_helpers import check_down, new_hand, snapshot, stand_pat_all

# Every hand of these tests is played again mirrored in the native core (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("both_engines")

FOLD, CHECK, CALL, BET, RAISE, DRAW = (
    ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE, ActionKind.DRAW,
)

QUADS = "Ac Ad Ah As Kc 2d 3d"
FULL_HOUSE = "Kd Kh Ks Qc Qd 4c 5c"
FLUSH = "2h 4h 6h 8h Th 3s 5s"
NINE_HIGH = "2c 3c 4d 5d 7s 8s 9s"


def test_e1_minimum_first_bet_after_the_draw_is_twice_round_one() -> None:
    # 4 players, button 0: SB 1, BB 2, first to act 3.
    state = new_hand([1000] * 4, button=0)
    state.raise_to(20)
    state.call()
    state.fold()
    state.call()
    stand_pat_all(state)
    assert state.phase == "bet2" and state.to_act == 2  # first still in, left of the button
    legal = state.legal()
    assert legal.actions == (FOLD, CHECK, BET) and legal.min_to == 40 and legal.max_to == 980
    with pytest.raises(IllegalActionError, match="R3.6"):
        state.bet(39)
    state.bet(40)

    unraised = new_hand([1000] * 4, button=0)
    unraised.call(), unraised.call(), unraised.call(), unraised.check()
    stand_pat_all(unraised)
    assert unraised.legal().min_to == 20


def test_e2_full_house_beats_the_flush_at_showdown() -> None:
    state = new_hand([100, 100], hands=["9s 9d 9c 5h 5s Kc 2d", "8d 7d 6d 5d 4c Kd 2s"])
    state.call()
    state.check()
    check_down(state)
    result = state.result()
    assert result.net == (10, -10)
    assert result.pots[0].winners == (0,)
    assert set(cards_str(result.shown[0].five)) == {"9s", "9d", "9c", "5h", "5s"}
    assert set(cards_str(result.shown[1].five)) == {"Kd", "8d", "7d", "6d", "5d"}
    assert result.shown[1].category is Category.FLUSH


def test_e3_straights() -> None:
    def value(text: str) -> int:
        return best_hand(parse_cards(text)).value

    assert value("Ad 2c 3h 4s 5d") < value("2d 3c 4h 5s 6d")
    assert value("Ah Kh Qh Jh Th") > value("9s 8s 7s 6s 5s")
    assert best_hand(parse_cards("Qs Kd Ah 2c 3d")).category is Category.HIGH_CARD


def test_e4_odd_chip_goes_left_of_the_button() -> None:
    assert split_pot(25, [1, 2], button=0, n=3) == ((1, 2), (13, 12))
    assert split_pot(25, [1, 2], button=1, n=3) == ((2, 1), (13, 12))
    # The same at the table: ante-only game, pot 3 x 5 + 2 x 5 = 25, seats 1 and 2 tie.
    state = new_hand(
        [100, 100, 100],
        button=0,
        hands=["7c 7d 7h 3s 3c 5d 6s", "As Kd Qh Jc 9d 4c 2h", "Ah Ks Qd Jh 9s 4d 2d"],
        blinds=False, ante=5, min_bet=4,
    )
    assert state.to_act == 1  # R2.5: left of the button
    state.bet(5)
    state.call()
    state.fold()
    check_down(state)
    pot = state.result().pots[0]
    assert pot.amount == 25 and pot.winners == (1, 2) and pot.shares == (13, 12)
    assert state.result().net == (-5, 3, 2)


def test_odd_chips_in_a_three_way_split() -> None:
    # 4 players, ante 1, blinds 5/10; seat 3 folds; pot 4 + 30 = 34 split three ways.
    hands = ["Ac Kd Qh Js 2c 3d 8h", "Ad Kh Qs Jc 4c 5d 8s", "Ah Ks Qc Jd 6c 7d 9h", "Th Tc 8c 8d 2h 3h 4h"]
    state = new_hand([100] * 4, button=0, hands=hands, ante=1)
    # First a near miss: seats 0 and 1 tie on A K Q J 8 but seat 2's 9 kicker wins alone.
    state.fold()
    state.call(), state.call(), state.check()
    check_down(state)
    result = state.result()
    ranks = {s: result.shown[s].value for s in result.shown}
    assert len(result.pots) == 1 and result.pots[0].amount == 34
    assert ranks[2] > ranks[0] == ranks[1]
    assert result.pots[0].winners == (2,)

    # Now three equal straights A K Q J T: 34 chips split 12 / 11 / 11 from left of the button.
    hands = ["Ac Kd Qh Js Tc 2d 3h", "Ad Kh Qs Jc Td 4c 5d", "Ah Ks Qc Jd Th 6c 7d", "9h 9c 8c 8d 2h 3c 4h"]
    state = new_hand([100] * 4, button=0, hands=hands, ante=1)
    state.fold()
    state.call(), state.call(), state.check()
    check_down(state)
    pot = state.result().pots[0]
    assert pot.amount == 34 and pot.winners == (1, 2, 0) and pot.shares == (12, 11, 11)
    assert state.result().net == (0, 1, 0, -1)


def test_e5_main_pot_and_side_pot() -> None:
    # A (seat 0, 50), B (seat 1, 100), C (seat 2, 200); button A: SB B, BB C, A acts first.
    state = new_hand([50, 100, 200], button=0, hands=[QUADS, FULL_HOUSE, NINE_HIGH])
    state.raise_to(50)
    assert state.all_in[0]
    state.raise_to(100)
    state.call()
    stand_pat_all(state)
    assert state.is_complete  # R3.4: only C could still act, no betting after the draw
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(150, (0, 1, 2), (0,)), (100, (1, 2), (1,))]
    assert result.net == (100, 0, -100)


def test_three_all_ins_of_different_sizes_make_three_pots() -> None:
    # button 3: SB 0 (30 chips), BB 1 (60), seat 2 (100) acts first, seat 3 (400) covers.
    state = new_hand([30, 60, 100, 400], button=3, hands=[QUADS, FULL_HOUSE, FLUSH, NINE_HIGH])
    state.raise_to(100)
    state.call()
    state.call()
    state.call()
    stand_pat_all(state)
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [
        (120, (0, 1, 2, 3), (0,)),
        (90, (1, 2, 3), (1,)),
        (80, (2, 3), (2,)),
    ]
    assert result.net == (90, 30, -20, -100)
    assert result.final_stacks == (120, 90, 80, 300)


def test_all_in_player_is_eligible_only_for_the_main_pot() -> None:
    # A (seat 0) all-in preflop for 50; B and C keep betting after the draw.
    state = new_hand([50, 1000, 1000], button=2, hands=[QUADS, FULL_HOUSE, NINE_HIGH])
    state.call()  # C (seat 2) calls 10
    state.raise_to(50)  # A all-in
    state.call()
    state.call()
    stand_pat_all(state)
    assert state.to_act == 1  # A is all-in and skipped
    state.bet(100)
    state.call()
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(150, (0, 1, 2), (0,)), (200, (1, 2), (1,))]
    assert result.net == (100, 50, -150)
    assert list(result.shown) == [1, 2, 0]  # R5.7: the round-2 bettor first, then clockwise

    # If C folds to B's bet, B's bet comes back (R3.9) and A still wins the main pot.
    state = new_hand([50, 1000, 1000], button=2, hands=[QUADS, FULL_HOUSE, NINE_HIGH])
    state.call(), state.raise_to(50), state.call(), state.call()
    stand_pat_all(state)
    state.bet(100)
    state.fold()
    result = state.result()
    assert result.uncalled == ((1, 100),)
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(150, (0, 1), (0,))]
    assert result.net == (100, -50, -50)


def test_e6_incomplete_all_in_raise_does_not_reopen_the_betting() -> None:
    state = new_hand([1000, 1000, 45], button=0)
    state.raise_to(30)  # D, a raise of 20
    state.fold()  # small blind
    legal = state.legal()
    assert legal.actions == (FOLD, CALL, RAISE) and legal.min_to == legal.max_to == 45
    state.raise_to(45)  # big blind all-in, a raise of 15
    legal = state.legal()
    assert state.to_act == 0 and legal.actions == (FOLD, CALL) and legal.call_amount == 15
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"R3\.[48]"):
        state.raise_to(65)
    assert snapshot(state) == before
    state.call()
    assert state.phase == "draw"


def test_incomplete_raise_reopens_only_for_players_facing_a_full_raise() -> None:
    # 4 players: seat 3 limps, D (seat 0) raises to 30, SB folds, BB all-in to 45.
    state = new_hand([1000, 1000, 45, 1000], button=0)
    state.call()
    state.raise_to(30)
    state.fold()
    state.raise_to(45)
    # seat 3 acted at 10 and now faces 35 more, at least a full raise (20): may raise
    assert state.to_act == 3 and state.legal().actions == (FOLD, CALL, RAISE)
    assert state.legal().min_to == 65
    state.call()
    # D acted at 30 and faces only 15 more: call or fold (R3.8)
    assert state.to_act == 0 and state.legal().actions == (FOLD, CALL)
    with pytest.raises(IllegalActionError, match=r"R3\.8"):
        state.raise_to(65)


def test_e7_minimum_reraise() -> None:
    state = new_hand([1000, 1000, 1000, 1000], button=0)
    state.raise_to(30)
    assert state.legal().min_to == 50
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="R3.6: raise to 45 is below the minimum 50"):
        state.raise_to(45)
    assert snapshot(state) == before
    state.raise_to(50)
    # ... unless it puts the player all-in
    short = new_hand([45, 1000, 1000, 1000], button=0)  # seat 0 acts after seat 3's raise
    short.raise_to(30)
    legal = short.legal()
    assert short.to_act == 0 and legal.min_to == legal.max_to == 45
    short.raise_to(45)
    assert short.all_in[0]


def test_e8_heads_up_order() -> None:
    state = new_hand([1000, 1000], button=1)
    assert state.history[:2] == [
        {"seat": 1, "action": "small_blind", "amount": 5},
        {"seat": 0, "action": "big_blind", "amount": 10},
    ]
    assert state.to_act == 1  # the button acts first in round 1
    state.call()
    assert state.to_act == 0
    state.check()
    assert state.phase == "draw" and state.to_act == 1  # and draws first
    state.draw([])
    state.draw([])
    assert state.phase == "bet2" and state.to_act == 0  # and acts second in round 2
    state.check()
    assert state.to_act == 1


def test_e9_stock_runs_out_and_the_muck_is_reshuffled() -> None:
    order = random.Random(9).sample(range(52), 52)
    state = HandState.start(GameConfig(), [1000] * 6, 0, 9, deck=order)
    for _ in range(5):
        state.call()
    state.check()
    stock = order[42:]
    assert len(stock) == 10
    players = [3, 4, 5, 0, 1, 2]  # p1..p6, from left of the big blind
    discards, received = {}, {}
    for p in players:
        assert state.to_act == p
        before = list(state.cards[p])
        discards[p] = before[:4]
        state.draw(before[:4])
        received[p] = state.cards[p][3:]
        assert len(state.cards[p]) == 7
    p1, p2, p3, p4, p5, p6 = players
    assert received[p1] == stock[0:4] and received[p2] == stock[4:8]
    assert received[p3][:2] == stock[8:10]
    first_muck = set(discards[p1] + discards[p2])
    second_muck = set(discards[p3] + discards[p4])
    assert set(received[p3][2:]) | set(received[p4]) | set(received[p5][:2]) == first_muck
    rest = set(received[p5][2:]) | set(received[p6])
    assert len(rest) == 6 and rest <= second_muck
    held = [c for p in players for c in state.cards[p]]
    assert len(held) == 42 and len(set(held)) == 42
    assert state.phase == "bet2"


def test_e10_fixed_limit_cap() -> None:
    state = new_hand([1000] * 4, button=0, structure="fixed-limit", small_blind=5, big_blind=10)
    legal = state.legal()
    assert legal.min_to == legal.max_to == 20
    state.raise_to(20)
    state.raise_to(30)
    state.raise_to(40)
    legal = state.legal()
    assert legal.actions == (FOLD, CALL) and legal.call_amount == 30  # big blind, capped
    with pytest.raises(IllegalActionError, match="R3.7"):
        state.raise_to(50)
    state.call(), state.call(), state.call()
    stand_pat_all(state)
    legal = state.legal()
    assert legal.actions == (FOLD, CHECK, BET) and legal.min_to == legal.max_to == 20
    with pytest.raises(IllegalActionError, match="R3.7"):
        state.bet(30)
    state.bet(20)
    state.raise_to(40)
    state.raise_to(60)
    state.raise_to(80)
    assert state.legal().actions == (FOLD, CALL)
    state.call(), state.call(), state.call()
    assert state.is_complete and state.pot == 160 + 320


def test_fixed_limit_incomplete_all_in() -> None:
    # Less than half a bet does not reopen; half a bet or more is a full raise (R3.8).
    state = new_hand([1000, 24, 1000], button=0, structure="fixed-limit")
    state.raise_to(20)
    assert state.legal().min_to == state.legal().max_to == 24
    state.raise_to(24)
    state.call()
    assert state.to_act == 0 and state.legal().actions == (FOLD, CALL)
    state = new_hand([1000, 26, 1000], button=0, structure="fixed-limit")
    state.raise_to(20)
    state.raise_to(26)
    state.call()
    assert state.legal().actions == (FOLD, CALL, RAISE) and state.legal().min_to == 36


def test_minimum_raises_in_both_rounds() -> None:
    state = new_hand([10_000] * 3, button=0)
    assert state.legal().min_to == 20  # R3.6: by at least the big blind
    state.raise_to(30)
    assert state.legal().min_to == 50
    state.raise_to(100)
    assert state.legal().min_to == 170
    state.fold()
    state.call()
    stand_pat_all(state)
    assert state.legal().min_to == 200  # twice round 1's final bet
    state.bet(250)
    assert state.legal().min_to == 500
    state.raise_to(600)  # a raise of 350
    assert state.legal().min_to == 950


def test_antes_are_dead_money() -> None:
    state = new_hand([1000] * 3, button=0, ante=2)
    assert [e["action"] for e in state.history] == ["ante", "ante", "ante", "small_blind", "big_blind"]
    assert state.bets == [0, 5, 10] and state.pot == 21
    assert state.legal().call_amount == 10
    state.call(), state.call()
    assert state.to_act == 2 and state.legal().actions == (FOLD, CHECK, RAISE)  # the option (R3.2)
    state.check()
    assert state.pot == 36 and state.contrib == [12, 12, 12]


def test_short_stack_posts_a_partial_big_blind() -> None:
    state = new_hand([1000, 1000, 6], button=0, hands=[NINE_HIGH, FULL_HOUSE, QUADS])
    assert state.history[-1] == {"seat": 2, "action": "big_blind", "amount": 6, "all_in": True}
    assert state.legal().call_amount == 10  # the full big blind is still the bet (R3.2)
    state.call()
    state.call()
    assert state.phase == "draw"
    stand_pat_all(state)
    check_down(state)
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(18, (0, 1, 2), (2,)), (8, (0, 1), (1,))]
    assert result.net == (-10, -2, 12)


def test_short_small_blind_heads_up_skips_the_betting() -> None:
    state = new_hand([3, 1000], button=0)
    assert state.phase == "draw"  # R3.4: nobody else can act, no bet pending
    stand_pat_all(state)
    result = state.result()
    assert result.uncalled == ((1, 7),)
    assert sum(result.net) == 0 and abs(result.net[0]) == 3


def test_uncalled_raise_returns_and_hand_ends_when_all_fold() -> None:
    state = new_hand([1000, 1000], button=0)
    state.raise_to(100)
    state.fold()
    result = state.result()
    assert result.uncalled == ((0, 90),) and result.net == (10, -10)
    assert result.shown == {} and state.phase == "complete"
    assert result.pots[0].amount == 20 and result.pots[0].winners == (0,)


def test_showing_order_without_a_bet_in_round_two() -> None:
    state = new_hand([1000] * 3, button=1)
    state.call(), state.call(), state.check()
    check_down(state)
    assert list(state.result().shown) == [2, 0, 1]


def test_unused_cards_would_change_the_winner_if_counted() -> None:
    # Seat 0: K K 8 8 + kicker 4 (plus a pair of fours that does not play).
    # Seat 1: K K 8 8 + kicker 5. Counting all seven, seat 0's extra pair would win.
    state = new_hand([100, 100], hands=["Kc Kd 8h 8s 4c 4d 2s", "Kh Ks 8c 8d 5c 3d 2h"])
    state.call(), state.check()
    check_down(state)
    assert state.result().pots[0].winners == (1,)


def test_wheel_loses_to_six_high_and_wheel_flush_wins_at_the_table() -> None:
    state = new_hand([100, 100], hands=["Ac 2d 3h 4s 5c Kd Qh", "2c 3d 4h 5s 6c Jd 9h"])
    state.call(), state.check()
    check_down(state)
    assert state.result().pots[0].winners == (1,)
    state = new_hand([100, 100], hands=["Ah 2h 3h 4h 5h Jd Qc", "Kc Ks Kh Kd 9c 9d 9s"])
    state.call(), state.check()
    check_down(state)
    assert state.result().shown[0].category is Category.STRAIGHT_FLUSH
    assert state.result().pots[0].winners == (0,)


def test_build_pots_from_contributions() -> None:
    assert build_pots([50, 100, 100], [True, True, True]) == [(150, (0, 1, 2)), (100, (1, 2))]
    # a folded seat's chips stay in the pots it reached
    assert build_pots([30, 100, 100], [False, True, True]) == [(230, (1, 2))]
    assert build_pots([100, 40, 100], [True, True, False]) == [(120, (0, 1)), (120, (0,))]


# --- No decision nobody could answer (R3.4), the short big blind (R2.6),
# --- unmatched forced bets returned (R3.9). The chips are those of RULES.md E11-E13.


def test_e11_heads_up_big_blind_has_no_option_after_an_all_in_call() -> None:
    # The button (small blind) has 10 chips: posts 5, then calls 5 all-in for exactly the big blind.
    state = new_hand([10, 1000], button=0, hands=[QUADS, FULL_HOUSE])
    state.call()
    assert state.all_in[0] and state.contrib == [10, 10]
    assert state.phase == "draw" and state.to_act == 0  # no fold/check for the big blind; the button draws (E8)
    stand_pat_all(state)
    assert state.is_complete  # round 2 has no betting: showdown
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(20, (0, 1), (0,))]
    assert result.net == (10, -10) and result.uncalled == ()
    assert [a["seat"] for a in build_record(state)["actions"] if a["action"] != "draw"] == [0]


def test_e11_last_player_is_not_asked_once_the_others_fold_to_an_all_in_big_blind() -> None:
    # Button 0, small blind 1, big blind 2 holding exactly the big blind: all-in from its post.
    state = new_hand([1000, 1000, 10], button=0, hands=[FLUSH, NINE_HIGH, FULL_HOUSE])
    assert state.all_in[2]
    state.call()
    state.call()
    stand_pat_all(state)
    assert state.phase == "bet2" and state.to_act == 1
    state.fold()
    assert state.is_complete  # seat 0: no bet pending and nobody left who can act
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(30, (0, 2), (2,))]
    assert result.net == (-10, -10, 20)
    assert [a["seat"] for a in build_record(state)["actions"] if a["action"] != "draw"] == [0, 1, 1]


def test_e12_short_all_in_big_blind_heads_up_is_called_for_what_it_posted() -> None:
    # The big blind has 6 chips and posts them all-in; the button has posted 5.
    state = new_hand([1000, 6], button=0, hands=[QUADS, FULL_HOUSE])
    legal = state.legal()
    assert legal.actions == (FOLD, CALL) and legal.call_amount == 1  # not 5: 4 would come straight back
    assert state.observation(0)["to_act"] == 0
    state.call()
    assert state.contrib == [6, 6] and state.phase == "draw"
    stand_pat_all(state)
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(12, (0, 1), (0,))]
    assert result.net == (6, -6) and result.uncalled == ()


def test_e12_a_fold_to_a_short_all_in_big_blind_loses_the_small_blind() -> None:
    state = new_hand([1000, 6], button=0)
    state.fold()
    result = state.result()
    assert result.net == (-5, 5) and result.uncalled == ((1, 1),)  # the 1 chip of the blind nobody matched
    assert [(p.amount, p.winners) for p in result.pots] == [(10, (1,))]


def test_e12_big_blind_shorter_than_the_small_blind_is_no_decision() -> None:
    state = new_hand([1000, 3], button=0, hands=[QUADS, FULL_HOUSE])
    assert state.phase == "draw"  # the button covers the 3 chips already: nothing to decide
    stand_pat_all(state)
    result = state.result()
    assert result.uncalled == ((0, 2),)
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(6, (0, 1), (0,))]
    assert result.net == (3, -3)


def test_e12_the_full_big_blind_is_still_the_bet_while_another_player_can_act() -> None:
    """R2.6 (Robert's Rules, "Buttons and blinds"): the short big blind sets the full amount to call."""
    state = new_hand([1000, 1000, 6], button=0)
    legal = state.legal()
    assert legal.call_amount == 10 and legal.min_to == 20  # the opening bet is the full big blind
    state.fold()
    # Now nobody but the small blind can act: it calls what the big blind can match (R3.9).
    assert state.to_act == 1 and state.legal().actions == (FOLD, CALL) and state.legal().call_amount == 1
    state.call()
    assert state.contrib == [0, 6, 6] and state.phase == "draw"


def test_e13_an_ante_nobody_matches_is_returned_not_a_pot_of_one() -> None:
    # Ante-only game, ante 5: seat 1 antes its last 3 chips.
    state = new_hand([1000, 3], button=0, hands=[QUADS, FULL_HOUSE], blinds=False, ante=5, min_bet=10)
    assert state.all_in[1] and state.phase == "draw"
    stand_pat_all(state)
    result = state.result()
    assert [(p.amount, p.eligible, p.winners) for p in result.pots] == [(6, (0, 1), (0,))]
    assert result.uncalled == ((0, 2),)
    assert result.net == (3, -3)
    record = build_record(state)
    assert record["uncalled"] == [{"seat": 0, "amount": 2}] and len(record["pots"]) == 1


def test_e14_a_raise_goes_no_higher_than_the_deepest_opponent_can_match() -> None:
    """R3.4, E14: stacks 1144 / 55 / 1, blinds 5/10, the big blind all-in for 1."""
    state = new_hand([1144, 55, 1], button=0)
    assert state.all_in[2] and state.to_act == 0
    assert (state.legal().min_to, state.legal().max_to) == (20, 55)
    state.raise_to(20)
    state.raise_to(30)
    state.raise_to(40)
    state.raise_to(54)
    legal = state.legal()
    # A full raise would be to 68; seat 1 can match 55 at most, so 55 is the only raise.
    assert legal.actions == (FOLD, CALL, RAISE) and legal.call_amount == 14
    assert (legal.min_to, legal.max_to) == (55, 55)
    refused = "R3.4: seat 0 cannot raise to 68: no opponent still in the hand can match more than 55"
    with pytest.raises(IllegalActionError, match=refused):
        state.raise_to(68)
    state.raise_to(55)
    # Seat 1 answers with its last chip or folds; nobody could answer a raise.
    assert state.to_act == 1 and state.legal().actions == (FOLD, CALL) and state.legal().call_amount == 1
    state.fold()
    assert state.phase == "draw"
    stand_pat_all(state)
    result = state.result()
    assert (0, 1) in result.uncalled and sum(result.net) == 0


def test_e14_no_raise_when_every_opponent_is_all_in_at_the_call() -> None:
    """E14's other branch: seat 1 all-in to 55 leaves seat 0 a call or a fold, nothing else."""
    state = new_hand([1144, 55, 1], button=0)
    for to in (20, 30, 40):
        state.raise_to(to)
    state.raise_to(55)
    assert state.all_in[1] and state.legal().actions == (FOLD, CALL)
    with pytest.raises(IllegalActionError, match="R3.4"):
        state.raise_to(70)


def test_r3_4_caps_bets_in_round_two_fixed_limit_and_ante_only() -> None:
    """R3.4 for every kind of wager: the first bet of round 2, fixed-limit, an ante-only round 1."""
    # No-limit round 2: the minimum first bet would be 20 (twice the big blind); the opponent has 7.
    state = new_hand([1000, 17], button=0)
    state.call()
    state.check()
    stand_pat_all(state)
    state.check()
    legal = state.legal()
    assert state.to_act == 0 and legal.actions == (FOLD, CHECK, BET) and (legal.min_to, legal.max_to) == (7, 7)
    # Fixed-limit 5/10: a raise would be to 20, the big blind's seat can reach 14.
    state = new_hand([1000, 14], button=0, structure="fixed-limit")
    legal = state.legal()
    assert (legal.call_amount, legal.min_to, legal.max_to) == (5, 14, 14)
    # Ante-only, ante 5, min_bet 10: the opponent has 3 chips behind.
    state = new_hand([1000, 8], button=1, blinds=False, ante=5, min_bet=10)
    legal = state.legal()
    assert state.to_act == 0 and legal.actions == (FOLD, CHECK, BET) and (legal.min_to, legal.max_to) == (3, 3)
    state.bet(3)
    assert state.to_act == 1 and state.legal().actions == (FOLD, CALL)


def test_raise_cap_false_replays_the_earlier_rule() -> None:
    """Histories of earlier releases (a raise to 68 in E14's hand) still replay with raise_cap=False."""
    state = HandState.start(GameConfig(), [1144, 55, 1], 0, 1, raise_cap=False)
    for to in (20, 30, 40, 54):
        state.raise_to(to)
    assert state.legal().max_to == 1144
    state.raise_to(68)
    state.fold()
    stand_pat_all(state)
    assert (0, 14) in state.result().uncalled


def test_the_seat_count_rule_has_one_wording() -> None:
    """R1.2: 2 to 6 players; the one function every layer's message comes from."""
    from harness.engine.config import TABLE_SIZES, seat_count_problem

    assert list(TABLE_SIZES) == [2, 3, 4, 5, 6]
    assert all(seat_count_problem(n) is None for n in TABLE_SIZES)
    assert seat_count_problem(1) == "R1.2: a table seats 2 to 6 players, got 1"
    assert seat_count_problem(7).endswith("got 7; with 7 or more the stock can run dry in the draw (R4.4)")
    assert seat_count_problem("3") is not None and seat_count_problem(True) is not None


def test_e15_a_raise_beyond_what_can_be_matched_is_the_all_in_capped() -> None:
    """E15 (R3.10): heads-up 5/10, the button (210 chips) faces a raise to 75 from the big blind (190);
    its shove to 210 is played as a raise to 190, the most the big blind can match."""
    state = new_hand([210, 190], button=0)
    state.call()
    state.raise_to(75)
    legal = state.legal()
    assert state.to_act == 0 and (legal.min_to, legal.max_to) == (140, 190)
    shove = Action(RAISE, 210)
    with pytest.raises(IllegalActionError, match="R3.4: seat 0 cannot raise to 210"):
        state.verify(shove)  # verify stays strict
    assert state.capped(shove) == Action(RAISE, 190)
    assert state.capped(Action(RAISE, 10**9)) == Action(RAISE, 190)  # above the stack too
    assert state.capped(Action(RAISE, 150)) == Action(RAISE, 150)  # within the range: unchanged
    assert state.capped(Action(RAISE, 100)) == Action(RAISE, 100)  # below the minimum: verify's to judge
    state.apply(state.capped(shove))
    assert state.bets == [190, 75] and state.stacks == [20, 115]
    assert state.legal().actions == (FOLD, CALL) and state.legal().call_amount == 115


def test_capped_plays_a_wager_refused_for_want_of_chips_as_a_call() -> None:
    """R3.10: where no bet or raise is offered only because of chips (R3.4, R3.5), one beyond the call is
    a call; where the rules refuse it (R3.5 kind, R3.7 cap, R3.8), it is left for verify to refuse."""
    # E14's other branch: seat 1 all-in to 55, nobody could answer a raise of seat 0 (R3.4).
    state = new_hand([1144, 55, 1], button=0)
    for to in (20, 30, 40, 55):
        state.raise_to(to)
    assert state.legal().actions == (FOLD, CALL)
    assert state.capped(Action(RAISE, 1144)) == Action(CALL)
    assert state.capped(Action(RAISE, 55)) == Action(RAISE, 55)  # not above the call: R3.5 judges it
    assert state.capped(Action(BET, 1144)) == Action(BET, 1144)  # a bet where a raise is due (R3.5)
    # R3.5: a stack that does not exceed the call: a shove is an all-in call.
    state = new_hand([1000, 1000, 50], button=0)
    state.raise_to(100)
    state.call()
    assert state.to_act == 2 and state.legal().actions == (FOLD, CALL)
    assert state.capped(Action(RAISE, 50)) == Action(CALL)
    # R3.7: the cap reached is a rule, not a want of chips.
    state = new_hand([1000] * 4, button=0, structure="fixed-limit", small_blind=5, big_blind=10)
    for to in (20, 30, 40):
        state.raise_to(to)
    assert state.capped(Action(RAISE, 50)) == Action(RAISE, 50)
    # Fixed-limit: a raise above the one size offered is played as that size.
    state = new_hand([1000] * 3, button=0, structure="fixed-limit")
    assert state.capped(Action(RAISE, 1000)) == Action(RAISE, state.legal().max_to)
    # Folds, calls and draws pass through.
    assert state.capped(Action(FOLD)) == Action(FOLD)


def test_e16_a_short_all_in_raise_counts_toward_the_cap_only_when_it_is_a_full_raise() -> None:
    """E16 (R3.7, R3.8): fixed-limit 5/10, cap 4, three-handed: 10 (the big blind), 20, 30; the big blind
    (34 chips in all) goes all-in. To 34 (4 more, less than half a bet) it is not a raise: it does not
    count, so the button may still make the fourth bet, to 44. To 35 (half a bet) it is a full raise
    and the fourth bet: the cap is reached, the button may only call or fold."""
    state = new_hand([1000, 1000, 34], button=0, structure="fixed-limit", cap=4)
    state.raise_to(20)
    state.raise_to(30)
    state.raise_to(34)
    assert state.all_in[2] and state.to_act == 0
    legal = state.legal()
    assert legal.actions == (FOLD, CALL, RAISE) and legal.min_to == legal.max_to == 44
    state.raise_to(44)
    assert state.to_act == 1 and state.legal().actions == (FOLD, CALL)  # now the cap is reached
    state = new_hand([1000, 1000, 35], button=0, structure="fixed-limit", cap=4)
    state.raise_to(20)
    state.raise_to(30)
    state.raise_to(35)
    assert state.to_act == 0 and state.legal().actions == (FOLD, CALL)
    with pytest.raises(IllegalActionError, match="R3.7: seat 0 cannot raise: the cap of 4 bets is reached"):
        state.raise_to(45)
