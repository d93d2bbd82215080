"""A hand of Seven Card Draw played in the native core, read through :class:`HandState`'s API.

:class:`NativeHandState` is the referee's hand when the crate is built (``harness.match.native_wire``):
the rules run in Rust (:class:`harness.engine.native.NativeHand`, the port of ``state.py``, ``legality.py``,
``rounds.py`` and ``pots.py``), and after each action one call brings back what the referee and the hand
records read, into the same public fields as :class:`harness.engine.HandState`: ``phase``, ``to_act``,
``stacks``, ``bets``, ``contrib``, ``folded``, ``all_in``, ``draws``, ``cards``, ``hole_cards`` and
``history`` (the same event dicts, key for key), ``legal()``, ``apply()``, ``default_action()``,
``capped()``, ``action_log()`` and ``result()`` (a :class:`harness.engine.pots.HandResult`). Refusals raise
the engine's :class:`InvalidActionError` / :class:`IllegalActionError` with the Python engine's words.

The Python engine stays the oracle: ``tests/test_native_state.py`` plays random hands in every setting
through both and compares every field after every action, and real matches give the same hand histories
with either. An action the native API cannot take as it is (an amount or card that is not a plain int
within 64 bits, a kind given as text, discards as another iterable) is judged by a Python twin of the
hand (replayed from its seed and actions), so even those get the Python engine's exact answer.
:func:`start_hand` deals a native hand where it can (Seven Card Draw, stacks up to 2**50) and the Python
:func:`harness.engine.games.start_hand` elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.engine.actions import (
    BET,
    CALL_ACTION,
    CHECK_ACTION,
    DRAW,
    DRAW_LEGAL,
    FOLD_ACTION,
    NO_LEGAL,
    RAISE,
    STAND_PAT,
    Action,
    ActionKind,
    Legal,
    Phase,
    Shorthands,
)
from harness.engine.config import GameConfig
from harness.engine.errors import IllegalActionError, InvalidActionError
from harness.engine.evaluator import HandRank, category_of
from harness.engine.games import SEVEN_CARD_DRAW, GameDefinition
from harness.engine.games import start_hand as python_start_hand
from harness.engine.native import NativeHand, start_native
from harness.engine.pots import HandResult, Pot
from harness.engine.state import HandState, checked_start

__all__ = ["MAX_NATIVE_STACK", "NativeHandState", "start_hand"]

#: The deepest stack the native core takes (chips); a deeper table plays on the Python engine.
MAX_NATIVE_STACK = 2**50
_I64 = 2**63
_KINDS = tuple(ActionKind)[:6]
#: ``Legal.actions`` of each bit set of kinds (bit = position in ActionKind: fold 0 .. draw 5).
_KIND_SETS = tuple(tuple(k for i, k in enumerate(_KINDS) if bits >> i & 1) for bits in range(64))
_PHASES = {str(p): p for p in Phase}
_KIND_OF = {str(k): k for k in _KINDS}
_DEFAULTS = {"check": CHECK_ACTION, "fold": FOLD_ACTION, "draw": STAND_PAT}
_BET, _RAISE, _DRAW = BET, RAISE, DRAW
#: ``Legal`` values already made, by the core's tuple (they are immutable; most decisions repeat one).
_LEGALS: dict[tuple[int, int, int, int, int], Legal] = {}
_MAX_LEGALS = 4096
_ERRORS = {"InvalidActionError": InvalidActionError, "IllegalActionError": IllegalActionError}


def _event(seat: int, action: str, amount: int, all_in: bool) -> dict[str, Any]:
    """One public event of ``HandState.history`` from the core's ``(seat, action, amount, all_in)``."""
    if action == "draw":
        return {"seat": seat, "action": "draw", "count": amount}
    if action == "check" or action == "fold":
        return {"seat": seat, "action": action}
    if all_in:
        return {"seat": seat, "action": action, "amount": amount, "all_in": True}
    return {"seat": seat, "action": action, "amount": amount}


class _Deck:
    """A stacked deck's order, as a hand record reads it (``state._deck.order``)."""

    __slots__ = ("order",)

    def __init__(self, order: list[int]) -> None:
        self.order = order


