"""The fields of a hand, declared once with their types for every part of the hand state machine.

:class:`HandFields` holds annotations only (``__slots__ = ()``): :class:`harness.engine.state.HandState`
declares the slots and :mod:`harness.engine.legality` and :mod:`harness.engine.rounds` read and change
the same fields, so a type checker sees one declaration. Chip amounts are ints; seats are indexes
0..n-1 of the hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.engine.actions import Legal, Phase
from harness.engine.cards import Deck
from harness.engine.config import GameConfig
from harness.engine.pots import HandResult

__all__ = ["HandFields"]


class HandFields:
    """The hand's fields (module doc); public ones are read-only by convention."""

    if TYPE_CHECKING:
        def _to_call(self, s: int) -> int:
            """Chips seat ``s`` must add to call (:class:`harness.engine.legality.LegalMoves`)."""
            ...
    else:  # the slots are HandState's: a checker sees the fields as declared here
        __slots__ = ()

    config: GameConfig
    n: int
    button: int
    seed: int
    hand_id: int
    phase: Phase
    to_act: int | None
    starting_stacks: tuple[int, ...]
    stacks: list[int]
    bets: list[int]
    contrib: list[int]
    folded: list[bool]
    all_in: list[bool]
    cards: list[list[int]]
    hole_cards: tuple[tuple[int, ...], ...]
    draws: list[int | None]
    history: list[dict[str, Any]]
    _rng: Any  # random.Random, or a clone's stand-in that materialises one when asked
    _rng_saved: tuple[Any, ...] | None
    _deck: Deck
    _pos: int
    _stock: list[int]
    _muck: list[int]
    _fl: bool
    _unit: int
    _high: int
    _inc: int
    _nbets: int
    _acted: list[bool]
    _acted_high: list[int]
    _n_live: int
    _n_able: int
    _r1_high: int
    _aggressor: int | None
    _draw_order: list[int]
    _draw_index: int
    _log: list[tuple[Any, ...]]
    _uncalled: list[tuple[int, int]]
    _result: HandResult | None
    _legal: Legal | None
    _bb_seat: int
    _received: list[tuple[int, ...] | None]
    _stacked: bool
    _raise_cap: bool


