"""Card helpers shared by the example bots: text <-> int, and draw choices.

Cards are ints ``rank * 4 + suit`` (rank 0..12 for 2..A, suit 0..3 for c d h s), the
encoding of ``harness.engine.evaluator`` (the only part of ``harness`` bots may use).
``harness.engine`` is imported on first use of :func:`smart_keep` only: importing it
costs a bot about 60 ms of CPU at start, and the caller's draw does not need it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays out of a bot's start-up; mypy treats the name as true
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_TEXT: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_INT: dict[str, int] = {t: i for i, t in enumerate(CARD_TEXT)}


def to_ints(cards: Iterable[str]) -> list[int]:
    """``["As", "Td"]`` -> ``[51, 33]``."""
    return [CARD_INT[c] for c in cards]


def to_texts(cards: Iterable[int]) -> list[str]:
    """``[51, 33]`` -> ``["As", "Td"]``."""
    return [CARD_TEXT[c] for c in cards]


def discard_to_best_five(cards: Sequence[str]) -> list[str]:
    """The cards not in the best five (R5.1): throwing them away can only improve the hand.

    The same five as ``harness.engine.evaluator.best_hand`` (equal ranks: the higher suit
    plays), found directly: the evaluator fills its table lazily, about 50 us per new
    rank multiset, which would be most of a caller bot's CPU per hand. Hands without a
    flush or straight (nine in ten) take a short path of string and sort operations.

    Args:
        cards: The five to seven held cards as strings, e.g. ``["As", "Td", ...]``.

    Returns:
        The cards outside the best five (two of seven), in no particular order.

    Raises:
        ValueError: Not 5 to 7 distinct card strings (R1.1, R5.1).
    """
    n = len(cards)
    if not 5 <= n <= 7 or len(set(cards)) != n or not _CARD_SET.issuperset(cards):
        raise ValueError(f"R5.1: need 5 to 7 distinct cards like 'As', got {list(cards)!r}")
    text = "".join(cards)
    ranks = text[::2]
    mask = sum(map(_RANK_BIT.__getitem__, set(ranks)))
    if (
        max(map(text[1::2].count, SUITS)) > 4  # a flush
        or mask & mask >> 1 & mask >> 2 & mask >> 3 & mask >> 4  # five ranks in a row
        or mask & _WHEEL == _WHEEL
    ):
        five = _best_five(sorted(map(CARD_INT.__getitem__, cards), reverse=True))
        return [CARD_TEXT[c] for c in sorted(map(CARD_INT.__getitem__, cards)) if c not in five]
    # Sorted by (cards of the rank, rank, suit) the best five come last, except that
    # quads and two pair take the best kicker of all the rest (R5.3).
    keys = sorted([ranks.count(c[0]) << 6 | CARD_INT[c] for c in cards])
    top = keys[-1] >> 6
    if top == 4 or top == 2 and keys[-3] >> 6 == 2:
        return [CARD_TEXT[c] for c in sorted([k & 63 for k in keys[:-4]])[:-1]]
    return [CARD_TEXT[k & 63] for k in keys[: n - 5]]


_CARD_SET = frozenset(CARD_TEXT)
_RANK_BIT = {r: 1 << i for i, r in enumerate(RANKS)}
_WHEEL = 0b1000000001111  # A 5 4 3 2 (R5.4)


def _straight(desc: Sequence[int]) -> list[int] | None:
    """The highest straight among cards sorted high to low (one card per rank, higher suit), else None (R5.4)."""
    first: dict[int, int] = {}
    for c in desc:
        first.setdefault(c >> 2, c)
    for top in range(12, 3, -1):
        if top in first and top - 1 in first and top - 2 in first and top - 3 in first and top - 4 in first:
            return [first[top], first[top - 1], first[top - 2], first[top - 3], first[top - 4]]
    if 12 in first and 3 in first and 2 in first and 1 in first and 0 in first:
        return [first[3], first[2], first[1], first[0], first[12]]  # the wheel: the ace plays low
    return None


def _best_five(desc: list[int]) -> list[int]:
    """The best five (R5.2) of 5..7 distinct card ints sorted high to low.

    Order of the checks: with at most seven cards a flush (five of one suit) rules out
    quads and a full house, and a straight rules them out too.
    """
    by_suit: list[list[int]] = [[], [], [], []]
    for c in desc:
        by_suit[c & 3].append(c)
    for suited in by_suit:
        if len(suited) >= 5:
            return _straight(suited) or suited[:5]
    by_rank: dict[int, list[int]] = {}
    for c in desc:
        by_rank.setdefault(c >> 2, []).append(c)
    groups = sorted(by_rank.values(), key=len, reverse=True)  # stable: equal sizes stay high to low
    top = len(groups[0])
    second = len(groups[1])
    if top == 3 and second >= 2:
        return groups[0] + groups[1][:2]  # full house (of two trips, the lower gives the pair)
    if top < 4:
        straight = _straight(desc)
        if straight is not None:
            return straight
    made = groups[0] + groups[1] if top == 2 and second == 2 else groups[0] if top >= 2 else []
    return made + [c for c in desc if c not in made][: 5 - len(made)]


def smart_keep(cards: Sequence[int]) -> list[int]:
    """Which cards to keep before the draw (at most 4 discards, R4.1), for a strong player: the
    evaluator's ``best_keep`` (the rule's one home; made hands keep the made part, four-card flush
    and open-ended straight draws, a pair with its best kicker, else the three highest).

    Args:
        cards: Seven ints.

    Returns:
        The cards to keep (3 to 5 of them).
    """
    from harness.engine.evaluator import best_keep  # see the module docstring

    return best_keep(cards)

