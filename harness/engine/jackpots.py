"""Five Card Draw with openers, jackpots (RULES.md R7, R6): :class:`JackpotHand`, the deal's older interface,
and the void outcome of a foul hand (:func:`foul_result`, R7.8).

A deal is :class:`harness.engine.state.HandState` of :data:`harness.engine.games.FIVE_CARD_DRAW`
(``start_hand(FIVE_CARD_DRAW, ...)``): the openers, passed-out deals and carried antes are hooks of the
one hand state machine, driven by the game's definition. :class:`JackpotHand` wraps such a hand in the
interface this module first had (``act``, a :class:`JackpotResult`, ``rule`` and ``carried`` at the
start); new code uses the hand itself. One deal::

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

from collections.abc import Sequence
from dataclasses import dataclass

from harness.engine.actions import BET, DRAW, RAISE, Action, Legal, Phase
from harness.engine.cards import DECK_SIZE
from harness.engine.config import GameConfig, Structure
from harness.engine.errors import IllegalActionError, InvalidActionError
from harness.engine.games import FIVE_CARD_DRAW, Openers, start_hand, with_openers
from harness.engine.pots import HandResult, Pot
from harness.engine.state import HandState

GAME = FIVE_CARD_DRAW


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
    refunds = tuple(max(0, c - a) if ok else 0 for c, a, ok in zip(contrib, antes, live, strict=True))
    return refunds, carried + sum(contrib) - sum(refunds)


def foul_result(hand: HandState) -> HandResult:
    """The outcome of ``hand`` if its opener cannot show openers: the hand is void (R7.8, E21).

    Every player still in takes back every chip put in but the ante; the antes, the chips of players
    who folded and the chips carried in stay in the middle, carried to the next deal as after a passed-out
    deal (R7.4): deal it with ``carried=result.carried_out`` and the button one seat left. Pure: ``hand``
    is not changed, and may be complete (a record whose opener failed to show at the end) or not (the
    foul found before the showdown). A hand this engine deals never fouls (R7.3 refuses an open without
    openers); this is for records of hands played elsewhere, and for the tests.

    Args:
        hand: a deal of a game of openers (R6.10) in which someone opened (R7.2).

    Returns:
        a :class:`HandResult` with ``foul = True``, no pots, nothing shown, no uncalled chips;
        ``net`` per seat is minus what the seat leaves in the middle, ``carried_out`` what stays, and
        ``sum(net) + carried_out == carried_in`` (R1.4).

    Raises:
        IllegalActionError: not a game of openers, or nobody opened (no opener to be foul).
    """
    if not hand.game.passed_out or hand.opener is None:
        raise IllegalActionError(f"R7.8: only a deal someone opened can be foul ({hand.game.name}, opener "
                                 f"{hand.opener})")
    antes = [min(hand.config.ante, s) for s in hand.starting_stacks]  # R2.4, R2.6: all-in for less
    refunds, carried_out = foul_refunds(hand.contrib, antes, [not f for f in hand.folded], hand.carried)
    final = tuple(start - put + back for start, put, back in
                  zip(hand.starting_stacks, hand.contrib, refunds, strict=True))
    net = tuple(after - start for after, start in zip(final, hand.starting_stacks, strict=True))
    return HandResult(net, (), {}, (), final, hand.carried, carried_out, False, hand.opener, hand.proof, True)


class JackpotHand:
    """One deal of Five Card Draw with openers (R7), driven one action at a time.

    Build with :meth:`start`; ask :meth:`legal`, play :meth:`act`; :meth:`result` once complete.
    A refused action raises and changes nothing. ``hand`` is the engine's hand it wraps.
    """

    __slots__ = ("antes", "hand")

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
            seed: drives the deal and any R6.9 reshuffle, as for every game (:class:`HandState`).
            carried: chips carried in from passed-out or foul deals (R7.4, R7.8).
            rule: the opening requirement (R7.2); ``jacks`` by default.
            deck: a stacked deck (52 cards) for tests; the seed still drives reshuffles.

        Raises:
            GameConfigError: a table, game or stack the rules refuse, naming the rule.
        """
        self.hand = start_hand(with_openers(GAME, rule), config, stacks, button, seed, carried=carried, deck=deck)
        self.antes = [min(config.ante, c) for c in stacks]

    # --- the hand's state, read-only -----------------------------------------------------------
    @property
    def config(self) -> GameConfig:
        """The game settings."""
        return self.hand.config

    @property
    def n(self) -> int:
        """Seats at the table."""
        return self.hand.n

    @property
    def button(self) -> int:
        """The dealer's seat."""
        return self.hand.button

    @property
    def rule(self) -> Openers:
        """The opening requirement (R7.2)."""
        return self.hand.game.openers

    @property
    def carried(self) -> int:
        """Chips carried into this deal (R7.4)."""
        return self.hand.carried

    @property
    def initial(self) -> tuple[int, ...]:
        """Chips per seat before the deal."""
        return self.hand.starting_stacks

    @property
    def stacks(self) -> list[int]:
        """Chips behind per seat."""
        return self.hand.stacks

    @property
    def bets(self) -> list[int]:
        """Chips per seat in this betting round."""
        return self.hand.bets

    @property
    def contrib(self) -> list[int]:
        """Chips per seat put in this deal (antes included)."""
        return self.hand.contrib

    @property
    def cards(self) -> list[list[int]]:
        """Cards per seat; a folded seat holds none (R6.9)."""
        return self.hand.cards

    @property
    def folded(self) -> list[bool]:
        """Per seat, whether it folded."""
        return self.hand.folded

    @property
    def opener(self) -> int | None:
        """The seat that opened, or None (R7.2)."""
        return self.hand.opener

    @property
    def proof(self) -> tuple[int, ...]:
        """The opening cards, () before the open (R7.7)."""
        return self.hand.proof

    @property
    def to_act(self) -> int | None:
        """The seat to act, None once complete."""
        return self.hand.to_act

    @property
    def is_complete(self) -> bool:
        """True once the deal is over."""
        return self.hand.is_complete


    @property
    def phase(self) -> Phase:
        """``bet1``, ``draw``, ``bet2`` or ``complete``."""
        return self.hand.phase

    @property
    def bet_size(self) -> int:
        """The fixed-limit bet of this round, or no-limit's least bet: ``min_bet``, twice it after the draw
        in fixed-limit (R7.1, R6.6)."""
        hand = self.hand
        if hand.config.structure is Structure.FIXED_LIMIT:
            return hand.config.unit * hand.game.limit_sizes[hand.betting_round - 1]
        return hand.config.unit

    @property
    def _stock(self) -> list[int]:
        """The cards still to be served, in order (R6.9)."""
        hand: HandState = self.hand
        return hand._deck.upto(DECK_SIZE)[hand._pos:] + hand._stock

    @property
    def _muck(self) -> list[int]:
        return self.hand._muck

    def legal(self) -> Legal:
        """What the seat to act may do now, with exact amounts (R3.4-R3.8, R7.2, R7.3); empty when complete."""
        return self.hand.legal()

    def act(self, action: Action) -> None:
        """Play the action of the seat to act (R3, R7.2-R7.6).

        Raises:
            IllegalActionError: not legal now (no openers, amount outside ``legal()``, wrong phase).
            InvalidActionError: a draw of cards not held, repeated, or more than five.
        """
        hand = self.hand
        s = hand.to_act
        legal = hand.legal()
        if s is None or action.kind not in legal.actions:
            why = " (R7.3: opening needs openers)" if action.kind == BET and hand.opener is None else ""
            raise IllegalActionError(f"R3.5: {action.kind} is not legal for seat {s} now{why}")
        if action.kind == DRAW:
            held, discards = hand.cards[s], tuple(action.discards)
            if len(set(discards)) != len(discards) or any(c not in held for c in discards) or len(discards) > 5:
                raise InvalidActionError(
                    f"R7.1: seat {s} may discard 0 to 5 of its own cards once, got {list(discards)!r}")
            hand.apply(Action(DRAW, 0, discards))
            return
        if action.kind in (BET, RAISE) and not legal.min_to <= action.amount <= legal.max_to:
            raise IllegalActionError(
                f"R3.6/R3.7: seat {s} may {action.kind} to {legal.min_to}..{legal.max_to}, got {action.amount}")
        hand.apply(action)

    def result(self) -> JackpotResult:
        """How the deal ended.

        Raises:
            IllegalActionError: the deal is not over yet.
        """
        if not self.hand.is_complete:
            raise IllegalActionError("R7: the deal is not over yet")
        r = self.hand.result()
        return JackpotResult(
            net=r.net, pots=r.pots, shown={s: tuple(self.hand.cards[s]) for s in sorted(r.shown)},
            uncalled=r.uncalled, final_stacks=r.final_stacks, carried_in=r.carried_in, carried_out=r.carried_out,
            passed_out=r.passed_out, opener=r.opener, proof=r.proof)
