"""Deuce-to-seven low evaluation of five cards (RULES.md R8.2, R8.3).

Pure and importable by bots. Values are ints, **higher is better** (as with
:func:`harness.engine.evaluator.evaluate`), equal means a split pot::

    value = LOW_TOP - high

where ``high`` is the high evaluator's packed value of the same five cards
(R5.2-R5.4) with one change: A-2-3-4-5 is not a straight but an ace-high hand
(suited, an ace-high flush), because the ace plays only high (R8.2). The
deuce-to-seven order is then the high order reversed (R8.3): the best hand,
7-5-4-3-2 of two suits or more, has the largest value.

>>> from harness.engine.cards import parse_cards
>>> evaluate_27(parse_cards("7h 5d 4c 3s 2h")) > evaluate_27(parse_cards("8h 5d 4c 3s 2h"))
True
>>> evaluate_27(parse_cards("Ah 5d 4c 3s 2h")) < evaluate_27(parse_cards("Kh Qd Jc Ts 8h"))  # ace high
True
>>> low_category(evaluate_27(parse_cards("6h 5d 4c 3s 2h"))).label
'straight'
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.engine.errors import CardError
from harness.engine.evaluator import Category, HandRank, evaluate

#: Above every packed high value (category 8 << 20 | five 4-bit ranks < 9 << 20 <= 2**24).
LOW_TOP = (1 << 24) - 1
_ACE_HIGH_WHEEL = 12 << 16 | 3 << 12 | 2 << 8 | 1 << 4 | 0  # ranks A 5 4 3 2, most significant first
_WHEEL_TOP = 3  # the five: a wheel's top rank in the high evaluator (R5.4)


def evaluate_27(cards: Sequence[int]) -> int:
    """Deuce-to-seven strength of exactly five cards; higher is better (R8.2).

    Args:
        cards: five distinct cards (ints 0..51).

    Returns:
        ``LOW_TOP`` minus the high value with the wheel read as ace high; equal values split.

    Raises:
        CardError: not five distinct cards.
    """
    if len(cards) != 5:
        raise CardError(f"R8.2: deuce-to-seven needs exactly five cards, got {len(cards)}")
    high = evaluate(cards)
    category = high >> 20
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH) and (high >> 16) & 15 == _WHEEL_TOP:
        # A-2-3-4-5: no straight in deuce-to-seven, the ace plays high (R8.2).
        flush = Category.FLUSH if category == Category.STRAIGHT_FLUSH else Category.HIGH_CARD
        high = flush << 20 | _ACE_HIGH_WHEEL
    return LOW_TOP - high


def low_category(value: int) -> Category:
    """The R5.2 category of a value returned by :func:`evaluate_27` (a straight or flush is bad here)."""
    return Category((LOW_TOP - value) >> 20)


def rank_27(cards: Sequence[int]) -> HandRank:
    """A five-card hand as a :class:`HandRank` ordered deuce-to-seven: higher ``value`` is the lower,
    better hand (R8.2); ``category`` is its R5.2 category, ``five`` its cards highest rank first.

    Raises:
        CardError: not five distinct cards.
    """
    value = evaluate_27(cards)
    return HandRank(value, low_category(value), tuple(sorted(cards, reverse=True)))


#: The highest rank a made hand may hold to stand pat in :func:`keep_27`: nine (rank index 7; deuce is 0).
STAND_PAT_TOP = 7
#: The highest rank :func:`keep_27` keeps when it draws: seven (rank index 5).
DRAW_TOP = 5


def keep_27(cards: Sequence[int]) -> list[int]:
    """Which of five cards to keep at a deuce-to-seven draw (R8.1: 0 to 5 discards): the one home of this rule
    (LBR's draws in Triple Draw use it).

    Stand pat on a made nine-low or better (no pair, straight or flush, the highest card a nine or lower);
    otherwise keep one card of each rank from deuce to seven (the ace is high, R8.2), lowest first, at most
    four (five such cards are then a straight or a flush: the highest goes).

    >>> from harness.engine.cards import parse_cards, cards_str
    >>> cards_str(keep_27(parse_cards("9h 7d 4c 3s 2h")))  # a made nine-low: stand pat
    ['9h', '7d', '4c', '3s', '2h']
    >>> cards_str(keep_27(parse_cards("Ah 7d 7c 3s 2h")))  # the ace and one seven go
    ['7c', '3s', '2h']

    Args:
        cards: five distinct cards (ints 0..51).

    Returns:
        The cards to keep (0 to 5 of them), a subset of ``cards`` in their order.

    Raises:
        CardError: not five distinct cards.
    """
    value = evaluate_27(cards)
    if low_category(value) == Category.HIGH_CARD and max(c >> 2 for c in cards) <= STAND_PAT_TOP:
        return list(cards)
    chosen: dict[int, int] = {}
    for c in sorted(cards, key=lambda c: (c >> 2, c & 3)):
        if c >> 2 <= DRAW_TOP and c >> 2 not in chosen:
            chosen[c >> 2] = c
    kept = set(sorted(chosen.values())[:4])
    return [c for c in cards if c in kept]
