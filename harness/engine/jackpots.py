"""The hand state machine of Five Card Draw with openers, jackpots (RULES.md R7, R6).

Separate from :class:`harness.engine.state.HandState` (Seven Card Draw, whose
hands and histories must not change) and smaller: no observation, default
action or record yet, nothing above the engine plays it. One deal::

    >>> from harness.engine import GameConfig
    >>> from harness.engine.actions import Action, ActionKind
    >>> cfg = GameConfig(blinds=False, ante=1, min_bet=10, structure="fixed-limit")
    >>> hand = JackpotHand.start(cfg, stacks=[100, 100, 100], button=0, seed=3)
    >>> hand.to_act, [str(k) for k in hand.legal().actions]    # left of the button; no openers here
    (1, ['fold', 'check'])
    >>> for _ in range(3):
    ...     hand.act(Action(ActionKind.CHECK))
    >>> r = hand.result()                                       # passed out (R7.4)
    >>> r.passed_out, r.carried_out, r.net
    (True, 3, (-1, -1, -1))

Chips: every amount is whole chips. ``carried`` chips (antes of passed-out or
foul deals) enter the main pot as dead money; a result's ``net`` plus
``carried_out`` always adds up to ``carried_in`` (R1.4).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from harness.engine.actions import BET, CALL, CHECK, DRAW, FOLD, RAISE, Action, Legal, Phase
from harness.engine.cards import DECK_SIZE, check_deck
from harness.engine.config import GameConfig, Structure
from harness.engine.errors import GameConfigError, IllegalActionError, InvalidActionError
from harness.engine.evaluator import evaluate
from harness.engine.games import FIVE_CARD_DRAW, Openers
from harness.engine.legality import deepest_reach, full_raise, owed_call, reopened, wager_bounds
from harness.engine.openers import openers
from harness.engine.pots import Pot, build_pots, split_pot

GAME = FIVE_CARD_DRAW
BET1, DRAW_PHASE, BET2, COMPLETE = Phase.BET1, Phase.DRAW, Phase.BET2, Phase.COMPLETE


@dataclass(frozen=True, slots=True)
class JackpotResult:
    """How a deal of Five Card Draw ended.

    Attributes:
        net: chips won (+) or lost (-) per seat in this deal.
        pots: main pot first (carried chips in it), then side pots (R5.5); empty when passed out.
        shown: seat -> its five cards, for the hands that reached a showdown.
        uncalled: ``(seat, chips)`` returned because nobody matched them (R3.9).
        final_stacks: chips per seat after the deal.
        carried_in: chips carried into this deal (R7.4).
        carried_out: chips left in the middle for the next deal (R7.4); 0 unless passed out.
        passed_out: nobody opened (R7.4).
        opener: the seat that opened, or None.
        proof: the opener's opening cards, shown to all at the end (R7.7); () when nobody opened.
    """

    net: tuple[int, ...]
    pots: tuple[Pot, ...]
    shown: dict[int, tuple[int, ...]]
    uncalled: tuple[tuple[int, int], ...]
    final_stacks: tuple[int, ...]
    carried_in: int
    carried_out: int
    passed_out: bool
    opener: int | None
    proof: tuple[int, ...]


def foul_refunds(contrib: Sequence[int], antes: Sequence[int], live: Sequence[bool],
                 carried: int = 0) -> tuple[tuple[int, ...], int]:
    """The outcome of a foul hand (R7.8, E21): what each seat takes back and what stays for the next deal.

    Args:
        contrib: chips each seat put in this deal, antes included.
        antes: the ante each seat posted (part of ``contrib``).
        live: per seat, True if still in (not folded).
        carried: chips carried into this deal.

    Returns:
        ``(refunds per seat, chips carried to the next deal)``: players still in take back all
        but their ante; antes, folded players' chips and ``carried`` stay.
    """
    refunds = tuple(c - a if ok else 0 for c, a, ok in zip(contrib, antes, live, strict=True))
    return refunds, carried + sum(contrib) - sum(refunds)


class JackpotHand:
    """One deal of Five Card Draw with openers (R7), driven one action at a time.

    Build with :meth:`start`; ask :meth:`legal`, play :meth:`act`; :meth:`result` once complete.
    A refused action raises and changes nothing.
    """

    @classmethod
    def start(cls, config: GameConfig, stacks: Sequence[int], button: int, seed: int, *,
              carried: int = 0, rule: Openers = Openers.JACKS,
              deck: Sequence[int | str] | None = None) -> JackpotHand:
        """A new deal: see :meth:`__init__`."""
        return cls(config, stacks, button, seed, carried=carried, rule=rule, deck=deck)

    def __init__(self, config: GameConfig, stacks: Sequence[int], button: int, seed: int, *,
                 carried: int = 0, rule: Openers = Openers.JACKS,
                 deck: Sequence[int | str] | None = None) -> None:
        """Post the antes and deal five cards each (R7.1, R2.4, R2.7).

        Args:
            config: an ante-only game (``blinds = False``, ``ante`` >= 1, ``min_bet``), fixed-limit or no-limit.
            stacks: chips per seat before the deal, each >= 1; 2 to 8 seats (R7.1).
            button: the dealer's seat.
            seed: drives the shuffle (``random.Random(seed)``) and any R6.9 reshuffle.
            carried: chips carried in from passed-out or foul deals (R7.4, R7.8).
            rule: the opening requirement (R7.2); ``jacks`` by default.
            deck: a stacked deck (52 cards) for tests; the seed still drives reshuffles.

        Raises:
            GameConfigError: a table, game or stack the rules refuse, naming the rule.
        """
        problem = GAME.seat_problem(len(stacks)) or GAME.config_problem(config)
        if problem:
            raise GameConfigError(problem)
        n = len(stacks)
        if type(button) is not int or not 0 <= button < n:
            raise GameConfigError(f"R2.1: button must be a seat 0..{n - 1}, got {button!r}")
        for s, chips in enumerate(stacks):
            if type(chips) is not int or chips < 1:
                raise GameConfigError(f"R1.4: stack of seat {s} must be a whole number of chips >= 1, got {chips!r}")
        if type(carried) is not int or carried < 0:
            raise GameConfigError(f"R7.4: carried chips must be a whole number >= 0, got {carried!r}")
        self.config, self.n, self.button, self.rule, self.carried = config, n, button, Openers(rule), carried
        self.initial = tuple(stacks)
        self.stacks = list(stacks)
        self._rng = random.Random(seed)
        order = check_deck(deck) if deck is not None else list(range(DECK_SIZE))
        if deck is None:
            self._rng.shuffle(order)
        self._stock = order
        self.cards = [[0] * 5 for _ in range(n)]
        for i in range(5 * n):  # one at a time, clockwise from left of the button (R2.7)
            self.cards[(button + 1 + i) % n][i // n] = order[i]
        del self._stock[: 5 * n]
        self._muck: list[int] = []
        self.antes = [min(config.ante, c) for c in stacks]
        self.contrib = list(self.antes)
        self.stacks = [c - a for c, a in zip(stacks, self.antes, strict=True)]
        self.folded = [False] * n
        self.opener: int | None = None
        self.proof: tuple[int, ...] = ()
        self.phase = BET1
        self.to_act: int | None = None
        self._result: JackpotResult | None = None
        self._uncalled: list[tuple[int, int]] = []
        self._draw_order: list[int] = []
        self._contested = False
        self._begin_round(BET1, (button + 1) % n)

    # --- seats -------------------------------------------------------------------------------
    def _live(self) -> list[int]:
        return [s for s in range(self.n) if not self.folded[s]]

    def _can_act(self, s: int) -> bool:
        return not self.folded[s] and self.stacks[s] > 0

    def _clockwise(self, first: int) -> list[int]:
        return [(first + i) % self.n for i in range(self.n)]

    @property
    def bet_size(self) -> int:
        """The fixed-limit bet of this round, or no-limit's least bet: ``min_bet``, twice it after the draw
        in fixed-limit (R7.1, R6.6)."""
        unit = self.config.min_bet or 0
        if self.config.structure == Structure.FIXED_LIMIT and self.phase == BET2:
            return 2 * unit
        return unit

    # --- betting -----------------------------------------------------------------------------
    def _begin_round(self, phase: Phase, first: int) -> None:
        self.phase = phase
        self.bets = [0] * self.n
        self.high = 0
        self.full_raise = self.bet_size
        self.full_bets = 0  # full bets and raises this round (R3.7 cap)
        self._acted_level: dict[int, int] = {}  # seat -> (high, full_bets) when it last acted
        self._acted_full: dict[int, int] = {}
        self.pending = [s for s in self._clockwise(first) if self._can_act(s)]
        if phase == BET1:
            self._contested = len(self.pending) > 1
        if len(self.pending) <= 1:
            # R3.4: at most one player can act and nothing is pending for it (R7.4: not passed out).
            self.pending = []
        self._next()

    def _next(self) -> None:
        if len(self._live()) == 1:
            self._finish()
            return
        if self.pending and self._alone():
            # R3.4: the only player able to act, with nothing it could be matched on, has no decision.
            self.pending = [o for o in self.pending
                            if owed_call(self.high, self.bets, self.folded, o, True) > 0]
        if self.pending:
            self.to_act = self.pending[0]
            return
        self.to_act = None
        if self.phase == BET1:
            if self.opener is None and self._contested:
                self._finish(passed_out=True)
                return
            self._return_uncalled()
            self.phase = DRAW_PHASE
            self._draw_order = [s for s in self._clockwise((self.button + 1) % self.n) if not self.folded[s]]
            self.to_act = self._draw_order[0]
        elif self.phase == BET2:
            self._finish()

    def _max_to(self, s: int) -> int:
        """The most ``s`` may bet to: its all-in, or what the deepest opponent can match (R3.4)."""
        return min(self.bets[s] + self.stacks[s], deepest_reach(self.bets, self.stacks, self.folded, s))

    @property
    def _fixed(self) -> bool:
        return self.config.structure == Structure.FIXED_LIMIT

    def _alone(self) -> bool:
        """At most one player can still act (R3.4)."""
        return sum(map(self._can_act, range(self.n))) < 2

    def _may_raise(self, s: int) -> bool:
        if self._alone():  # nobody left who could answer a raise (R3.4)
            return False
        if s not in self._acted_level:
            return True
        return (self.full_bets > self._acted_full[s]  # a full raise since it acted (R3.8)
                or reopened(self.high, self._acted_level[s], self._fixed, self.bet_size, self.full_raise))

    def legal(self) -> Legal:
        """What the seat to act may do now, with exact amounts (R3.4-R3.8, R7.2, R7.3); empty when complete.

        The betting rules are Seven Card Draw's own functions (:mod:`harness.engine.legality`).
        """
        s = self.to_act
        if s is None:
            return Legal(())
        if self.phase == DRAW_PHASE:
            return Legal((DRAW,), max_discards=GAME.max_discards)
        owed = owed_call(self.high, self.bets, self.folded, s, self._alone())
        call = min(owed, self.stacks[s]) if owed > 0 else 0
        kinds = [FOLD, CALL if call else CHECK]
        cap = self.config.cap if self._fixed else 0
        opening = self.phase == BET1 and self.opener is None
        if opening and openers(self.cards[s], self.rule) is None:
            return Legal(tuple(kinds), call)  # R7.3: no openers, no bet
        if self.stacks[s] > call and self._may_raise(s) and not (cap and self.full_bets >= cap):
            bounds = wager_bounds(self.high, self._max_to(s), self._fixed, self.bet_size, self.full_raise)
            if bounds is not None:
                kinds.append(BET if self.high == 0 else RAISE)
                return Legal(tuple(kinds), call, *bounds)
        return Legal(tuple(kinds), call)

    def act(self, action: Action) -> None:
        """Play the action of the seat to act (R3, R7.2-R7.6).

        Raises:
            IllegalActionError: not legal now (no openers, amount outside ``legal()``, wrong phase).
            InvalidActionError: a draw of cards not held, repeated, or more than five.
        """
        s = self.to_act
        legal = self.legal()
        if s is None or action.kind not in legal.actions:
            why = " (R7.3: opening needs openers)" if action.kind == BET and self.opener is None else ""
            raise IllegalActionError(f"R3.5: {action.kind} is not legal for seat {s} now{why}")
        if action.kind == DRAW:
            self._draw(s, action.discards)
            return
        if action.kind in (BET, RAISE) and not legal.min_to <= action.amount <= legal.max_to:
            raise IllegalActionError(
                f"R3.6/R3.7: seat {s} may {action.kind} to {legal.min_to}..{legal.max_to}, got {action.amount}")
        self.pending.remove(s)
        if action.kind == FOLD:
            self.folded[s] = True
            self._muck.extend(self.cards[s])  # R6.9: folded hands join the muck, and leave the seat
            self.cards[s] = []
        elif action.kind == CALL:
            self._put(s, legal.call_amount)
        elif action.kind in (BET, RAISE):
            by = action.amount - self.high
            if self.phase == BET1 and self.opener is None:
                self.opener, self.proof = s, openers(self.cards[s], self.rule) or ()
            self._put(s, action.amount - self.bets[s])
            if full_raise(by, self.stacks[s] == 0, self._fixed, self.bet_size, self.full_raise):  # R3.8
                self.full_bets += 1
                if not self._fixed:
                    self.full_raise = by
            self.high = max(self.high, action.amount)
            after = self._clockwise((s + 1) % self.n)
            self.pending = [o for o in after if o != s and self._can_act(o)]
        self._acted_level[s], self._acted_full[s] = self.high, self.full_bets
        self._next()

    def _put(self, s: int, chips: int) -> None:
        self.stacks[s] -= chips
        self.bets[s] += chips
        self.contrib[s] += chips

    def _return_uncalled(self) -> None:
        """The part of the top contribution nobody matched goes back (R3.9)."""
        order = sorted(range(self.n), key=self.contrib.__getitem__, reverse=True)
        top, second = order[0], order[1]
        extra = self.contrib[top] - self.contrib[second]
        if extra:
            self.contrib[top] -= extra
            self.bets[top] = max(0, self.bets[top] - extra)
            self.stacks[top] += extra
            self._uncalled.append((top, extra))

    # --- the draw ----------------------------------------------------------------------------
    def _draw(self, s: int, discards: Sequence[int]) -> None:
        held = self.cards[s]
        if len(set(discards)) != len(discards) or any(c not in held for c in discards) or len(discards) > 5:
            raise InvalidActionError(f"R7.1: seat {s} may discard 0 to 5 of its own cards once, got {list(discards)!r}")
        got = self._take(len(discards))
        self.cards[s] = [c for c in held if c not in discards] + got
        self._muck.extend(discards)  # after serving: never the drawer's own (R6.9)
        self._draw_order.pop(0)
        if self._draw_order:
            self.to_act = self._draw_order[0]
            return
        # R7.6: the opener, else the first still in left of it (the round skips folded seats);
        # nobody opened only when at most one player could act (R3.4): left of the button then.
        first = self.opener if self.opener is not None else (self.button + 1) % self.n
        self._begin_round(BET2, first)

    def _take(self, k: int) -> list[int]:
        """Next k cards: the stock, then the muck shuffled into a new stock (R6.9, R4.4)."""
        out = self._stock[:k]
        del self._stock[:k]
        if len(out) < k:
            if len(self._muck) < k - len(out):  # cannot happen with at most 8 players (R6.9)
                raise RuntimeError("R6.9: no cards left in the stock or the muck")
            self._stock, self._muck = self._muck, []
            self._rng.shuffle(self._stock)
            more = k - len(out)
            out += self._stock[:more]
            del self._stock[:more]
        return out

    # --- the end -----------------------------------------------------------------------------
    @property
    def is_complete(self) -> bool:
        """True once the deal is over (a winner, a showdown, or passed out)."""
        return self._result is not None

    def _finish(self, passed_out: bool = False) -> None:
        self.phase, self.to_act = COMPLETE, None
        live = self._live()
        if passed_out:  # R7.4: the antes stay in the middle
            carried_out = self.carried + sum(self.contrib)
            self._done((), {}, carried_out, True)
            return
        self._return_uncalled()
        raw = build_pots(self.contrib, [not f for f in self.folded])
        pots: list[Pot] = []
        shown: dict[int, tuple[int, ...]] = {}
        if len(live) > 1:
            shown = {s: tuple(self.cards[s]) for s in live}
        for i, (amount, eligible) in enumerate(raw):
            amount += self.carried if i == 0 else 0
            best = max(evaluate(self.cards[s]) for s in eligible) if len(eligible) > 1 else None
            winners = [s for s in eligible if best is None or evaluate(self.cards[s]) == best]
            order, shares = split_pot(amount, winners, self.button, self.n)
            for w, c in zip(order, shares, strict=True):
                self.stacks[w] += c
            pots.append(Pot(amount, eligible, order, shares))
        self._done(tuple(pots), shown, 0, False)

    def _done(self, pots: tuple[Pot, ...], shown: dict[int, tuple[int, ...]], carried_out: int,
              passed_out: bool) -> None:
        self._result = JackpotResult(
            net=tuple(f - i for f, i in zip(self.stacks, self.initial, strict=True)), pots=pots, shown=shown,
            uncalled=tuple(self._uncalled), final_stacks=tuple(self.stacks), carried_in=self.carried,
            carried_out=carried_out, passed_out=passed_out, opener=self.opener, proof=self.proof)

    def result(self) -> JackpotResult:
        """How the deal ended.

        Raises:
            IllegalActionError: the deal is not over yet.
        """
        if self._result is None:
            raise IllegalActionError("R7: the deal is not over yet")
        return self._result
