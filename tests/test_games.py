"""Game definitions (RULES.md R6) and the jackpot openers check (R7.2, R7.7): worked examples E17 and E20.

Seven Card Draw is one definition whose numbers are the engine's constants, so its hands are unchanged.
"""

from __future__ import annotations

import dataclasses
import itertools
from math import comb

import pytest

from harness.engine import GameConfig, constants
from harness.engine import config as config_module
from harness.engine.cards import parse_cards
from harness.engine.errors import CardError, GameConfigError
from harness.engine.games import (
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    FIVE_CARD_DRAW,
    GAMES,
    SEVEN_CARD_DRAW,
    Evaluation,
    FirstToAct,
    Openers,
)
from harness.engine.openers import may_open, openers


def test_seven_card_draw_is_the_definition_the_engine_plays() -> None:
    assert (constants.HOLE_CARDS, constants.MAX_DISCARDS) == (7, 4)  # R2.7, R4.1
    assert (config_module.MIN_PLAYERS, config_module.MAX_PLAYERS) == (2, 6)  # R1.2
    assert SEVEN_CARD_DRAW.draw_order == FirstToAct.LEFT_OF_BIG_BLIND  # R4.1
    assert SEVEN_CARD_DRAW.doubled_first_bet and SEVEN_CARD_DRAW.limit_sizes == (1, 2)  # R3.6, R3.7
    assert SEVEN_CARD_DRAW.openers == Openers.NONE and not SEVEN_CARD_DRAW.passed_out


def test_the_three_games_by_name() -> None:
    assert sorted(GAMES) == ["deuce-to-seven-triple-draw", "five-card-draw", "seven-card-draw"]
    fcd, td = FIVE_CARD_DRAW, DEUCE_TO_SEVEN_TRIPLE_DRAW
    # R7.1: five cards, 2-8 seats, one draw of up to five, antes only, passed-out deals.
    assert (fcd.hole_cards, fcd.min_seats, fcd.max_seats, fcd.draws, fcd.max_discards) == (5, 2, 8, 1, 5)
    assert fcd.openers == Openers.JACKS and fcd.passed_out and fcd.later_rounds_first == FirstToAct.OPENER
    # R8.1: three draws, four betting rounds, small, small, big, big; 2-6 seats; low.
    assert (td.draws, td.betting_rounds, td.limit_sizes, td.max_seats) == (3, 4, (1, 1, 2, 2), 6)
    assert td.evaluation == Evaluation.DEUCE_TO_SEVEN and td.draw_order == FirstToAct.LEFT_OF_BUTTON


def test_forced_bets_and_seats_are_checked_against_the_game() -> None:
    ante_only = GameConfig(blinds=False, ante=1, min_bet=10)
    assert FIVE_CARD_DRAW.config_problem(ante_only) is None
    assert "R7.1" in (FIVE_CARD_DRAW.config_problem(GameConfig()) or "")
    assert "R8.1" in (DEUCE_TO_SEVEN_TRIPLE_DRAW.config_problem(ante_only) or "")
    assert SEVEN_CARD_DRAW.config_problem(ante_only) is None and SEVEN_CARD_DRAW.config_problem(GameConfig()) is None
    assert FIVE_CARD_DRAW.seat_problem(8) is None
    assert FIVE_CARD_DRAW.seat_problem(9) == "R6.8: a table of five-card-draw seats 2 to 8 players, got 9"
    assert SEVEN_CARD_DRAW.seat_problem(7) is not None


@pytest.mark.parametrize("change", [
    {"limit_sizes": (1, 2, 2)},  # one per betting round (R6.6)
    {"passed_out": False},  # openers without passing out (R6.10)
    {"later_rounds_first": FirstToAct.LEFT_OF_BUTTON},  # the opener acts first (R7.6)
    {"max_seats": 11},  # 11 x 5 > 52 cards (R6.8)
    {"max_discards": 6},  # more than the hand (R6.4)
])
def test_a_definition_that_contradicts_itself_is_refused(change: dict[str, object]) -> None:
    with pytest.raises(GameConfigError, match=r"^R[67]\.\d+: five-card-draw: "):
        dataclasses.replace(FIVE_CARD_DRAW, **change)  # type: ignore[arg-type]


def _proof(hand: str, rule: Openers) -> list[str] | None:
    found = openers(parse_cards(hand), rule)
    return None if found is None else [f"{'23456789TJQKA'[c >> 2]}{'cdhs'[c & 3]}" for c in found]


def test_e17_who_may_open() -> None:
    assert _proof("Jh Jd 7c 4s 2d", Openers.JACKS) == ["Jh", "Jd"]
    assert _proof("Th Td Ac Ks Qd", Openers.JACKS) is None
    assert _proof("3h 3d 2c 2s 9d", Openers.JACKS) == ["3h", "3d", "2s", "2c"]  # any two pair
    assert _proof("9c Th Jh Qd Ks", Openers.JACKS) == ["Ks", "Qd", "Jh", "Th", "9c"]  # a straight
    assert _proof("Ah Kd 9c 5s 2d", Openers.JACKS) is None
    assert _proof("Ah Kd 9c 5s 2d", Openers.JACK_CARD) == ["Ah"]
    assert _proof("2h 2d 9c 5s Ad", Openers.JACK_CARD) == ["Ad"]  # the highest card, not the pair
    assert _proof("Th 9d 7c 4s 2d", Openers.JACKS) is None and _proof("Th 9d 7c 4s 2d", Openers.JACK_CARD) is None
    assert _proof("Th 9d 7c 4s 2d", Openers.NONE) == []
    assert _proof("Qh Qd 3c 3s 9d", Openers.JACKS) == ["Qh", "Qd"]  # the higher pair is openers alone
    assert _proof("5h 5d 5c Ks 9d", Openers.JACKS) == ["5h", "5d", "5c"]


def test_e20_split_openers_the_proof_is_the_pair() -> None:
    assert _proof("Jh Js Th 9h 8h", Openers.JACKS) == ["Js", "Jh"]


def test_openers_need_five_cards() -> None:
    with pytest.raises(CardError, match=r"^R7\.2: openers are judged on five cards, got 4$"):
        openers(parse_cards("Jh Js Th 9h"), Openers.JACKS)


def _class_counts(rule: Openers) -> int:
    """How many of the 2,598,960 five-card hands may open: one hand per rank multiset, weighted by its suits."""
    total = 0
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        counts = [ranks.count(r) for r in set(ranks)]
        if max(counts) > 4:
            continue
        seen: dict[int, int] = {}
        cards = []
        for r in ranks:  # suits 0, 1, ... within a rank; distinct ranks get suit 0 but the first suit 1
            cards.append(r * 4 + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        weight = 1
        for c in counts:
            weight *= comb(4, c)
        if len(counts) == 5:
            flush = [r * 4 for r in ranks]
            cards[0] += 1
            total += 4 * may_open(flush, rule) + (weight - 4) * may_open(cards, rule)
        else:
            total += weight * may_open(cards, rule)
    return total


def test_e17_share_of_hands_that_may_open() -> None:
    """R7.2's numbers: 536,100 hands hold jacks or better, 2,221,968 a jack, queen, king or ace."""
    assert _class_counts(Openers.JACKS) == 536_100
    assert _class_counts(Openers.JACK_CARD) == 2_221_968 == comb(52, 5) - comb(36, 5)
    assert _class_counts(Openers.NONE) == comb(52, 5)
