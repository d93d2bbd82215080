"""The hand state machine of Seven Card Draw (RULES.md R2-R5).

A hand is driven one action at a time::

    >>> from harness.engine import GameConfig, HandState
    >>> state = HandState.start(GameConfig(), stacks=[1000, 1000], button=0, seed=7)
    >>> str(state.phase), state.to_act, state.legal().call_amount   # E8: button is SB, acts first
    ('bet1', 0, 5)
    >>> state.call(); state.check()        # the big blind checks its option (R3.2)
    >>> str(state.phase), state.to_act     # the button draws first (E8)
    ('draw', 0)
    >>> state.draw([]); state.draw([])     # both stand pat
    >>> state.check(); state.check()       # round 2: the big blind acts first
    >>> state.is_complete, sum(state.result().net)
    (True, 0)

Speed matters (the tournament plays millions of hands): cards are ints, the
state mutates in place, every action is fully validated before anything
changes (so a refused action leaves the state as it was), ``legal()`` is
computed on demand and cached until the next action. The engine knows no file
format: hand records are written and read in :mod:`harness.history`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from operator import sub
from typing import Any

from harness.engine.actions import (
    BET,
    CALL,
    CALL_ACTION,
    CHECK,
    CHECK_ACTION,
    DRAW,
    DRAW_LEGAL,
    FOLD,
    FOLD_ACTION,
    NO_LEGAL,
    RAISE,
    STAND_PAT,
    Action,
    ActionKind,
    Legal,
    Phase,
)
from harness.engine.cards import CARD_STRS, DECK_SIZE, Deck, check_deck
from harness.engine.config import (
    MAX_PER_SEAT_PLAYERS,
    GameConfig,
    Replacements,
    Structure,
    seat_count_problem,
)
from harness.engine.errors import CardError, GameConfigError, IllegalActionError, InvalidActionError
from harness.engine.evaluator import HandRank, best_hand
from harness.engine.pots import HandResult, Pot, build_pots, split_pot

HOLE_CARDS = 7  # R2.7
MAX_DISCARDS = 4  # R4.1

BET1, DRAW_PHASE, BET2, COMPLETE = Phase.BET1, Phase.DRAW, Phase.BET2, Phase.COMPLETE
_K_FOLD_CALL = (FOLD, CALL)
_K_FOLD_CALL_RAISE = (FOLD, CALL, RAISE)
_K_FOLD_CHECK = (FOLD, CHECK)
_K_FOLD_CHECK_BET = (FOLD, CHECK, BET)
_K_FOLD_CHECK_RAISE = (FOLD, CHECK, RAISE)
_LEGAL_FOLD_CHECK = Legal(_K_FOLD_CHECK, 0, 0, 0, 0)
_LEGALS: dict[tuple[Any, ...], Legal] = {}  # equal decisions share one frozen Legal: building one costs more


def _legal(kinds: tuple[ActionKind, ...], call: int, lo: int, hi: int) -> Legal:
    """``Legal(kinds, call, lo, hi, 0)``, memoised (values only: any two are equal or not as if built anew)."""
    key = (kinds, call, lo, hi)
    lg = _LEGALS.get(key)
    if lg is None:
        if len(_LEGALS) >= 4096:  # bounded: deep stacks make many amounts
            _LEGALS.clear()
        lg = _LEGALS[key] = Legal(kinds, call, lo, hi, 0)
    return lg


class HandState:
    """One hand of Seven Card Draw, from the posts to the pots.

    Create with ``HandState.start``; read ``phase``, ``to_act``, ``legal()``;
    drive with ``apply(action)`` or ``fold()/check()/call()/bet(to)/
    raise_to(to)/draw(cards)``; when ``is_complete`` read ``result()``.
    All chip amounts are ints.

    Public attributes (read-only by convention): ``config``, ``n`` (seats),
    ``button``, ``seed``, ``hand_id``, ``phase``, ``to_act``,
    ``starting_stacks``, ``stacks`` (chips behind), ``bets`` (chips in the
    current round), ``contrib`` (chips put in this hand), ``folded``,
    ``all_in``, ``cards`` (current cards per seat), ``draws`` (cards drawn
    per seat, None before the draw), ``history`` (public events).
    """

    __slots__ = (
        "config", "n", "button", "seed", "hand_id", "phase", "to_act",
        "starting_stacks", "stacks", "bets", "contrib", "folded", "all_in",
        "cards", "hole_cards", "draws", "history",
        "_rng", "_deck", "_pos", "_stock", "_muck", "_fl", "_unit", "_high",
        "_inc", "_nbets", "_acted", "_acted_high", "_n_live", "_n_able",
        "_r1_high", "_aggressor", "_draw_order", "_draw_index", "_log",
        "_uncalled", "_result", "_legal", "_bb_seat", "_received", "_stacked", "_raise_cap",
        "_rng_saved",
    )

    config: GameConfig
    n: int
    button: int
    seed: int
    hand_id: int
    phase: Phase
    to_act: int | None

    # --- construction ------------------------------------------------------

    @classmethod
    def start(
        cls,
        config: GameConfig,
        stacks: Sequence[int],
        button: int,
        seed: int,
        hand_id: int = 0,
        *,
        deck: Sequence[int | str] | None = None,
        raise_cap: bool = True,
    ) -> HandState:
        """Shuffle, post antes and blinds, deal seven cards each (R2).

        Args:
            config: the game settings.
            stacks: chips per seat (2..6 seats, each >= 1; leave busted
                players out).
            button: the button's seat index.
            seed: the hand's seed; the state makes its own
                ``random.Random(seed)`` for the deal and any R4.4 reshuffle.
            hand_id: the caller's number for the hand (records only).
            deck: a stacked deck for tests and examples: the full shuffled
                order (52 distinct cards, ints or texts) used instead of the
                seed's; the seed still drives any R4.4 reshuffle. Recorded.
            raise_cap: R3.4's bound on bets and raises (never above what the
                deepest opponent still in the hand can match, none when no
                opponent can put in more than the call). False only to replay
                histories of earlier releases, which offered raises up to the
                all-in (RULES.md E14).

        Raises:
            GameConfigError: table size outside 2..6 (R1.2), a stack that is not
                a whole number >= 1, a button outside the table, per-seat
                replacements with more than 4 players (R4.4).
        """
        if type(config) is not GameConfig and not isinstance(config, GameConfig):
            raise GameConfigError(f"config must be a GameConfig, got {type(config).__name__}")
        n = len(stacks)
        problem = seat_count_problem(n)
        if problem:
            raise GameConfigError(problem)
        for s, chips in enumerate(stacks):
            if type(chips) is not int or chips < 1:
                raise GameConfigError(
                    f"R1.4: stack of seat {s} must be a whole number of chips >= 1, got {chips!r} "
                    "(leave busted players out of the hand)"
                )
        if type(button) is not int or not 0 <= button < n:
            raise GameConfigError(f"R2.1: button must be a seat index 0..{n - 1}, got {button!r}")
        if type(seed) is not int:
            raise GameConfigError(f"R2.7: seed must be an int, got {seed!r}")
        if config.replacements is Replacements.PER_SEAT and n > MAX_PER_SEAT_PLAYERS:
            raise GameConfigError(
                f"R4.4: replacements = 'per-seat' needs at most {MAX_PER_SEAT_PLAYERS} players "
                f"(7n + 4n cards), got {n}; use 'stock'"
            )
        if deck is not None:
            try:
                deck = check_deck(deck)
            except CardError as exc:
                raise GameConfigError(str(exc)) from None
        self = object.__new__(cls)
        self.config = config
        self.n = n
        self.button = button
        self.seed = seed
        self.hand_id = hand_id
        self.starting_stacks = tuple(stacks)
        self.stacks = list(stacks)
        self.bets = [0] * n
        self.contrib = [0] * n
        self.folded = [False] * n
        self.all_in = [False] * n
        self.draws: list[int | None] = [None] * n
        self.history: list[dict[str, Any]] = []
        self._rng = rng = random.Random(seed)
        self._rng_saved = None  # the generator's state for clone(), taken once the deck is fixed
        self._deck = Deck(rng, deck)
        self._stacked = deck is not None
        self._raise_cap = raise_cap is not False
        # R2.7: one card at a time clockwise from left of the button, so the
        # k-th seat after the button holds positions k, k+n, k+2n, ...
        order = self._deck.upto(HOLE_CARDS * n)
        cards = [order[(s - button - 1) % n : HOLE_CARDS * n : n] for s in range(n)]
        self.cards = cards
        self.hole_cards = tuple(map(tuple, cards))
        self._pos = HOLE_CARDS * n  # next stock position of the deck
        self._stock: list[int] = []  # the stock after an R4.4 reshuffle
        self._muck: list[int] = []
        self._fl = config.structure is Structure.FIXED_LIMIT
        unit = config.unit
        self._unit = unit
        self._acted = [False] * n
        self._acted_high = [0] * n
        self._n_live = n
        self._n_able = n
        self._aggressor: int | None = None
        self._draw_order: list[int] = []
        self._draw_index = 0
        self._log: list[tuple[Any, ...]] = []
        self._received: list[tuple[int, ...] | None] = [None] * n
        self._uncalled: list[tuple[int, int]] = []
        self._result: HandResult | None = None
        self._legal: Legal | None = None
        self.phase = BET1
        self.to_act = None

        ante = config.ante
        if ante:  # R2.4: dead money, never part of a round's bet
            for k in range(n):
                s = (button + 1 + k) % n
                self._post(s, ante, "ante", False)
        if config.blinds:
            if n == 2:  # R2.3: heads-up, the button posts the small blind
                sb, bb = button, 1 - button
            else:
                sb, bb = (button + 1) % n, (button + 2) % n
            self._post(sb, config.small_blind, "small_blind", True)
            self._post(bb, config.big_blind, "big_blind", True)
            self._bb_seat = bb
            # R3.2/R2.6: the amount to call is the full big blind even if it
            # was posted short; the big blind is the first bet for the cap.
            self._high = config.big_blind
            self._nbets = 1
            first_after = bb
        else:  # R2.5: ante-only, no bet until someone bets min_bet
            self._bb_seat = button
            self._high = 0
            self._nbets = 0
            first_after = button
        self._inc = unit  # R3.6: a raise is at least the big blind (or min_bet)
        self._r1_high = 0
        self._begin_round(first_after)
        return self

    def _post(self, s: int, amount: int, what: str, live: bool) -> None:
        """Post an ante or blind, all-in for less if short (R2.4, R2.6)."""
        stack = self.stacks[s]
        if stack <= 0:
            return
        if amount >= stack:
            amount = stack
            self.all_in[s] = True
            self._n_able -= 1
            self.history.append({"seat": s, "action": what, "amount": amount, "all_in": True})
        else:
            self.history.append({"seat": s, "action": what, "amount": amount})
        self.stacks[s] = stack - amount
        self.contrib[s] += amount
        if live:
            self.bets[s] += amount

    # --- reading -------------------------------------------------------------

    @property
    def is_complete(self) -> bool:
        """True once the hand is over and ``result()`` is available."""
        return self.phase is COMPLETE

    @property
    def pot(self) -> int:
        """All chips committed this hand (antes, blinds, bets), after R3.9 returns."""
        return sum(self.contrib)

    def legal(self) -> Legal:
        """What the seat to act (``to_act``) may do now, with exact amounts.

        Returns:
            a ``Legal``; ``Legal(())`` when the hand is complete.
        """
        lg = self._legal
        if lg is None:
            phase = self.phase
            if phase is DRAW_PHASE:
                lg = DRAW_LEGAL
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
            return self._high - self._acted_high[s] >= (self._unit if self._fl else self._inc)
        return True

    def _to_call(self, s: int) -> int:
        """Chips seat s must add to call (<= 0: nothing to call), R3.4 and R3.9.

        Up to the round's highest bet (a short all-in big blind still sets the
        full big blind, R2.6); but when nobody else can still act, never beyond
        what the other players have put in this round: chips nobody could match
        would only come back (R3.9), so they are not asked for.
        """
        high = self._high
        bets = self.bets
        if self._n_able < 2:
            folded = self.folded
            matched = 0
            for o in range(self.n):
                if o != s and not folded[o] and bets[o] > matched:
                    matched = bets[o]
            if matched < high:
                high = matched
        return high - bets[s]

    def _reach(self, s: int) -> int:
        """The most chips any opponent of seat s still in the hand can have in this round (R3.4).

        Its bet this round plus its stack: an all-in or folded player adds
        nothing more, so a bet or raise above the deepest opponent's reach
        could only come back (R3.9).
        """
        bets, stacks, folded = self.bets, self.stacks, self.folded
        reach = 0
        for o in range(self.n):
            if o != s and not folded[o]:
                r = bets[o] + stacks[o]
                if r > reach:
                    reach = r
        return reach

    def _betting_legal(self, s: int) -> Legal:
        stack = self.stacks[s]
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
            if top > high:
                lo = high + (self._unit if self._fl else self._inc)
                if self._fl:
                    hi = lo if lo < top else top
                    lo = hi
                else:
                    hi = top
                    if lo > hi:
                        lo = hi  # R3.6: all-in for less, or up to the deepest reach (R3.4)
                if to_call > 0:
                    return _legal(_K_FOLD_CALL_RAISE, to_call, lo, hi)
                return _legal(_K_FOLD_CHECK_BET if high == 0 else _K_FOLD_CHECK_RAISE, 0, lo, hi)
        if to_call > 0:
            return _legal(_K_FOLD_CALL, to_call if to_call < stack else stack, 0, 0)
        return _LEGAL_FOLD_CHECK

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
        if phase is DRAW_PHASE:
            if kind is not DRAW:
                raise IllegalActionError(
                    f"R4.1: seat {s} must draw now (discard 0 to 4 cards), not {kind}"
                )
            return kind, self._check_discards(s, action.discards)  # type: ignore[arg-type]
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
        if len(discards) > MAX_DISCARDS:
            raise IllegalActionError(
                f"R4.1: seat {s} may discard at most {MAX_DISCARDS} cards, got {len(discards)}"
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
        return discards

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

    def apply(self, action: Action) -> None:
        """Apply one action of the seat to act (``to_act``).

        Raises:
            InvalidActionError, IllegalActionError: see ``verify``; the state
                is then unchanged.
        """
        kind, checked = self._check(action)
        s: int = self.to_act  # type: ignore[assignment]
        if kind is DRAW:
            self._do_draw(s, checked)  # type: ignore[arg-type]
        elif kind is CALL:
            self._do_call(s)
        elif kind is CHECK:
            self._acted[s] = True
            self._acted_high[s] = self._high
            self.history.append({"seat": s, "action": "check"})
            self._log.append((s, CHECK, 0, 0, 0, self.bets[s], False))
            self._next(s)
        elif kind is FOLD:
            self._do_fold(s)
        else:
            self._do_raise(s, kind, checked)  # type: ignore[arg-type]

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
        """Discard these cards (0..4; none = stand pat) and receive as many (R4)."""
        self.apply(Action(DRAW, 0, tuple(discards)))

    def _do_call(self, s: int) -> None:
        stacks = self.stacks
        add = owed = self._high - self.bets[s] if self._n_able >= 2 else self._to_call(s)
        stack = stacks[s]
        all_in = add >= stack
        if all_in:
            add = stack
            self.all_in[s] = True
            self._n_able -= 1
            self.history.append({"seat": s, "action": "call", "amount": add, "all_in": True})
        else:
            self.history.append({"seat": s, "action": "call", "amount": add})
        stacks[s] = stack - add
        bet = self.bets[s] = self.bets[s] + add
        self.contrib[s] += add
        self._acted[s] = True
        self._acted_high[s] = self._high
        self._log.append((s, CALL, add, owed, add, bet, all_in))
        self._next(s)

    def _do_raise(self, s: int, kind: ActionKind, to: int) -> None:
        bet = self.bets[s]
        owed = self._high - bet  # a raise is never asked of the only player able to act (R3.4)
        add = to - bet
        stack = self.stacks[s] - add
        self.stacks[s] = stack
        self.bets[s] = to
        self.contrib[s] += add
        size = to - self._high
        if self._fl:
            unit = self._unit
            # R3.8: in fixed-limit an all-in of at least half a bet is a full raise
            full = size >= unit or (stack == 0 and 2 * size >= unit)
            if full:
                self._nbets += 1
        else:
            full = size >= self._inc
            if full:
                self._inc = size
        if full:  # a full bet/raise reopens the betting for everyone else (R3.4)
            acted = self._acted
            for o in range(self.n):
                acted[o] = False
        self._high = to
        self._acted[s] = True
        self._acted_high[s] = to
        if stack == 0:
            self.all_in[s] = True
            self._n_able -= 1
            self.history.append({"seat": s, "action": str(kind), "amount": to, "all_in": True})
        else:
            self.history.append({"seat": s, "action": str(kind), "amount": to})
        if self.phase is BET2:
            self._aggressor = s
        self._log.append((s, kind, to, owed if owed > 0 else 0, add, to, stack == 0))
        self._next(s)

    def _do_fold(self, s: int) -> None:
        owed = self._to_call(s)
        self._log.append((s, FOLD, 0, owed if owed > 0 else 0, 0, self.bets[s], False))
        self.folded[s] = True
        self._n_live -= 1
        self._n_able -= 1
        self._muck.extend(self.cards[s])  # R4.4: folded hands join the muck
        self.history.append({"seat": s, "action": "fold"})
        if self._n_live == 1:
            self._end_round()
            self._finish_uncontested()
        else:
            self._next(s)

    # --- betting flow ------------------------------------------------------------

    def _next(self, s: int) -> None:
        """Pass the turn after seat s, or end the round (R3.4)."""
        self._legal = None
        n = self.n
        folded, all_in, acted, bets = self.folded, self.all_in, self._acted, self.bets
        high = self._high
        for _ in range(n - 1):
            s += 1
            if s == n:
                s = 0
            if folded[s] or all_in[s]:
                continue
            if not acted[s] or bets[s] < high:
                # R3.4: the only player able to act, with nothing it could be matched on, has no decision.
                if self._n_able >= 2 or self._to_call(s) > 0:
                    self.to_act = s
                    return
                break
        self._end_round()
        if self.phase is BET1:
            self._begin_draw()
        else:
            self._showdown()

    def _begin_round(self, after: int) -> None:
        """Give the turn to the first seat after ``after`` able to act, or skip (R3.3, R3.4)."""
        self._legal = None
        n = self.n
        folded, all_in = self.folded, self.all_in
        first = None
        s = after
        for _ in range(n):
            s += 1
            if s == n:
                s = 0
            if not (folded[s] or all_in[s]):
                first = s
                break
        # R3.4: with at most one player able to act and nothing for them to
        # call, there is no betting in this round.
        if first is None or (self._n_able < 2 and self._to_call(first) <= 0):
            self._end_round()
            if self.phase is BET1:
                self._begin_draw()
            else:
                self._showdown()
            return
        self.to_act = first

    def _end_round(self) -> None:
        """Return uncalled chips (R3.9) and close the round's bets."""
        bets = self.bets
        top = max(bets)
        if top:
            second = sorted(bets)[-2]
            if top > second:
                owner = bets.index(top)
                back = top - second
                self.stacks[owner] += back
                self.contrib[owner] -= back
                self._uncalled.append((owner, back))
                if self.all_in[owner]:
                    self.all_in[owner] = False
                    if not self.folded[owner]:
                        self._n_able += 1
        if self.phase is BET1:
            # R3.6: round 2's first bet is at least twice round 1's final bet
            self._r1_high = max(self._high, top, self._unit)
        self.bets = [0] * self.n

    # --- the draw ------------------------------------------------------------------

    def _begin_draw(self) -> None:
        """Every player still in draws once, from left of the big blind (R4.1)."""
        n = self.n
        start = self._bb_seat  # the button in an ante-only game (R2.5)
        folded = self.folded
        self._draw_order = [(start + 1 + k) % n for k in range(n) if not folded[(start + 1 + k) % n]]
        self._draw_index = 0
        self.phase = DRAW_PHASE
        self.to_act = self._draw_order[0]
        self._legal = None

    def _do_draw(self, s: int, discards: tuple[int, ...]) -> None:
        k = len(discards)
        hand = self.cards[s]
        if k:
            kept = [c for c in hand if c not in discards]
            if self.config.replacements is Replacements.PER_SEAT:
                start = HOLE_CARDS * self.n + MAX_DISCARDS * ((s - self.button - 1) % self.n)
                new = self._deck.cards(start, k)
                reshuffled = 0
            else:
                # R4.4: what the first stock could not give came from a reshuffled muck (the last cards).
                left = DECK_SIZE - self._pos
                reshuffled = k - left if k > left else 0
                new = self._take_stock(k)
            self.cards[s] = kept + new
            self._muck.extend(discards)  # after serving: never the player's own (R4.4)
            received = self._received[s] = tuple(new)
        else:
            received = self._received[s] = ()
            reshuffled = 0
        self.draws[s] = k
        self.history.append({"seat": s, "action": "draw", "count": k})
        self._log.append((s, DRAW, discards, received, reshuffled))
        self._draw_index += 1
        self._legal = None
        if self._draw_index < len(self._draw_order):
            self.to_act = self._draw_order[self._draw_index]
        else:
            self._begin_bet2()

    def _take_stock(self, k: int) -> list[int]:
        """Next k cards of the stock, reshuffling the muck when it runs out (R4.4, E9)."""
        left = DECK_SIZE - self._pos
        if k <= left:
            pos = self._pos
            self._pos = pos + k
            return self._deck.cards(pos, k)
        out = self._deck.cards(self._pos, left) if left > 0 else []
        self._pos = DECK_SIZE
        stock = self._stock
        while len(out) < k:
            if not stock:
                if not self._muck:  # cannot happen with at most 6 players (R1.2)
                    raise RuntimeError("R4.4: no cards left in the stock or the muck")
                stock = self._muck
                self._rng.shuffle(stock)
                self._rng_saved = None
                self._muck = []
            take = min(k - len(out), len(stock))
            out.extend(stock[:take])
            del stock[:take]
        self._stock = stock
        return out

    def _begin_bet2(self) -> None:
        self.phase = BET2
        n = self.n
        self._high = 0
        if self._fl:
            self._unit = 2 * self._unit  # R3.7: the big bet
            self._inc = self._unit
        else:
            self._inc = 2 * self._r1_high  # R3.6, E1
        self._nbets = 0
        self._acted = [False] * n
        self._acted_high = [0] * n
        self._begin_round(self.button)  # R3.3: first player left of the button

    # --- the end -------------------------------------------------------------

    def _return_unmatched(self) -> None:
        """Give back the chips nobody matched, before pots are formed (R3.9).

        Bets are returned as each round ends (``_end_round``); what can be
        left is a forced bet (an ante, R2.4) that no other player could match
        because they were all-in for less: it goes back to its owner, recorded
        as returned, never as a pot of one player.
        """
        contrib = self.contrib
        top = max(contrib)
        owner = contrib.index(top)
        second = 0
        for o in range(self.n):
            if o != owner and contrib[o] > second:
                second = contrib[o]
        if top > second:
            back = top - second
            contrib[owner] = second
            self.stacks[owner] += back
            self._uncalled.append((owner, back))

    def _finish_uncontested(self) -> None:
        """All but one folded: the last player takes every chip, shows nothing (R1.3)."""
        winner = self.folded.index(False)
        self._return_unmatched()
        amount = sum(self.contrib)
        self.stacks[winner] += amount
        pot = Pot(amount, (winner,), (winner,), (amount,))
        self._complete((pot,), {})

    def _showdown(self) -> None:
        """Best five each, pots main first, split with odd chips (R5)."""
        n = self.n
        folded = self.folded
        live = [not f for f in folded]
        ranks: dict[int, HandRank] = {s: best_hand(self.cards[s]) for s in range(n) if live[s]}
        self._return_unmatched()
        contrib = self.contrib
        live_levels = {contrib[s] for s in ranks}
        if len(live_levels) == 1 and max(contrib) in live_levels:
            # the common case: one pot, every live player eligible (R5.5)
            layers = [(sum(contrib), tuple(ranks))]
        else:
            layers = build_pots(contrib, live)
        pots = []
        for amount, eligible in layers:
            best = max(ranks[s].value for s in eligible)
            tied = [s for s in eligible if ranks[s].value == best]
            if len(tied) == 1:
                winners, shares = (tied[0],), (amount,)
            else:
                winners, shares = split_pot(amount, tied, self.button, n)
            for w, chips in zip(winners, shares, strict=True):
                self.stacks[w] += chips
            pots.append(Pot(amount, eligible, winners, shares))
        # R5.7: the last bettor/raiser of round 2 shows first, else the first
        # player left of the button; then clockwise.
        first = self._aggressor
        if first is None:
            first = next(s for k in range(n) if live[s := (self.button + 1 + k) % n])
        shown = {s: ranks[s] for k in range(n) if live[s := (first + k) % n]}
        self._complete(tuple(pots), shown)

    def _complete(self, pots: tuple[Pot, ...], shown: dict[int, HandRank]) -> None:
        self.phase = COMPLETE
        self.to_act = None
        self._legal = NO_LEGAL
        final = tuple(self.stacks)
        net = tuple(map(sub, final, self.starting_stacks))
        self._result = HandResult(net, pots, shown, tuple(self._uncalled), final)

    def result(self) -> HandResult:
        """How the hand ended (pots, winners, shown hands, net per seat).

        Raises:
            RuntimeError: the hand is not complete yet.
        """
        if self._result is None:
            raise RuntimeError(f"hand {self.hand_id} is not complete (phase {self.phase}, seat {self.to_act} to act)")
        return self._result

    # --- views ----------------------------------------------------------------

    def observation(self, seat: int, *, copy: bool = True) -> dict[str, Any]:
        """What ``seat`` may see: its own cards, public actions, draw counts, shown hands.

        Never another seat's cards, except hands revealed at showdown (R5.7).
        JSON/msgpack-ready (str, int, bool, None, list, dict only).

        Args:
            seat: the seat whose view it is.
            copy: False shares the state's own lists and history events
                instead of copying them: cheaper for a caller that serializes
                the view at once and never changes it (the referee).

        Raises:
            ValueError: ``seat`` is not a seat of this table.
        """
        if type(seat) is not int or not 0 <= seat < self.n:
            raise ValueError(f"seat must be 0..{self.n - 1}, got {seat!r}")
        cfg = self.config
        shown = []
        if self._result is not None:
            for s, rank in self._result.shown.items():
                shown.append({
                    "seat": s,
                    "cards": [CARD_STRS[c] for c in self.cards[s]],
                    "five": [CARD_STRS[c] for c in rank.five],
                    "category": rank.category.label,
                })
        return {
            "hand_id": self.hand_id,
            "seat": seat,
            "button": self.button,
            "phase": str(self.phase),
            "cards": [CARD_STRS[c] for c in self.cards[seat]],
            "stacks": list(self.stacks) if copy else self.stacks,
            "bets": list(self.bets) if copy else self.bets,
            "pot": sum(self.contrib),
            "folded": list(self.folded) if copy else self.folded,
            "all_in": list(self.all_in) if copy else self.all_in,
            "draws": list(self.draws) if copy else self.draws,
            "history": [dict(e) for e in self.history] if copy else self.history,
            "to_act": self.to_act,
            "small_blind": cfg.small_blind if cfg.blinds else 0,
            "big_blind": cfg.big_blind if cfg.blinds else 0,
            "ante": cfg.ante,
            "structure": str(cfg.structure),
            "min_bet": cfg.min_bet,  # the big blind's role in an ante-only game, else None (R2.5)
            "shown": shown,
        }

    def action_log(self) -> list[tuple[Any, ...]]:
        """Every decision so far, in order, with the chips it moved (the state's own list: do not change it).

        A betting decision is ``(seat, kind, amount, owed, added, to, all_in)``:
        ``amount`` is the "to" total of a bet/raise and the chips added by a call
        (0 for fold/check, as in ``history``); ``owed`` the chips the seat had to
        add to call before it (the full big blind R2.6, at most what can be
        matched R3.4; 0 when it could check; not reduced to its stack, so a call
        adding less went all-in); ``added`` the chips it put in; ``to`` its total
        bet this round after it; ``all_in`` whether it left the seat all-in.
        A draw is ``(seat, ActionKind.DRAW, discards, received, reshuffled)``:
        card ints, and how many of the last ``received`` came from a reshuffled
        muck (R4.4; always 0 with per-seat replacements).
        """
        return self._log

    def clone(self) -> HandState:
        """An independent copy for search: acting on either leaves the other as it was.

        About 15x cheaper than ``copy.deepcopy``: lists are copied one level (the hands
        two), immutable values (``Legal``, ``HandResult``, history events, which are never
        changed once appended) are shared. The deck is fixed to its last position first
        (the same cards: positions are always fixed in order from the one generator, before
        any R4.4 reshuffle draws from it), so a copy needs the generator only for a
        reshuffle, and gets it then, from a state snapshot shared by the copies.
        """
        deck = self._deck
        if deck.fixed < DECK_SIZE:
            deck.upto(DECK_SIZE)
        rng = self._rng
        if type(rng) is _PendingRandom:
            saved = rng.snapshot()
        else:
            saved = self._rng_saved
            if saved is None:
                saved = self._rng_saved = rng.getstate()
        other = object.__new__(HandState)
        for name in _CLONED:
            value = getattr(self, name)
            if type(value) is list:
                value = [v[:] if type(v) is list else v for v in value]
            setattr(other, name, value)
        other._rng = pending = _PendingRandom(saved)
        other._rng_saved = None
        copy = object.__new__(Deck)
        copy.rng, copy.order, copy.fixed = pending, deck.order[:], deck.fixed
        other._deck = copy
        return other

    def __repr__(self) -> str:
        return (
            f"<HandState hand {self.hand_id} {self.phase} to_act={self.to_act} "
            f"stacks={self.stacks} bets={self.bets} pot={sum(self.contrib)}>"
        )


class _PendingRandom:
    """The generator of a cloned hand, built from the snapshot only if a reshuffle needs it (R4.4)."""

    __slots__ = ("real", "state")

    def __init__(self, state: tuple[Any, ...]) -> None:
        self.state = state
        self.real: random.Random | None = None

    def snapshot(self) -> tuple[Any, ...]:
        return self.state if self.real is None else self.real.getstate()

    def _materialize(self) -> random.Random:
        real = self.real
        if real is None:
            real = self.real = random.Random(0)
            real.setstate(self.state)
        return real

    def shuffle(self, x: list[int]) -> None:
        self._materialize().shuffle(x)

    def getrandbits(self, k: int) -> int:  # never called: a clone's deck is fixed to its end
        return self._materialize().getrandbits(k)


_CLONED = tuple(n for n in HandState.__slots__ if n not in ("_rng", "_rng_saved", "_deck"))
