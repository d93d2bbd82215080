"""RULES.md's worked examples of Five Card Draw with openers (E18, E19, E21) played through the engine's
hand factory, ``start_hand(FIVE_CARD_DRAW, ...)`` (tests/test_jackpots.py plays them through the older
``JackpotHand``); and every worked example of the other draw games, E17 to E25, has its test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.engine.cards import parse_cards
from harness.engine.config import GameConfig
from harness.engine.errors import IllegalActionError
from harness.engine.games import FIVE_CARD_DRAW, start_hand
from harness.engine.jackpots import foul_refunds, foul_result
from harness.engine.state import HandState

TESTS = Path(__file__).resolve().parent
RULES = TESTS.parent / "docs" / "RULES.md"
FIXED = GameConfig(structure="fixed-limit", blinds=False, ante=1, min_bet=10)  # type: ignore[arg-type]
NOTHING = ["2c 4d 6h 8s Tc", "3c 5d 7h 9s Qc", "2d 4h 6s 8c Td", "3d 5h 7s 9c Qd", "2h 4s 6c 8d Th"]


def deck(hands: list[str], button: int) -> list[int]:
    """A deck that deals ``hands[s]`` to seat s, one card at a time from left of the button (R2.7)."""
    n = len(hands)
    order = [-1] * (5 * n)
    for s, hand in enumerate(hands):
        for i, c in enumerate(parse_cards(hand)):
            order[(s - button - 1) % n + i * n] = c
    return order + [c for c in range(52) if c not in order]


def play(hand: HandState, *moves: tuple[int, str, int]) -> None:
    for seat, kind, amount in moves:
        assert hand.to_act == seat, (hand.to_act, seat, kind)
        if kind == "bet":
            hand.bet(amount)
        elif kind == "raise":
            hand.raise_to(amount)
        else:
            getattr(hand, kind)()


def test_e18_passed_out_then_won_with_the_carried_antes() -> None:
    first = start_hand(FIVE_CARD_DRAW, FIXED, [100] * 5, 0, seed=1, deck=deck(NOTHING, 0))
    play(first, (1, "check", 0), (2, "check", 0), (3, "check", 0), (4, "check", 0), (0, "check", 0))
    r1 = first.result()
    assert r1.passed_out and r1.carried_out == 5 and first.draws == [None] * 5
    hands = list(NOTHING)
    hands[3] = "Jc Jd Kc Ah 9h"
    second = start_hand(FIVE_CARD_DRAW, FIXED, list(r1.final_stacks), 1, seed=2, carried=r1.carried_out,
                        deck=deck(hands, 1))
    assert second.pot == 10 and second.stacks == [98] * 5  # everyone antes again: 2 lower than at the start
    play(second, (2, "check", 0), (3, "bet", 10), (4, "fold", 0), (0, "fold", 0), (1, "fold", 0),
         (2, "fold", 0))
    r2 = second.result()
    assert r2.uncalled == ((3, 10),) and [p.amount for p in r2.pots] == [10]
    assert [a + b for a, b in zip(r1.net, r2.net, strict=True)] == [-2, -2, -2, 8, -2]


@pytest.mark.parametrize("opener_folds", [False, True])
def test_e19_draw_order_and_who_acts_first_after_the_draw(opener_folds: bool) -> None:
    hands = NOTHING[:4]
    hands[2] = "Jc Jd 4c 6c 9h"
    hand = start_hand(FIVE_CARD_DRAW, FIXED, [100] * 4, 0, seed=5, deck=deck(hands, 0))
    play(hand, (1, "check", 0), (2, "bet", 10), (3, "raise", 20), (0, "fold", 0), (1, "call", 0),
         (2, "fold" if opener_folds else "call", 0))
    order = []
    while str(hand.phase) == "draw":
        order.append(hand.to_act)
        hand.draw([])
    assert order == ([1, 3] if opener_folds else [1, 2, 3])  # left of the button, the button last (R7.5)
    assert hand.to_act == (3 if opener_folds else 2) and hand.betting_round == 2  # R7.6
    assert hand.legal().min_to == hand.legal().max_to == 20  # the big bet
    assert hand.opener == 2


def test_e21_a_foul_hand_returns_all_but_the_antes() -> None:
    hands = NOTHING[:4]
    hands[1] = "Qh Qs 4c 6c 9h"
    config = GameConfig(structure="fixed-limit", blinds=False, ante=2, min_bet=10)  # type: ignore[arg-type]
    hand = start_hand(FIVE_CARD_DRAW, config, [100] * 4, 0, seed=5, deck=deck(hands, 0))
    assert hand.pot == 8
    play(hand, (1, "bet", 10), (2, "call", 0), (3, "fold", 0), (0, "raise", 20), (1, "call", 0), (2, "call", 0))
    refunds, carried = foul_refunds(hand.contrib, [2] * 4, [not f for f in hand.folded])
    assert refunds == (20, 20, 20, 0) and carried == 8
    r = foul_result(hand)  # found before the draw: the same outcome as at the end
    assert r.foul and r.net == (-2, -2, -2, -2) and r.final_stacks == (98,) * 4 and r.carried_out == 8
    assert r.pots == () and not r.shown and r.opener == 1
    for _ in range(3):
        hand.draw([])
    play(hand, (1, "check", 0), (2, "check", 0), (0, "check", 0))
    assert hand.is_complete and hand.result().shown  # the showdown, where the opener would show
    assert foul_result(hand) == r
    # R7.8, "as in R7.4": the 8 stay for the next deal, dealt by seat 1, everyone antes again.
    nxt = start_hand(FIVE_CARD_DRAW, config, list(r.final_stacks), 1, seed=6, carried=r.carried_out)
    assert nxt.pot == 16 and nxt.carried == 8


def test_a_foul_needs_an_opener_and_keeps_the_chips_of_folded_seats_and_carried_ones() -> None:
    hands = NOTHING[:3]
    hands[2] = "Ah Ad 4c 6c 9h"
    config = GameConfig(structure="no-limit", blinds=False, ante=5, min_bet=10)  # type: ignore[arg-type]
    hand = start_hand(FIVE_CARD_DRAW, config, [200, 3, 200], 0, seed=5, carried=9, deck=deck(hands, 0))
    with pytest.raises(IllegalActionError, match=r"^R7\.8: only a deal someone opened"):
        foul_result(hand)
    play(hand, (2, "bet", 40), (0, "raise", 90), (2, "fold", 0))  # seat 1 is all-in on a short ante of 3
    r = foul_result(hand)
    # Seat 0 takes back its 40 above the ante (its 50 nobody called came back already, R3.9); seat 1, all-in
    # on its ante, takes back nothing; the opener folded and leaves its 45: 9 carried + 5 + 3 + 45 stay.
    assert r.final_stacks == (195, 0, 155) and r.net == (-5, -3, -45) and r.carried_out == 62
    assert sum(r.net) + r.carried_out == r.carried_in == 9


def test_every_worked_example_of_the_draw_games_has_a_test() -> None:
    examples = set(re.findall(r"^- (E\d+) \(R[678]", RULES.read_text(encoding="utf-8"), re.M))
    assert examples >= {f"E{k}" for k in range(17, 26)}
    text = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.glob("test_*.py"))
    assert [e for e in sorted(examples) if not re.search(rf"def test_{e.lower()}_", text)] == []