class NativeHandState(Shorthands):
    """One hand of Seven Card Draw in the native core, with :class:`HandState`'s fields and methods (module doc).

    Create with :meth:`start` (``HandState.start``'s arguments); all chip amounts are ints, seats 0..n-1.
    Public attributes (read-only by convention): ``config``, ``game``, ``n``, ``button``, ``seed``,
    ``hand_id``, ``phase``, ``to_act``, ``starting_stacks``, ``stacks``, ``bets``, ``contrib``, ``folded``,
    ``all_in``, ``cards``, ``hole_cards``, ``draws``, ``history``; ``carried`` is 0 (no openers in Seven
    Card Draw, R7.4).
    """

    _h: NativeHand
    config: GameConfig
    game: GameDefinition
    n: int
    button: int
    seed: int
    hand_id: int
    starting_stacks: tuple[int, ...]
    stacks: list[int]
    bets: list[int]
    contrib: list[int]
    folded: list[bool]
    all_in: list[bool]
    draws: list[int | None]
    cards: list[list[int]]
    hole_cards: tuple[tuple[int, ...], ...]
    history: list[dict[str, Any]]
    phase: Phase
    to_act: int | None
    _lg: tuple[int, int, int, int, int]
    _legal: Legal | None
    _result: HandResult | None
    _raise_cap: bool
    _stacked: bool
    _deck: _Deck
    _log: list[tuple[Any, ...]] | None
    _applied: list[Action]

    __slots__ = (
        "_h", "config", "game", "n", "button", "seed", "hand_id", "starting_stacks", "stacks", "bets",
        "contrib", "folded", "all_in", "draws", "cards", "hole_cards", "history", "phase", "to_act",
        "_lg", "_legal", "_result", "_raise_cap", "_stacked", "_deck", "_log", "_applied",
    )

    carried = 0
    opener = None
    proof: tuple[int, ...] = ()

    @classmethod
    def start(cls, config: GameConfig, stacks: Sequence[int], button: int, seed: int, hand_id: int = 0, *,
              deck: Sequence[int | str] | None = None, raise_cap: bool = True) -> NativeHandState:
        """Shuffle, post, deal (R2) as :meth:`HandState.start` does: the same cards for the same seed.

        Raises:
            GameConfigError: as :meth:`HandState.start`.
            ValueError: a stack above :data:`MAX_NATIVE_STACK` (use :func:`start_hand`, which falls back).
        """
        checked = checked_start(config, stacks, button, seed, deck, SEVEN_CARD_DRAW, 0)
        self = object.__new__(cls)
        h = self._h = start_native(config, stacks, button, seed, deck=checked, raise_cap=raise_cap is not False)
        self.config = config
        self.game = SEVEN_CARD_DRAW
        self.n = len(stacks)
        self.button = button
        self.seed = seed
        self.hand_id = hand_id
        self.starting_stacks = tuple(stacks)
        self.cards = h.cards
        self.hole_cards = tuple(map(tuple, self.cards))
        self.history = []
        self._raise_cap = raise_cap is not False
        self._stacked = checked is not None
        self._deck = _Deck(checked if checked is not None else [])
        self._result = None
        self._log = None
        self._applied = []
        self._sync()
        return self

    def _sync(self) -> None:
        """Read the hand back from the core after a change (one call)."""
        (phase, self.to_act, self.stacks, self.bets, self.contrib, self.folded, self.all_in, self.draws,
         events, self._lg) = self._h.view(len(self.history))
        self.phase = _PHASES[phase]
        history = self.history
        for e in events:
            history.append(_event(*e))
        self._legal = None
        self._log = None

    # --- reading -------------------------------------------------------------

    @property
    def is_complete(self) -> bool:
        """True once the hand is over and ``result()`` is available."""
        return self.phase is Phase.COMPLETE

    @property
    def raise_cap(self) -> bool:
        """As :attr:`HandState.raise_cap` (R3.4, E14)."""
        return self._raise_cap

    @property
    def pot(self) -> int:
        """All chips committed this hand, after R3.9 returns."""
        return sum(self.contrib)

    @property
    def betting_round(self) -> int:
        """The betting round, 1 or 2 (during the draw: 1), R6.5."""
        return 2 if self.phase is Phase.BET2 or (self.phase is Phase.COMPLETE and any(
            d is not None for d in self.draws)) else 1

    def legal(self) -> Legal:
        """What the seat to act may do now, with exact amounts (``HandState.legal``)."""
        lg = self._legal
        if lg is None:
            phase = self.phase
            if phase is Phase.DRAW:
                lg = DRAW_LEGAL
            elif phase is Phase.COMPLETE:
                lg = NO_LEGAL
            else:
                key = self._lg
                lg = _LEGALS.get(key)
                if lg is None:
                    if len(_LEGALS) >= _MAX_LEGALS:
                        _LEGALS.clear()
                    bits, call, min_to, max_to, max_discards = key
                    lg = _LEGALS[key] = Legal(_KIND_SETS[bits], call, min_to, max_to, max_discards)
            self._legal = lg
        return lg

    def default_action(self) -> Action:
        """The referee's action for a faulting bot: check if free, else fold; stand pat in the draw.

        Raises:
            IllegalActionError: the hand is complete.
        """
        if self.phase is Phase.COMPLETE:
            raise IllegalActionError("R1.3: the hand is complete; nobody is to act")
        return _DEFAULTS[self._h.default_action()]

    def capped(self, action: Action) -> Action:
        """The bet or raise nearest to ``action`` that the player may make (``HandState.capped``, R3.10)."""
        if type(action) is not Action or (action.kind is not _BET and action.kind is not _RAISE):
            return action
        to = action.amount
        if type(to) is not int:
            return action
        # Every bound the rule compares with is below 2**50: a larger amount compares as the largest i64.
        clamped = max(-_I64, min(to, _I64 - 1))
        kind, amount = self._h.capped(str(action.kind), clamped)
        if kind == action.kind and amount == clamped:
            return action
        if kind == "call":
            return CALL_ACTION
        if kind == "check":
            return CHECK_ACTION
        return Action(_KIND_OF[kind], amount)

    def apply(self, action: Action) -> None:
        """Apply one action of the seat to act (``to_act``).

        Raises:
            InvalidActionError, IllegalActionError: as :meth:`HandState.apply`, same words; the state is then
                unchanged.
        """
        call = _native_call(action)
        if call is None:
            self._apply_judged(action)
            return
        try:
            self._h.apply(*call)
        except ValueError as exc:
            raise _ERRORS[type(exc).__name__](str(exc)) from None
        self._applied.append(action)
        if call[2]:  # a draw of some cards: the seat's hand is a new list (the wire re-encodes it)
            s = self.to_act
            assert s is not None  # the core took a draw: a seat was to act
            self.cards[s] = self._h.seat_cards(s)
        self._sync()

    def _apply_judged(self, action: Action) -> None:
        """An action the core cannot take as it is: the Python twin's verdict, then its plain form here."""
        twin = self.python_twin()
        twin.apply(action)  # raises the Python engine's refusal, the state unchanged
        entry = twin.action_log()[-1]
        kind = entry[1]
        plain = Action(DRAW, 0, tuple(entry[2])) if kind is DRAW else Action(kind, entry[2] if kind in (
            BET, RAISE) else 0)
        self.apply(plain)

    def python_twin(self) -> HandState:
        """The same hand on the Python engine: dealt from the same seed and replayed action for action."""
        twin = HandState.start(self.config, self.starting_stacks, self.button, self.seed, self.hand_id,
                               deck=self._deck.order if self._stacked else None, raise_cap=self._raise_cap)
        for action in self._applied:
            twin.apply(action)
        return twin

    def action_log(self) -> list[tuple[Any, ...]]:
        """Every decision so far, as :meth:`HandState.action_log` (kinds as ``ActionKind``, cards as tuples)."""
        log = self._log
        if log is None:
            log = self._log = [
                (e[0], _KIND_OF[str(e[1])], *e[2:]) for e in self._h.action_log()
            ]
        return log

    def result(self) -> HandResult:
        """How the hand ended (pots, winners, shown hands, net per seat), as :meth:`HandState.result`.

        Raises:
            RuntimeError: the hand is not complete yet.
        """
        result = self._result
        if result is None:
            if self.phase is not Phase.COMPLETE:
                raise RuntimeError(
                    f"hand {self.hand_id} is not complete (phase {self.phase}, seat {self.to_act} to act)")
            net, pots, shown, uncalled, final = self._h.result()
            result = self._result = HandResult(
                net=tuple(net),
                pots=tuple(Pot(a, tuple(e), tuple(w), tuple(sh)) for a, e, w, sh in pots),
                shown={s: HandRank(v, category_of(v), tuple(five)) for s, v, five in shown},
                uncalled=tuple(map(tuple, uncalled)),  # type: ignore[arg-type]
                final_stacks=tuple(final),
            )
        return result

    def __repr__(self) -> str:
        return (f"<NativeHandState hand {self.hand_id} {self.phase} to_act={self.to_act} "
                f"stacks={self.stacks} bets={self.bets} pot={sum(self.contrib)}>")


