"""Cards and the seeded deck (RULES.md R1.1, R2.7, R4.4).

A card is an ``int`` 0..51: ``card = rank * 4 + suit`` with rank 0..12 for
2..A and suit 0..3 for c d h s (the encoding phevaluator uses too). On the
wire and in every record a card is its two-character string (``"As"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from harness.engine.errors import CardError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
#: ``CARD_STRS[card]`` is the card's text; index = rank * 4 + suit.
CARD_STRS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_PARSE: dict[str, int] = {text: card for card, text in enumerate(CARD_STRS)}
DECK_SIZE = 52


def card_str(card: int) -> str:
    """Two-character text of a card, e.g. ``card_str(51) == "As"``.

    Raises:
        CardError: if ``card`` is not an int in 0..51.
    """
    if type(card) is not int or not 0 <= card < DECK_SIZE:
        raise CardError(f"R1.1: {card!r} is not a card; cards are ints 0..51 (rank * 4 + suit)")
    return CARD_STRS[card]


def cards_str(cards: Iterable[int]) -> list[str]:
    """Texts of several cards, in the given order."""
    return [card_str(c) for c in cards]


def parse_card(text: str) -> int:
    """Card from its text, e.g. ``parse_card("As") == 51``.

    The rank letter may be lower case and the suit upper case (``"as"``,
    ``"AS"``); anything else is refused.

    Raises:
        CardError: naming the bad text and the expected form.
    """
    if isinstance(text, str) and len(text) == 2:
        card = _PARSE.get(text[0].upper() + text[1].lower())
        if card is not None:
            return card
    raise CardError(
        f"R1.1: {text!r} is not a card; write rank (one of {RANKS}) then suit "
        f"(one of {SUITS}), e.g. 'As', 'Td', '7c'"
    )


def parse_cards(texts: Iterable[str] | str) -> list[int]:
    """Cards from a list of texts, or from one space-separated string.

    Raises:
        CardError: naming the first bad text.
    """
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


# Bits needed to draw an index below m (1..52) with getrandbits + rejection.
_BITS = [0] + [m.bit_length() for m in range(1, DECK_SIZE + 1)]
_FULL_DECK = list(range(DECK_SIZE))


class Generator(Protocol):
    """What a deck draws from: :class:`random.Random`, or a cloned hand's stand-in that makes one on demand."""

    def getrandbits(self, k: int, /) -> int: ...

    def shuffle(self, x: list[int], /) -> None: ...


class Deck:
    """A 52-card deck shuffled lazily by a seeded generator (R2.7).

    Position ``p`` of the shuffled order is fixed the first time it is
    needed, by a forward Fisher-Yates step (``j`` uniform in ``p..51``,
    unbiased: rejection sampling on ``getrandbits``). Positions are always
    fixed in order, so the card at a position depends only on the seed, and
    dealing only the cards a hand needs is much cheaper than shuffling all
    52. Same seed, same order, on every machine.

    Args:
        rng: the hand's generator (``random.Random(seed)``); never the global one.
        order: a stacked deck, the full order to use instead of shuffling
            (a permutation of 0..51; the caller checks it).
    """

    __slots__ = ("rng", "order", "fixed")

    def __init__(self, rng: Generator, order: Sequence[int] | None = None) -> None:
        self.rng = rng
        if order is None:
            self.order = _FULL_DECK[:]
            self.fixed = 0  # positions 0..fixed-1 are final
        else:  # a stacked deck (tests, examples): every position given
            self.order = list(order)
            self.fixed = DECK_SIZE

    def upto(self, end: int) -> list[int]:
        """Fix positions ``0..end-1`` and return the order list (do not modify it).

        Raises:
            ValueError: if ``end`` exceeds 52.
        """
        if end > DECK_SIZE:
            raise ValueError(f"a deck has {DECK_SIZE} cards, asked for {end}")
        order = self.order
        getrandbits = self.rng.getrandbits
        bits = _BITS
        for p in range(self.fixed, end):
            m = DECK_SIZE - p
            k = bits[m]
            r = getrandbits(k)
            while r >= m:
                r = getrandbits(k)
            j = p + r
            order[p], order[j] = order[j], order[p]
        if end > self.fixed:
            self.fixed = end
        return order

    def cards(self, start: int, count: int) -> list[int]:
        """The cards at positions ``start .. start+count-1`` of the shuffled order."""
        return self.upto(start + count)[start : start + count]


def check_deck(order: Sequence[int | str]) -> list[int]:
    """A stacked deck as a list of card ints; accepts ints or card texts.

    Raises:
        CardError: not a permutation of the 52 cards (R1.1).
    """
    cards = [parse_card(c) if isinstance(c, str) else c for c in order]
    if sorted(cards) != _FULL_DECK:
        raise CardError("R1.1: a stacked deck must hold each of the 52 cards exactly once")
    return cards


def stacked_deck(
    hands: Sequence[Sequence[int | str] | str], button: int, stock: Sequence[int | str] | str = ()
) -> list[int]:
    """A deck order that deals the given hands (for tests and examples).

    The deal goes one card at a time clockwise from left of the button
    (R2.7), so the k-th seat after the button gets positions k, k+n, ...

    Args:
        hands: seven cards per seat (ints, texts or one space-separated string).
        button: the button's seat.
        stock: the first cards of the stock, in order; the rest of the deck
            follows in ascending order.

    Returns:
        a 52-card order for ``HandState.start(..., deck=...)``.

    Raises:
        CardError: a hand without seven cards, or a card used twice.
    """

    def as_ints(cards: Sequence[int | str] | str) -> list[int]:
        if isinstance(cards, str):
            return parse_cards(cards)
        return [parse_card(c) if isinstance(c, str) else c for c in cards]

    n = len(hands)
    order = [-1] * (7 * n)
    for s, hand in enumerate(hands):
        cards = as_ints(hand)
        if len(cards) != 7:
            raise CardError(f"R2.7: seat {s} needs 7 cards, got {len(cards)}")
        k = (s - button - 1) % n
        for i, c in enumerate(cards):
            order[k + i * n] = c
    order += as_ints(stock)
    used = set(order)
    if len(used) != len(order):
        raise CardError("R1.1: a card appears twice in the stacked hands/stock")
    order += [c for c in _FULL_DECK if c not in used]
    return order
