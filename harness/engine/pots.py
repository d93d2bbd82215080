"""Pots, side pots, split pots and the hand result (RULES.md R3.9, R5.5-R5.7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.engine.evaluator import HandRank


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot, awarded separately (R5.5).

    Attributes:
        amount: chips in the pot.
        eligible: seats that may win it (still in the hand, contributed up to
            its level), ascending.
        winners: seats that won it, in odd-chip order (R5.6).
        shares: chips each winner received, aligned with ``winners``.
    """

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...] = ()
    shares: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a complete hand ended.

    Attributes:
        net: chips won (+) or lost (-) per seat; sums to 0 (R1.4) but for carried chips (R7.4).
        pots: main pot first, then side pots (R5.5).
        shown: seat -> best five, in showing order (R5.7); empty when all
            but one folded (a folded or unchallenged hand is never shown).
        uncalled: ``(seat, chips)`` returned because nobody matched them (R3.9).
        final_stacks: chips per seat after the hand.
        carried_in: chips carried into this deal from passed-out deals, dead money in the main pot
            (R7.4); 0 in a game without openers. ``sum(net) + carried_out == carried_in`` (R1.4).
        carried_out: chips left in the middle for the next deal (R7.4, R7.8); 0 unless passed out or foul.
        passed_out: nobody opened, the deal ended before the draw (R7.4).
        opener: the seat that opened (R7.2), or None (no opening requirement, or nobody opened).
        proof: the opener's opening cards, shown to all at the end (R7.7); () when nobody opened.
        foul: the opener could not show openers and the hand is void (R7.8): no pots, nothing shown;
            only ``harness.engine.jackpots.foul_result`` builds such a result.
    """

    net: tuple[int, ...]
    pots: tuple[Pot, ...]
    shown: Mapping[int, HandRank]
    uncalled: tuple[tuple[int, int], ...]
    final_stacks: tuple[int, ...]
    carried_in: int = 0
    carried_out: int = 0
    passed_out: bool = False
    opener: int | None = None
    proof: tuple[int, ...] = ()
    foul: bool = False


def build_pots(contrib: Sequence[int], live: Sequence[bool]) -> list[tuple[int, tuple[int, ...]]]:
    """Split the chips put in this hand into a main pot and side pots (R5.5).

    Each level is a live player's total contribution; a pot holds, from every
    seat, the chips between the previous level and this one, and only live
    seats that reached the level may win it. Chips of folded seats above the
    top level (cannot happen after R3.9 returns) go to the last pot.

    Args:
        contrib: chips each seat put in this hand (antes, blinds, bets).
        live: per seat, True if still in the hand (not folded).

    Returns:
        ``[(amount, eligible seats)]``, main pot first; never empty pots.
    """
    levels = sorted({c for c, ok in zip(contrib, live, strict=True) if ok})
    pots: list[tuple[int, tuple[int, ...]]] = []
    prev = 0
    for i, level in enumerate(levels):
        top = level if i < len(levels) - 1 else max(contrib)
        amount = sum(min(c, top) - min(c, prev) for c in contrib)
        eligible = tuple(s for s, c in enumerate(contrib) if live[s] and c >= level)
        if amount:
            pots.append((amount, eligible))
        prev = top
    return pots


def split_pot(amount: int, winners: Sequence[int], button: int, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Divide a pot among tied winners in whole chips (R5.6).

    The odd chips go one at a time to the winners in seat order starting
    from the first seat left of the button.

    >>> split_pot(25, [2, 1], button=0, n=3)   # E4
    ((1, 2), (13, 12))

    Returns:
        ``(winners in odd-chip order, chips each)``.
    """
    order = tuple(sorted(winners, key=lambda s: (s - button - 1) % n))
    share, odd = divmod(amount, len(order))
    return order, tuple(share + (1 if i < odd else 0) for i in range(len(order)))