def _native_call(action: object) -> tuple[str, int, list[int]] | None:
    """The core's ``apply`` arguments for ``action``, or None when its types are not the plain ones."""
    if type(action) is not Action:
        return None
    kind = action.kind
    if type(kind) is not ActionKind:
        return None
    if kind is _DRAW:
        discards = action.discards
        if type(discards) is not tuple or not all(type(c) is int and -_I64 <= c < _I64 for c in discards):
            return None
        return "draw", 0, list(discards)
    if kind is _BET or kind is _RAISE:
        to = action.amount
        if type(to) is not int or not -_I64 <= to < _I64:
            return None
        return str(kind), to, []
    return str(kind), 0, []


def start_hand(definition: GameDefinition, config: GameConfig, stacks: Sequence[int], button: int, seed: int,
               hand_id: int = 0, *, carried: int = 0) -> HandState | NativeHandState:
    """Deal one hand of ``definition``'s game: in the native core for Seven Card Draw, else on the Python engine.

    The arguments and errors of :func:`harness.engine.games.start_hand`; a table with a stack above
    :data:`MAX_NATIVE_STACK` plays on the Python engine too.

    Raises:
        GameConfigError: as :func:`harness.engine.games.start_hand`.
    """
    if definition is SEVEN_CARD_DRAW and not carried and all(
            type(c) is int and c <= MAX_NATIVE_STACK for c in stacks):
        return NativeHandState.start(config, stacks, button, seed, hand_id)
    return python_start_hand(definition, config, stacks, button, seed, hand_id, carried=carried)
