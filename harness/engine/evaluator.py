"""Hand evaluation: the best five of 5..7 cards (RULES.md R5.1-R5.4).

Pure and importable by bots. Values are ints, higher is better, equal means
a split pot::

    value = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

where r1..r5 are the ranks (0..12 for 2..A) of the five cards that play,
most significant first (R5.3: the trips of a full house before its pair,
pairs before kickers, then kicker by kicker). In the wheel the ace plays
low and is listed last (R5.4), so 5-4-3-2-A compares below 6-5-4-3-2.

Speed: no 21-combination loop. One sum of per-card codes gives both the
rank multiset (base-5 digits) and the suit counts (3-bit fields). A flush
(at most one suit can have five of seven cards, and then no full house or
quads is possible) is looked up by the 13-bit rank mask of that suit; any
other hand by its rank multiset, in a table filled on first use (about
75,000 multisets; ``build_tables()`` fills it at once). Each entry also
holds which positions of the sorted cards form the best five.

>>> from harness.engine.cards import parse_cards, cards_str
>>> hand = best_hand(parse_cards("9s 9d 9c 5h 5s Kc 2d"))
>>> hand.category.label, cards_str(hand.five)
('full house', ['9s', '9d', '9c', '5s', '5h'])
>>> evaluate(parse_cards("Ah Kh Qh Jh Th")) > evaluate(parse_cards("9s 8s 7s 6s 5s"))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from operator import itemgetter

from harness.engine.errors import CardError


class Category(IntEnum):
    """Hand categories, low to high (R5.2)."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        """Words for the category, e.g. ``"full house"``."""
        return self.name.lower().replace("_", " ")


_CATEGORIES = tuple(Category)


@dataclass(frozen=True, slots=True, order=True)
class HandRank:
    """The best five of a player's cards.

    Attributes:
        value: strength, higher is better; equal values split (R5.3).
        category: the hand's category (R5.2).
        five: the five cards that play, most significant first.

    Compares (``<``, ``==``, hash) by ``value`` only: two hands of equal
    value with different suits are equal (suits never break ties, R5.3).
    """

    value: int
    category: Category = field(compare=False)
    five: tuple[int, ...] = field(compare=False)

    @property
    def label(self) -> str:
        """E.g. ``"full house"``."""
        return self.category.label


# --- tables -----------------------------------------------------------------

_WHEEL = 0b1000000001111  # A 5 4 3 2


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1 (R5.4)."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if mask & run == run:
            return top
    return 3 if mask & _WHEEL == _WHEEL else -1


def _straight_ranks(top: int) -> list[int]:
    return [3, 2, 1, 0, 12] if top == 3 else [top, top - 1, top - 2, top - 3, top - 4]


def _pack(category: int, ranks: Sequence[int]) -> int:
    r1, r2, r3, r4, r5 = ranks
    return category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5


_GETTERS: dict[tuple[int, ...], Callable[[Sequence[int]], tuple[int, ...]]] = {}


def _getter(positions: tuple[int, ...]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A shared itemgetter picking the five positions (interned: few distinct)."""
    g = _GETTERS.get(positions)
    if g is None:
        g = _GETTERS[positions] = itemgetter(*positions)
    return g


