"""Phases, actions and the legal-action summary of a decision (RULES.md R3.5, R4.1)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Phase(StrEnum):
    """Where a hand is: round 1, the draw, round 2, or over (R3.1, R4.1)."""

    BET1 = "bet1"
    DRAW = "draw"
    BET2 = "bet2"
    COMPLETE = "complete"


class ActionKind(StrEnum):
    """What a player may do (R3.5; ``draw`` is R4.1, 0 discards = stand pat)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Action:
    """One player decision.

    Attributes:
        kind: the action.
        amount: for ``bet``/``raise`` the "to" total for this round in chips
            (R3.5); ignored for the other kinds.
        discards: for ``draw`` the cards thrown away (0..4, held, distinct);
            ignored for the other kinds.
    """

    kind: ActionKind
    amount: int = 0
    discards: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Legal:
    """What the seat to act may do now, with exact amounts.

    Attributes:
        actions: the legal kinds (fold is legal at every betting turn, R3.5;
            in the draw only ``draw``).
        call_amount: chips a call adds (less than the bet when it puts the
            player all-in); 0 when there is nothing to call.
        min_to: smallest legal bet/raise "to" total (chips in this round), or
            0 when no bet/raise is legal. Equals ``max_to`` when only an
            all-in for less, or a raise to the deepest opponent's reach
            below the minimum, is possible, and in fixed-limit (R3.7).
        max_to: largest legal bet/raise "to" total, or 0: the all-in, or
            what the deepest opponent still in the hand can match (its bet
            this round plus its stack) when that is less (R3.4, E14).
        max_discards: 4 in the draw (R4.1), else 0.
    """

    actions: tuple[ActionKind, ...]
    call_amount: int = 0
    min_to: int = 0
    max_to: int = 0
    max_discards: int = 0


#: The forced bets of a hand's public history, in the order they are posted: ``action`` of the
#: events before the first decision (R2.4 antes, R2.2 blinds).
POSTS: tuple[str, ...] = ("ante", "small_blind", "big_blind")

FOLD, CHECK, CALL, BET, RAISE, DRAW = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.BET,
    ActionKind.RAISE,
    ActionKind.DRAW,
)
NO_LEGAL = Legal(())
DRAW_LEGAL = Legal((DRAW,), max_discards=4)
STAND_PAT = Action(DRAW)
FOLD_ACTION = Action(FOLD)
CHECK_ACTION = Action(CHECK)
CALL_ACTION = Action(CALL)


class Shorthands:
    """A hand state's one-word moves, each an :meth:`apply` of its :class:`Action` (R3.5, R4).

    A mixin (``__slots__ = ()``) of :class:`harness.engine.state.HandState` and
    :class:`harness.engine.native_state.NativeHandState`, which define ``apply``; each move raises
    what their ``apply`` raises (``IllegalActionError``, ``InvalidActionError``).
    """

    __slots__ = ()

    def apply(self, action: Action) -> None:  # pragma: no cover - the hand states' own
        """Apply ``action`` for the seat to act (defined by the hand state)."""
        raise NotImplementedError

    def fold(self) -> None:
        """Fold (legal at every betting turn, R3.5)."""
        self.apply(FOLD_ACTION)

    def check(self) -> None:
        """Check (nothing to call, R3.5)."""
        self.apply(CHECK_ACTION)

    def call(self) -> None:
        """Call, or go all-in for less (R3.5)."""
        self.apply(CALL_ACTION)

    def bet(self, to: int) -> None:
        """Bet to ``to`` chips this round (first wager of a round, R3.5)."""
        self.apply(Action(BET, to))

    def raise_to(self, to: int) -> None:
        """Raise to a total of ``to`` chips this round (R3.5)."""
        self.apply(Action(RAISE, to))

    def draw(self, discards: Iterable[int]) -> None:
        """Discard these cards (none = stand pat; at most the game's ``max_discards``) and receive as many (R4)."""
        self.apply(Action(DRAW, 0, tuple(discards)))
