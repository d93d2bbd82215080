"""What the player to act may do now, and why an action is refused (R3, R4): the :class:`LegalMoves` part of
:class:`harness.engine.state.HandState`.

A mixin: it holds no state of its own (``__slots__ = ()``) and reads the hand's fields, declared on
``HandState``. Every message names the rule id it enforces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.engine.actions import (
    BET,
    CALL,
    CALL_ACTION,
    CHECK,
    CHECK_ACTION,
    DRAW,
    FOLD_ACTION,
    NO_LEGAL,
    RAISE,
    STAND_PAT,
    Action,
    ActionKind,
    Legal,
)
from harness.engine.cards import CARD_STRS, DECK_SIZE
from harness.engine.constants import (
    BET1,
    COMPLETE,
    DRAW_PHASE,
    K_FOLD_CALL,
    K_FOLD_CALL_RAISE,
    K_FOLD_CHECK_BET,
    K_FOLD_CHECK_RAISE,
    LEGAL_FOLD_CHECK,
    legal_of,
)
from harness.engine.errors import IllegalActionError, InvalidActionError
from harness.engine.fields import HandFields
from harness.engine.openers import openers


def full_raise(size: int, all_in: bool, fixed_limit: bool, unit: int, inc: int) -> bool:
    """Whether a bet or raise by ``size`` chips is a full one, that reopens the betting and counts toward
    the cap (R3.7, R3.8). The one test of it for every draw game.

    Args:
        size: chips above the round's highest bet before it.
        all_in: the wager leaves the player all-in.
        fixed_limit: the structure is fixed-limit.
        unit: the round's fixed-limit bet (chips).
        inc: no-limit: the least full raise now (chips, R3.6).
    """
    if fixed_limit:
        return size >= unit or (all_in and 2 * size >= unit)  # R3.8: half a bet or more is a full raise
    return size >= inc


def reopened(high: int, acted_high: int, fixed_limit: bool, unit: int, inc: int) -> bool:
    """Whether a player who acted when the highest bet was ``acted_high`` may raise again now that it is
    ``high``: only a full raise in total since it acted reopens the betting (R3.8)."""
    return high - acted_high >= (unit if fixed_limit else inc)


def deepest_reach(bets: Sequence[int], stacks: Sequence[int], folded: Sequence[bool], s: int) -> int:
    """The most chips any opponent of seat ``s`` still in the hand can have in this round (R3.4).

    Its bet this round plus its stack: an all-in or folded player adds nothing more, so a bet or raise
    above the deepest opponent's reach could only come back (R3.9).
    """
    reach = 0
    for o in range(len(bets)):
        if o != s and not folded[o]:
            r = bets[o] + stacks[o]
            if r > reach:
                reach = r
    return reach


def owed_call(high: int, bets: Sequence[int], folded: Sequence[bool], s: int, alone: bool) -> int:
    """Chips seat ``s`` must add to call (<= 0: nothing to call), R3.4 and R3.9.

    Up to the round's highest bet (a short all-in big blind still sets the full big blind, R2.6); but
    when ``alone`` (nobody else can still act), never beyond what the other players still in the hand
    have put in this round: chips nobody could match would only come back (R3.9).
    """
    if alone:
        matched = 0
        for o in range(len(bets)):
            if o != s and not folded[o] and bets[o] > matched:
                matched = bets[o]
        if matched < high:
            high = matched
    return high - bets[s]


def wager_bounds(high: int, top: int, fixed_limit: bool, unit: int, inc: int) -> tuple[int, int] | None:
    """``(min_to, max_to)`` of the bet or raise a player may make, or None (R3.4, R3.6, R3.7).

    Args:
        high: the round's highest bet (chips).
        top: the most the player may bet to: its all-in, or less when R3.4 bounds it by the deepest
            opponent's reach.
        fixed_limit, unit, inc: as :func:`full_raise`.

    Returns:
        None when ``top`` does not exceed ``high``; else the range, where an all-in (or R3.4's bound)
        below the minimum is the only amount offered.
    """
    if top <= high:
        return None
    lo = high + (unit if fixed_limit else inc)
    if fixed_limit:
        hi = lo if lo < top else top
        return hi, hi
    return (lo if lo < top else top), top


class LegalMoves(HandFields):
    """``legal()``, ``default_action()``, ``capped()``, ``verify()``/``can()`` and the checks behind them (mixin of
    HandState)."""

    __slots__ = ()

    def legal(self) -> Legal:
        """What the seat to act (``to_act``) may do now, with exact amounts.

        Returns:
            a ``Legal``; ``Legal(())`` when the hand is complete.
        """
        lg = self._legal
        if lg is None:
            phase = self.phase
            if phase is DRAW_PHASE:
                lg = self._draw_legal
            elif phase is COMPLETE:
                lg = NO_LEGAL
            else:
                lg = self._betting_legal(self.to_act)  # type: ignore[arg-type]
            self._legal = lg
        return lg

    def _may_raise(self, s: int) -> bool:
        """Whether seat s may bet/raise at all (R3.4, R3.7 cap, R3.8 reopen)."""
        if self._n_able < 2:  # nobody left who could answer a raise (R3.4)
            return False
        if self._fl and self.config.cap and self._nbets >= self.config.cap:
            return False
        if self._acted[s]:  # only a full raise in total since it acted reopens (R3.8)
            return reopened(self._high, self._acted_high[s], self._fl, self._unit, self._inc)
        return True

    def _to_call(self, s: int) -> int:
        """Chips seat s must add to call (<= 0: nothing to call), R3.4 and R3.9.

        Up to the round's highest bet (a short all-in big blind still sets the
        full big blind, R2.6); but when nobody else can still act, never beyond
        what the other players have put in this round: chips nobody could match
        would only come back (R3.9), so they are not asked for.
        """
        if self._n_able >= 2:
            return self._high - self.bets[s]
        return owed_call(self._high, self.bets, self.folded, s, True)

    def _reach(self, s: int) -> int:
        """The most chips any opponent of seat s still in the hand can have in this round (R3.4).

        Its bet this round plus its stack: an all-in or folded player adds
        nothing more, so a bet or raise above the deepest opponent's reach
        could only come back (R3.9).
        """
        return deepest_reach(self.bets, self.stacks, self.folded, s)

    def _without_openers(self, s: int) -> bool:
        """Whether seat s may not make round 1's first bet for want of openers (R7.2, R7.3)."""
        rule = self._open_rule
        return (rule is not None and self._opener is None and self.phase is BET1
                and openers(self.cards[s], rule) is None)

    def _betting_legal(self, s: int) -> Legal:
        stack = self.stacks[s]
        if self._open_rule is not None and self._without_openers(s):  # R7.3: check or fold, never open
            owed = self._to_call(s)
            return legal_of(K_FOLD_CALL, min(owed, stack), 0, 0) if owed > 0 else LEGAL_FOLD_CHECK
        high = self._high
        bet = self.bets[s]
        to_call = high - bet if self._n_able >= 2 else self._to_call(s)
        if stack > to_call and self._may_raise(s):
            top = bet + stack  # the all-in
            if self._raise_cap:
                # R3.4: a wager is only offered when an opponent can put in more than the
                # call, and only up to what the deepest of them can match (E14).
                reach = self._reach(s)
                if reach < top:
                    top = reach
            bounds = wager_bounds(high, top, self._fl, self._unit, self._inc)
            if bounds is not None:
                lo, hi = bounds
                if to_call > 0:
                    return legal_of(K_FOLD_CALL_RAISE, to_call, lo, hi)
                return legal_of(K_FOLD_CHECK_BET if high == 0 else K_FOLD_CHECK_RAISE, 0, lo, hi)
        if to_call > 0:
            return legal_of(K_FOLD_CALL, to_call if to_call < stack else stack, 0, 0)
        return LEGAL_FOLD_CHECK

    def default_action(self) -> Action:
        """The referee's action for a faulting bot: check if free, else fold; stand pat in the draw.

        Raises:
            IllegalActionError: the hand is complete.
        """
        phase = self.phase
        if phase is DRAW_PHASE:
            return STAND_PAT
        if phase is COMPLETE:
            raise IllegalActionError("R1.3: the hand is complete; nobody is to act")
        return CHECK_ACTION if self._to_call(self.to_act) <= 0 else FOLD_ACTION  # type: ignore[arg-type]

    # --- validation ------------------------------------------------------------

    def verify(self, action: Action) -> None:
        """Raise if ``action`` may not be applied now by the seat to act; change nothing.

        Raises:
            InvalidActionError: malformed (not an Action, wrong types, a card
                not held, duplicate discards).
            IllegalActionError: against the rules now; the message names the
                rule id, e.g. "R3.6: raise to 45 is below the minimum 50".
        """
        self._check(action)

    def capped(self, action: Action) -> Action:
        """The bet or raise a player may make that is nearest to ``action``: what the referee plays (R3.10).

        A bet or raise to more than ``legal().max_to`` (above the player's
        all-in, or above what the deepest opponent can match, R3.4) is the
        all-in the player meant, capped: a bet or raise to ``max_to``. Where
        no bet or raise is offered only for want of chips (no opponent could
        answer or match more than the call, R3.4; the player's stack does not
        exceed the call, R3.5), one to the player's all-in or beyond, or to
        more than the call total, is a call (or a check with nothing to call). ``verify`` stays strict; anything else,
        a bet or raise below the minimum, of the wrong kind (R3.5), past the
        cap (R3.7) or where the betting was not reopened (R3.8) included, is
        returned unchanged for ``verify``/``apply`` to judge.

        Returns:
            ``action`` itself, or the capped action (an ``Action``).
        """
        if type(action) is not Action or (action.kind is not BET and action.kind is not RAISE):
            return action
        to = action.amount
        if type(to) is not int or self.phase is DRAW_PHASE or self.phase is COMPLETE:
            return action
        lg = self._legal or self.legal()
        if action.kind in lg.actions:
            return Action(action.kind, lg.max_to) if to > lg.max_to else action
        s: int = self.to_act  # type: ignore[assignment]
        high = self._high
        if (action.kind is BET) != (high == 0):  # a bet where a raise is due, or the reverse (R3.5)
            return action
        if BET in lg.actions or RAISE in lg.actions:  # offered, of the other kind: R3.5 judges it
            return action
        to_call = self._to_call(s)
        bet = self.bets[s]
        if to < bet + self.stacks[s] and to <= bet + (to_call if to_call > 0 else 0):
            return action  # neither the all-in nor more than the call: meant as it is, judged as it is
        short = self.stacks[s] <= to_call  # R3.5: its chips do not exceed the call
        if not short and self._n_able >= 2 and not self._may_raise(s):  # R3.7 cap or R3.8: not for chips
            return action
        if not short and self._n_able >= 2 and self._reach(s) > high:  # not refused by R3.4
            return action
        return CHECK_ACTION if CHECK in lg.actions else CALL_ACTION

    def can(self, action: Action) -> bool:
        """True if ``verify(action)`` would pass."""
        try:
            self._check(action)
        except (InvalidActionError, IllegalActionError):
            return False
        return True

    def _check(self, action: Action) -> tuple[ActionKind, tuple[int, ...] | int | None]:
        """Validate; return the kind and the amount (bet/raise), discards (draw) or None."""
        if type(action) is not Action:
            raise InvalidActionError(f"expected an Action, got {type(action).__name__}: {action!r}")
        kind = action.kind
        if type(kind) is not ActionKind:
            try:
                kind = ActionKind(kind)
            except ValueError:
                raise InvalidActionError(
                    f"unknown action kind {kind!r}; one of {', '.join(ActionKind)}"
                ) from None
        phase = self.phase
        if phase is COMPLETE:
            raise IllegalActionError(f"R1.3: the hand is complete; no {kind} is possible")
        s = self.to_act
        if s is None:  # not reached: a hand not complete always has a seat to act
            raise IllegalActionError(f"R1.3: nobody is to act; no {kind} is possible")
        if phase is DRAW_PHASE:
            if kind is not DRAW:
                raise IllegalActionError(
                    f"R4.1: seat {s} must draw now (discard 0 to {self._max_discards} cards), not {kind}"
                )
            return kind, self._check_discards(s, action.discards)
        lg = self._legal or self.legal()
        if kind in lg.actions:
            if kind is BET or kind is RAISE:
                to = action.amount
                if type(to) is not int:
                    raise InvalidActionError(f"{kind} amount must be an int (chips), got {to!r}")
                if to < lg.min_to or to > lg.max_to:
                    raise IllegalActionError(self._why_amount(s, kind, to, lg))
                return kind, to
            return kind, None
        raise IllegalActionError(self._why_not(s, kind, lg))

    def _check_discards(self, s: int, discards: Any) -> tuple[int, ...]:
        if type(discards) is not tuple:
            try:
                discards = tuple(discards)
            except TypeError:
                raise InvalidActionError(f"discards must be a sequence of cards, got {discards!r}") from None
        if len(discards) > self._max_discards:
            raise IllegalActionError(
                f"R4.1: seat {s} may discard at most {self._max_discards} cards, got {len(discards)}"
            )
        hand = self.cards[s]
        for c in discards:
            if type(c) is not int:
                raise InvalidActionError(f"discards must be card ints 0..51, got {c!r}")
            if c not in hand:
                shown = CARD_STRS[c] if 0 <= c < DECK_SIZE else repr(c)
                raise InvalidActionError(f"R4.1: seat {s} cannot discard {shown}: not in its hand")
        if len(set(discards)) != len(discards):
            raise InvalidActionError(f"R4.1: seat {s} lists a discard twice: {discards!r}")
        checked: tuple[int, ...] = discards
        return checked

    def _why_amount(self, s: int, kind: ActionKind, to: int, lg: Legal) -> str:
        if self._fl:
            return f"R3.7: in fixed-limit seat {s} may {kind} only to exactly {lg.min_to}, not {to}"
        if to > lg.max_to:
            if lg.max_to < self.bets[s] + self.stacks[s]:
                return (f"R3.4: seat {s} cannot {kind} to {to}: no opponent still in the hand "
                        f"can match more than {lg.max_to}")
            return f"R3.6: seat {s} cannot {kind} to {to}: its all-in total is {lg.max_to}"
        rule = "R3.6" if self.phase is BET1 or self._high else "R3.6 (OPR-313 first bet after the draw)"
        return (
            f"{rule}: {kind} to {to} is below the minimum {lg.min_to} "
            f"(all-in for less is {self.bets[s] + self.stacks[s]})"
        )

    def _why_not(self, s: int, kind: ActionKind, lg: Legal) -> str:
        to_call = self._to_call(s)
        if kind is DRAW:
            return f"R4.1: seat {s} cannot draw during the betting round {self.phase}"
        if (kind is BET or kind is RAISE) and self._without_openers(s):
            return (f"R7.3: seat {s} cannot {kind}: opening needs openers "
                    f"({'a pair of jacks or better' if self._open_rule == 'jacks' else 'a jack or higher card'})")
        if kind is CHECK:
            return f"R3.5: seat {s} cannot check: {to_call} to call"
        if kind is CALL:
            return f"R3.5: seat {s} cannot call: nothing to call (check instead)"
        if kind is BET and self._high:
            return f"R3.5: seat {s} cannot bet: a bet is pending, raise instead"
        if kind is RAISE and not self._high:
            return f"R3.5: seat {s} cannot raise: no bet is pending, bet instead"
        if self.stacks[s] <= to_call:
            return f"R3.5: seat {s} cannot {kind}: its {self.stacks[s]} chips do not exceed the call"
        if self._n_able < 2:
            return f"R3.4: seat {s} cannot {kind}: no other player can still act"
        if self._fl and self.config.cap and self._nbets >= self.config.cap:
            return f"R3.7: seat {s} cannot {kind}: the cap of {self.config.cap} bets is reached"
        if self._may_raise(s):
            return (f"R3.4: seat {s} cannot {kind}: no opponent still in the hand can put in more "
                    f"than the {self._high} to call (most is {self._reach(s)})")
        return (
            f"R3.8: seat {s} cannot {kind}: the betting was not reopened (only an incomplete "
            "all-in raise since it acted); call or fold"
        )

    # --- acting ----------------------------------------------------------------