#: Base-5 digits of 0..3124, least significant first: how many cards of five consecutive ranks.
_DIGITS = [(i % 5, i // 5 % 5, i // 25 % 5, i // 125 % 5, i // 625) for i in range(5**5)]


def _five_positions(counts: Sequence[int], five: Sequence[int]) -> tuple[int, ...]:
    """Positions of the five ranks in the cards sorted high to low (``counts[r]`` cards of rank r)."""
    start = [0] * 13  # where rank r starts: after every card of a higher rank
    at = 0
    for r in range(12, -1, -1):
        start[r] = at
        at += counts[r]
    positions = []
    for r in five:
        positions.append(start[r])
        start[r] += 1
    return tuple(positions)


def _flush_entry(mask: int) -> tuple[int, Callable[[Sequence[int]], tuple[int, ...]]]:
    """Value and picker for the cards of one suit given their rank mask (>= 5 bits)."""
    seq = [r for r in range(12, -1, -1) if mask >> r & 1]
    top = _straight_top(mask)
    if top >= 0:
        five = _straight_ranks(top)
        category = Category.STRAIGHT_FLUSH
    else:
        five = seq[:5]
        category = Category.FLUSH
    return _pack(category, five), _getter(_five_positions([mask >> r & 1 for r in range(13)], five))


def _multiset_entry(key: int) -> tuple[int, Callable[[Sequence[int]], tuple[int, ...]]]:
    """Value and picker for a non-flush hand given its rank multiset key.

    ``key`` is ``sum(5 ** rank)`` over the cards, so digit r (base 5) is how
    many cards of rank r the hand holds. Ranks are taken by (count, rank),
    highest first: the quads, trips or pairs before the kickers (R5.3).
    """
    high, low = divmod(key, 5**5)
    top, middle = divmod(high, 5**5)
    if key < 0 or top >= 5**3:
        raise CardError(f"R5.1: no hand of 5..7 cards has rank multiset key {key}")
    counts = _DIGITS[low] + _DIGITS[middle] + _DIGITS[top][:3]
    if not 5 <= sum(counts) <= 7:
        raise CardError(f"R5.1: no hand of 5..7 cards has rank multiset key {key}")
    groups = sorted([(c, r) for r, c in enumerate(counts) if c], reverse=True)
    (c1, r1), (c2, r2) = groups[0], groups[1]
    if c1 == 4:
        category, five = Category.FOUR_OF_A_KIND, [r1, r1, r1, r1, max([r for _, r in groups[1:]])]
    elif c1 == 3 and c2 >= 2:  # the best pair may come from a second three of a kind
        p = max([r for c, r in groups[1:] if c >= 2])
        category, five = Category.FULL_HOUSE, [r1, r1, r1, p, p]
    else:
        mask = 0
        for _, r in groups:
            mask |= 1 << r
        straight = _straight_top(mask)
        if straight >= 0:
            category, five = Category.STRAIGHT, _straight_ranks(straight)
        elif c1 == 3:
            category, five = Category.THREE_OF_A_KIND, [r1, r1, r1, groups[1][1], groups[2][1]]
        elif c2 == 2:  # two pair: the best kicker of all the rest, a third pair's included
            category, five = Category.TWO_PAIR, [r1, r1, r2, r2, max([r for _, r in groups[2:]])]
        elif c1 == 2:
            category, five = Category.ONE_PAIR, [r1, r1, groups[1][1], groups[2][1], groups[3][1]]
        else:
            category, five = Category.HIGH_CARD, [r for _, r in groups[:5]]
    return _pack(category, five), _getter(_five_positions(counts, five))


class _LazyTable(dict):  # type: ignore[type-arg]
    """Multiset key -> (value, picker), computed on first use and kept."""

    def __missing__(self, key: int) -> tuple[int, Callable[[Sequence[int]], tuple[int, ...]]]:
        entry = self[key] = _multiset_entry(key)
        return entry


_NONFLUSH: dict[int, tuple[int, Callable[[Sequence[int]], tuple[int, ...]]]] = _LazyTable()

# Per-card code: rank multiset digit (base 5) above 12 bits of suit counts.
_CODE = [(5 ** (c >> 2)) << 12 | 1 << 3 * (c & 3) for c in range(52)]
_BIT = [1 << (c >> 2) for c in range(52)]
# Suit-count field -> the suit holding five or more cards, else -1.
_FLUSH_SUIT = [-1] * 4096
for _k in range(4096):
    for _s in range(4):
        if (_k >> 3 * _s) & 7 >= 5:
            _FLUSH_SUIT[_k] = _s
_FLUSH: list[tuple[int, Callable[[Sequence[int]], tuple[int, ...]]] | None] = [
    _flush_entry(m) if m.bit_count() >= 5 else None for m in range(8192)
]
del _k, _s


def build_tables() -> int:
    """Fill the whole non-flush table now (about 0.4 s) instead of on first use.

    Returns:
        the number of entries (rank multisets of 5..7 cards with at most four
        of a rank).
    """

    def fill(rank: int, left: int, key: int, size: int) -> None:
        if rank < 0:
            if size >= 5:
                _NONFLUSH[key]  # noqa: B018 -- __missing__ fills it
            return
        for n in range(min(4, left) + 1):
            fill(rank - 1, left - n, key + n * 5**rank, size + n)

    fill(12, 7, 0, 0)
    return len(_NONFLUSH)


def _bad(cards: Sequence[int]) -> CardError:
    return CardError(
        f"R5.1: cannot evaluate {list(cards)!r}: need 5 to 7 distinct cards, ints 0..51"
    )


def evaluate(cards: Sequence[int]) -> int:
    """Strength of the best five of 5..7 cards; higher is better (R5.2-R5.4).

    Args:
        cards: 5, 6 or 7 distinct cards (ints 0..51).

    Returns:
        the packed value (see the module docstring); equal values split.

    Raises:
        CardError: wrong count, a duplicate, or something that is not a card.
    """
    try:
        total = sum(map(_CODE.__getitem__, cards))
    except (IndexError, TypeError):
        raise _bad(cards) from None
    suit = _FLUSH_SUIT[total & 4095]
    if suit < 0:
        if not 5 <= len(cards) <= 7 or len(set(cards)) != len(cards) or min(cards) < 0:
            raise _bad(cards)
        return _NONFLUSH[total >> 12][0]
    if len(set(cards)) != len(cards) or not 5 <= len(cards) <= 7 or min(cards) < 0:
        raise _bad(cards)
    mask = 0
    for c in cards:
        if c & 3 == suit:
            mask |= _BIT[c]
    return _FLUSH[mask][0]  # type: ignore[index]


def best_hand(cards: Sequence[int]) -> HandRank:
    """The best five of 5..7 cards, with its value and category (R5.1-R5.4).

    Args:
        cards: 5, 6 or 7 distinct cards (ints 0..51).

    Returns:
        a ``HandRank``; ``five`` lists the five cards that play, most
        significant first (for equal ranks, the higher suit first).

    Raises:
        CardError: wrong count, a duplicate, or something that is not a card.
    """
    try:
        total = sum(map(_CODE.__getitem__, cards))
    except (IndexError, TypeError):
        raise _bad(cards) from None
    if not 5 <= len(cards) <= 7 or len(set(cards)) != len(cards) or min(cards) < 0:
        raise _bad(cards)
    suit = _FLUSH_SUIT[total & 4095]
    if suit < 0:
        value, pick = _NONFLUSH[total >> 12]
        five = pick(sorted(cards, reverse=True))
    else:
        suited = sorted([c for c in cards if c & 3 == suit], reverse=True)
        mask = 0
        for c in suited:
            mask |= _BIT[c]
        value, pick = _FLUSH[mask]  # type: ignore[misc]
        five = pick(suited)
    return HandRank(value, _CATEGORIES[value >> 20], five)


def category_of(value: int) -> Category:
    """The category of a value returned by ``evaluate``."""
    return _CATEGORIES[value >> 20]


def flush_draw(cards: Sequence[int]) -> list[int] | None:
    """Four (or more) cards of one suit among ``cards``: the four highest of that suit, highest first, else None."""
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[c & 3] += 1
    suit = max(range(4), key=counts.__getitem__)
    if counts[suit] >= 4:
        return sorted((c for c in cards if c & 3 == suit), reverse=True)[:4]
    return None


def straight_draw(cards: Sequence[int]) -> list[int] | None:
    """Four cards of consecutive ranks open at both ends (8 outs, R5.4), highest first (the higher suit of a
    rank), else None; runs T-K down to 2-5 (2-5 is open at the ace and the six)."""
    ranks = {c >> 2 for c in cards}
    for low in range(8, -1, -1):
        run = range(low, low + 4)
        if all(r in ranks for r in run):
            return [max(c for c in cards if c >> 2 == r) for r in reversed(run)]
    return None


def best_keep(cards: Sequence[int]) -> list[int]:
    """Which cards to keep before the draw (at most 4 discards, R4.1), as a strong player keeps them; the one
    home of this rule (the example bots and :mod:`harness.rl` use it).

    Made straights or better keep their five; quads, trips and two pair keep only the made part to draw at
    a full house; a four-card flush or open-ended straight draw beats a pair below tens; a pair keeps its
    best kicker; otherwise the three highest.

    Args:
        cards: 5 to 7 distinct cards (ints 0..51).

    Returns:
        The cards to keep (3 to 5 of them), a subset of ``cards``.

    Raises:
        CardError: as :func:`best_hand`.
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
    flush = flush_draw(cards)
    if flush is not None:
        return flush
    straight = straight_draw(cards)
    if cat == Category.ONE_PAIR:
        if straight is not None and (five[0] >> 2) < 8:
            return straight
        return list(five[:3])
    if straight is not None:
        return straight
    return list(five[:3])


def improving_cards(rest: Sequence[int], above: int) -> int:
    """How many cards not in ``rest`` make, with the 4..6 distinct cards of ``rest``, a best five of a category
    above ``above`` (a :class:`Category` value): the outs of a one-card draw (R5.2). The evaluator's sum of
    per-card codes, updated by one card per candidate (about 10x cheaper than 46 calls of :func:`evaluate`).

    Raises:
        CardError: ``rest`` is not 4..6 distinct cards.
    """
    if not 4 <= len(rest) <= 6 or len(set(rest)) != len(rest) or not all(type(c) is int and 0 <= c < 52 for c in rest):
        raise _bad(rest)
    base = sum(_CODE[c] for c in rest)
    held = set(rest)
    bar = (above + 1) << 20
    count = 0
    for c in range(52):
        if c in held:
            continue
        total = base + _CODE[c]
        suit = _FLUSH_SUIT[total & 4095]
        if suit < 0:
            value = _NONFLUSH[total >> 12][0]
        else:
            mask = _BIT[c] if c & 3 == suit else 0
            for d in rest:
                if d & 3 == suit:
                    mask |= _BIT[d]
            value = _FLUSH[mask][0]  # type: ignore[index]
        if value >= bar:
            count += 1
    return count
