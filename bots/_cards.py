"""Card helpers shared by the example bots: text <-> int, and draw choices.

Cards are ints ``rank * 4 + suit`` (rank 0..12 for 2..A, suit 0..3 for c d h s), the
encoding of ``harness.engine.evaluator`` (the only part of ``harness`` bots may use).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from harness.engine.evaluator import Category, best_hand

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_TEXT: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_INT: dict[str, int] = {t: i for i, t in enumerate(CARD_TEXT)}


def to_ints(cards: Iterable[str]) -> list[int]:
    """``["As", "Td"]`` -> ``[51, 34]``."""
    return [CARD_INT[c] for c in cards]


def to_texts(cards: Iterable[int]) -> list[str]:
    """``[51, 34]`` -> ``["As", "Td"]``."""
    return [CARD_TEXT[c] for c in cards]


def discard_to_best_five(cards: Sequence[str]) -> list[str]:
    """The cards not in the best five (R5.1): throwing them away can only improve the hand.

    Args:
        cards: The seven held cards as strings.

    Returns:
        The two cards outside the best five (fewer if fewer than seven are held).
    """
    ints = to_ints(cards)
    five = set(best_hand(ints).five)
    return [CARD_TEXT[c] for c in ints if c not in five][:4]


def _flush_draw(cards: Sequence[int]) -> list[int] | None:
    """Four (or more) cards of one suit, highest first, else None."""
    by_suit = Counter(c & 3 for c in cards)
    suit, n = by_suit.most_common(1)[0]
    if n >= 4:
        return sorted((c for c in cards if c & 3 == suit), reverse=True)[:4]
    return None


def _straight_draw(cards: Sequence[int]) -> list[int] | None:
    """Four cards of consecutive ranks open at both ends (8 outs), highest first, else None."""
    ranks = {c >> 2 for c in cards}
    for low in range(8, -1, -1):  # runs T-K down to 2-5 (2-5 is open at the ace and the six)
        run = range(low, low + 4)
        if all(r in ranks for r in run):
            keep: list[int] = []
            for r in reversed(run):
                keep.append(max(c for c in cards if c >> 2 == r))
            return keep
    return None


def smart_keep(cards: Sequence[int]) -> list[int]:
    """Which cards to keep before the draw (at most 4 discards, R4.1), for a strong player.

    Made straights or better keep their five; quads, trips and two pair keep only the
    made part to draw at a full house; a four-card flush or open-ended straight draw
    beats a pair below tens; a pair keeps its best kicker; otherwise the three highest.

    Args:
        cards: Seven ints.

    Returns:
        The cards to keep (3 to 7 of them).
    """
    hand = best_hand(cards)
    cat = hand.category
    five = hand.five
    if cat >= Category.STRAIGHT or cat == Category.FOUR_OF_A_KIND:
        return list(five)
    if cat == Category.THREE_OF_A_KIND:
        return list(five[:3])
    if cat == Category.TWO_PAIR:
        return list(five[:4])
    flush = _flush_draw(cards)
    if flush is not None:
        return flush
    straight = _straight_draw(cards)
    if cat == Category.ONE_PAIR:
        if straight is not None and (five[0] >> 2) < 8:
            return straight
        return list(five[:3])
    if straight is not None:
        return straight
    return list(five[:3])


def smart_discards(cards: Sequence[int]) -> list[int]:
    """The complement of :func:`smart_keep` (at most four cards)."""
    keep = set(smart_keep(cards))
    return [c for c in cards if c not in keep][:4]
