"""The openers check of a jackpot game (RULES.md R7.2, R7.3, R7.7).

>>> from harness.engine.cards import parse_cards, cards_str
>>> cards_str(openers(parse_cards("Jh 7c Jd 4s 2d"), Openers.JACKS))
['Jh', 'Jd']
>>> openers(parse_cards("Ah Kd 9c 5s 2d"), Openers.JACKS) is None
True
>>> cards_str(openers(parse_cards("Ah Kd 9c 5s 2d"), Openers.JACK_CARD))
['Ah']
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.engine.errors import CardError
from harness.engine.evaluator import Category, best_hand
from harness.engine.games import Openers

JACK = 9  # rank index of the jack (ranks 0..12 for 2..A)

#: Cards of the made part that proves openers, by category (R7.7): the rest are kickers.
_MADE = {
    Category.ONE_PAIR: 2,
    Category.TWO_PAIR: 4,
    Category.THREE_OF_A_KIND: 3,
    Category.STRAIGHT: 5,
    Category.FLUSH: 5,
    Category.FULL_HOUSE: 5,
    Category.FOUR_OF_A_KIND: 4,
    Category.STRAIGHT_FLUSH: 5,
}


def openers(cards: Sequence[int], rule: Openers) -> tuple[int, ...] | None:
    """The opening cards of a five-card hand under ``rule``, or None when it may not open (R7.2).

    Args:
        cards: the player's five cards (distinct ints 0..51).
        rule: ``jacks`` (a pair of jacks or better), ``jack-card`` (a jack, queen, king or
            ace) or ``none`` (anyone may open: the proof is empty).

    Returns:
        the least part of the hand that meets ``rule``, shown as proof at the hand's end
        (R7.7), most significant first: a pair of jacks or better (the higher pair of two
        pair when it is one), else the made part (two pair, trips, quads, or all five of a
        straight, flush or full house); under ``jack-card`` the highest card.

    Raises:
        CardError: not five distinct cards.
    """
    if len(cards) != 5:
        raise CardError(f"R7.2: openers are judged on five cards, got {len(cards)}")
    hand = best_hand(cards)
    if rule == Openers.NONE:
        return ()
    if rule == Openers.JACK_CARD:
        top = max(cards)
        return (top,) if top >> 2 >= JACK else None
    made = _MADE.get(hand.category)
    if made is None:
        return None
    if hand.category in (Category.ONE_PAIR, Category.TWO_PAIR):
        if hand.five[0] >> 2 >= JACK:
            return hand.five[:2]
        if hand.category == Category.ONE_PAIR:
            return None
    return hand.five[:made]


def may_open(cards: Sequence[int], rule: Openers) -> bool:
    """Whether a five-card hand may make the first bet of round 1 (R7.2, R7.3)."""
    return openers(cards, rule) is not None
