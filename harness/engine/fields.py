"""The fields of a hand, declared once with their types for every part of the hand state machine.

:class:`HandFields` holds annotations only (``__slots__ = ()``): :class:`harness.engine.state.HandState`
declares the slots and :mod:`harness.engine.legality` and :mod:`harness.engine.rounds` read and change
the same fields, so a type checker sees one declaration. Chip amounts are ints; seats are indexes
0..n-1 of the hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from harness.engine.actions import Legal, Phase
from harness.engine.cards import Deck
from harness.engine.config import GameConfig
from harness.engine.evaluator import HandRank
from harness.engine.games import GameDefinition, Openers
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
    game: GameDefinition
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
    # the game's definition, read once (R6): its hooks in the shared rounds
    _round: int  # the betting round, 1..draws + 1 (during a draw: the round just played)
    _rank_hand: Callable[[Sequence[int]], HandRank]  # a player's cards at the showdown, higher better (R6.7)
    _max_discards: int  # R6.4
    _draw_legal: Legal
    _open_rule: Openers | None  # a game of openers: what opening needs (R6.3, R7.2); None: no opening (R6.10)
    _opener: int | None  # R7.2
    _proof: tuple[int, ...]  # R7.7
    _carried: int  # chips carried in from passed-out deals (R7.4)
    _fold_mucks: bool  # a folded hand leaves its seat's cards (every game but Seven Card Draw, whose records keep it)


