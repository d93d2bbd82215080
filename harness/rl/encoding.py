"""The action and observation encodings of the Seven Card Draw environments (no PettingZoo needed here).

Actions: one ``Discrete(N_ACTIONS)`` space for every decision, with a mask of the legal ones.

====================  ======================================================================
index                 action
====================  ======================================================================
0                     fold (R3.5; masked when checking is free, as folding then only loses)
1                     check, or call (the ``call_amount`` of ``Legal``; all-in for less)
2 .. 2+len(SIZES)-1   bet/raise to one of :data:`SIZES` (below), clipped to ``min_to..max_to``
DRAW_BASE .. +98      the draw: discard the cards at one set of 0-4 positions (:data:`DISCARDS`)
====================  ======================================================================

Bet sizes (:data:`SIZES`): ``"min"`` (``min_to``: the minimum bet or raise, R3.6; in fixed-limit the one
legal amount, R3.7), ``"half_pot"``, ``"pot"``, ``"two_pots"`` (a raise of that fraction of the pot after
calling: ``to = bet + call + f * (pot + call)``, R3.6 sizes in chips) and ``"all_in"`` (``max_to``: the
all-in, or what the deepest opponent can match, R3.4). A size whose amount equals an earlier size's is
masked, so every legal index is a different action (fixed-limit: only ``"min"``).

Draw actions (:data:`DISCARDS`): index ``DRAW_BASE + i`` discards the positions ``DISCARDS[i]`` of the
seat's seven cards as the observation lists them (``cards`` order), sets sorted by size, then
lexicographically: ``()`` (stand pat), ``(0,)``, ..., ``(6,)``, ``(0, 1)``, ..., ``(3, 4, 5, 6)``; 99 in all
(1 + 7 + 21 + 35 + 35, R4.1: 0-4 cards).

Observation (:func:`observe`): a float32 vector, chips in big blinds (the game's ``unit``), seats
*relative*: slot 0 is the observer, slot k the k-th seat after it (clockwise); ``n`` = seats at the table.
See :func:`layout` for the offsets; field by field:

- ``cards`` (52): own current cards, one-hot by card int (``harness.engine.cards``: rank * 4 + suit).
- ``phase`` (4): one-hot bet1, draw, bet2, complete.
- ``button`` (n): one-hot relative seat of the button.
- ``to_act`` (n): one-hot relative seat to act (all 0 when the hand is over).
- ``stacks`` (n): chips behind, bb. ``bets`` (n): chips in the current round, bb. ``contrib`` (n): chips
  put in this hand, bb. ``pot`` (1): all chips committed, bb.
- ``legal`` (3): ``call_amount``, ``min_to``, ``max_to`` of the observer's decision in bb (0 when not its turn).
- ``folded`` (n), ``all_in`` (n): 0/1.
- ``draws`` (n): cards drawn (0-4), -1 before that seat has drawn (public draw counts, R4.1).
- ``actions`` (2 * n * 3): the public betting actions, per round (bet1, bet2) and relative seat: checks,
  calls, bets+raises (counts).
- ``shown`` (52 * (n - 1)): the cards each other seat showed down (R5.7), one-hot, after the hand.

With ``features=True`` (the environments, :func:`harness.rl.as_bot`) the hand-strength fields of
:mod:`harness.rl.features` follow ``shown``; the fields above keep their offsets.
"""

from __future__ import annotations

from operator import index as _as_index
from typing import Any

import numpy as np

from harness.engine import Action, ActionKind, Phase
from harness.engine.config import TABLE_SIZES
from harness.engine.state import HandState
from harness.rl import features
from harness.rl.actions import BET_BASE, CALL, DISCARDS, DRAW_BASE, FOLD, N_ACTIONS, SIZES

__all__ = [
    "BET_BASE",
    "CALL",
    "DISCARDS",
    "DRAW_BASE",
    "DRAW_KEY",
    "FOLD",
    "MASKS",
    "NONE_KEY",
    "N_ACTIONS",
    "SIZES",
    "action_index",
    "action_of",
    "betting",
    "decision",
    "decode",
    "decode_of",
    "encode",
    "fill",
    "layout",
    "mask",
    "mask_of",
    "mask_row",
    "new_rows",
    "observe",
    "observe_into",
    "obs_size",
    "bounds",
]

# --- masks: every mask is a row of one table, picked by a small key -------------------------------------------
#: Key of the draw's mask (every discard set) and of a decision-less mask (the hand is over, not this seat's turn).
DRAW_KEY, NONE_KEY = 1 << DRAW_BASE, (1 << DRAW_BASE) + 1
#: ``MASKS[key]``: the int8 mask of a key (read only). A betting key has bit i set when index i (< DRAW_BASE) is
#: legal; ``DRAW_KEY`` and ``NONE_KEY`` as above. A vectorised caller takes ``MASKS[keys]`` in one numpy call.
MASKS = np.zeros((NONE_KEY + 1, N_ACTIONS), dtype=np.int8)
for _key in range(DRAW_KEY):
    for _i in range(DRAW_BASE):
        MASKS[_key, _i] = _key >> _i & 1
MASKS[DRAW_KEY, DRAW_BASE:] = 1
MASKS.flags.writeable = False
del _key, _i
_MASK_ROWS = [row.copy() for row in MASKS]  # one array per key: copying it skips the view MASKS[key] makes
_DRAW_DECISION = (DRAW_KEY, None)
_NONE_DECISION = (NONE_KEY, None)
_CHECK_ONLY, _CALL_FOLD = 1 << CALL, 1 << CALL | 1 << FOLD


def _betting(legal: Any, bet: int, pot: int) -> tuple[int, tuple[int, ...] | None]:
    """The mask key and the bet sizes' "to" amounts of a betting decision (``legal``: call_amount, min_to,
    max_to, of the engine or the protocol; ``bet``: the seat's chips in this round; ``pot``: all committed).

    A fraction ``f`` of the pot after calling is ``to = bet + call + f * (pot + call)``, clipped to
    ``min_to..max_to``. The amounts never decrease along :data:`SIZES`, so a size is masked exactly when it
    equals the size before it (every legal index is a different action).
    """
    call = legal.call_amount
    key = _CALL_FOLD if call > 0 else _CHECK_ONLY
    lo = legal.min_to
    if not lo:
        return key, None
    hi = legal.max_to
    after, grown = bet + call, pot + call
    half = after + int(0.5 * grown)
    half = lo if half < lo else hi if half > hi else half
    full = after + int(1.0 * grown)
    full = lo if full < lo else hi if full > hi else full
    two = after + int(2.0 * grown)
    two = lo if two < lo else hi if two > hi else two
    key |= 1 << BET_BASE
    if half != lo:
        key |= 1 << BET_BASE + 1
    if full != half:
        key |= 1 << BET_BASE + 2
    if two != full:
        key |= 1 << BET_BASE + 3
    if hi != two:
        key |= 1 << BET_BASE + 4
    return key, (lo, half, full, two, hi)


def betting(legal: Any, bet: int, pot: int) -> tuple[int, tuple[int, ...] | None]:
    """The mask key and bet amounts of a betting decision (the arguments as the key's own, below): shared by the
    other games' encodings (:mod:`harness.rl.tripledraw`), whose betting indices are these."""
    return _betting(legal, bet, pot)


def decision(state: HandState) -> tuple[int, tuple[int, ...] | None]:
    """``(mask key, bet amounts or None)`` of the seat to act in ``state`` (the parts :func:`mask` and
    :func:`action_of` need; a caller may keep it until the state's next action)."""
    phase = state.phase
    if phase is Phase.DRAW:
        return _DRAW_DECISION
    if phase is Phase.COMPLETE:
        return _NONE_DECISION
    s = state.to_act
    assert s is not None  # a betting round has a seat to act
    return _betting(state.legal(), state.bets[s], sum(state.contrib))


def mask_of(phase: str, legal: Any, bet: int, pot: int) -> np.ndarray:
    """:func:`mask` from the decision's parts (``phase`` text, a ``Legal`` of the engine or the protocol)."""
    if phase == "draw":
        return _MASK_ROWS[DRAW_KEY].copy()
    if phase == "complete":
        return _MASK_ROWS[NONE_KEY].copy()
    return _MASK_ROWS[_betting(legal, bet, pot)[0]].copy()


def mask(state: HandState) -> np.ndarray:
    """The legal actions of the seat to act: an int8 vector of :data:`N_ACTIONS` (all 0 when the hand is over)."""
    return _MASK_ROWS[decision(state)[0]].copy()


def mask_row(key: int) -> np.ndarray:
    """A new (writable) copy of ``MASKS[key]``."""
    return _MASK_ROWS[key].copy()


def _refuse(index: Any, phase: str) -> ValueError:
    return ValueError(f"action {index} is not legal now (phase {phase})")


def action_index(index: Any) -> int:
    """``index`` as an action index: an int or a numpy integer (a float is refused, never cut to a whole number).

    Raises:
        ValueError: anything else (a float, text, None), named with its value.
    """
    try:
        return _as_index(index)
    except TypeError:
        raise ValueError(f"an action is an index 0..{N_ACTIONS - 1} (an int or numpy integer), got {index!r}") from None


def decode_of(phase: str, legal: Any, bet: int, pot: int, cards: list[Any], index: int) -> tuple[str, Any]:
    """:func:`decode` from the decision's parts; ``cards``: the seat's cards in observation order."""
    index = action_index(index)  # checked as mask_of() would allow it, without building the mask
    if phase == "draw":
        if DRAW_BASE <= index < N_ACTIONS:
            return "draw", [cards[p] for p in DISCARDS[index - DRAW_BASE]]
    elif phase != "complete" and 0 <= index < DRAW_BASE:
        key, amounts = _betting(legal, bet, pot)
        if key >> index & 1:
            if index == CALL:
                return ("call", None) if legal.call_amount > 0 else ("check", None)
            if index == FOLD:
                return "fold", None
            return ("bet" if "bet" in legal.actions else "raise"), amounts[index - BET_BASE]  # type: ignore[index]
    raise _refuse(index, phase)


def decode(state: HandState, index: int) -> tuple[str, Any]:
    """The engine action of ``index`` for the seat to act: ``("fold"|"check"|"call", None)``,
    ``("bet"|"raise", to)`` or ``("draw", cards)`` (card ints).

    Raises:
        ValueError: ``index`` is not legal now (see :func:`mask`).
    """
    if state.phase is Phase.COMPLETE:
        raise ValueError(f"action {index} is not legal: the hand is complete")
    s = state.to_act
    assert s is not None  # an incomplete hand has a seat to act
    return decode_of(state.phase, state.legal(), state.bets[s], sum(state.contrib), state.cards[s], index)


_FOLD_ACTION, _CHECK_ACTION, _CALL_ACTION = Action(ActionKind.FOLD), Action(ActionKind.CHECK), Action(ActionKind.CALL)
_BET, _RAISE, _DRAW = ActionKind.BET, ActionKind.RAISE, ActionKind.DRAW
_WAGERS: dict[tuple[ActionKind, int], Action] = {}


def _wager(kind: ActionKind, to: int) -> Action:
    """``Action(kind, to)``, memoised (bounded): the same few amounts recur, and a frozen dataclass costs to build."""
    action = _WAGERS.get((kind, to))
    if action is None:
        if len(_WAGERS) >= 4096:
            _WAGERS.clear()
        action = _WAGERS[(kind, to)] = Action(kind, to)
    return action


def action_of(state: HandState, found: tuple[int, tuple[int, ...] | None], index: Any) -> Action:
    """The engine :class:`~harness.engine.Action` of ``index`` for the seat to act, given ``found`` =
    :func:`decision` ``(state)`` (the same action :func:`decode` names).

    Raises:
        ValueError: ``index`` is not an action index (:func:`action_index`) or not legal now (see :func:`mask`).
    """
    index = action_index(index)
    key, amounts = found
    if key == DRAW_KEY:
        if DRAW_BASE <= index < N_ACTIONS:
            s = state.to_act
            assert s is not None  # the draw has a seat to act
            cards = state.cards[s]
            return Action(_DRAW, 0, tuple([cards[p] for p in DISCARDS[index - DRAW_BASE]]))
    elif key == NONE_KEY:
        raise ValueError(f"action {index} is not legal: the hand is complete")
    elif 0 <= index < DRAW_BASE and key >> index & 1:
        if index == CALL:
            return _CALL_ACTION if key & 1 << FOLD else _CHECK_ACTION
        if index == FOLD:
            return _FOLD_ACTION
        return _wager(_BET if _BET in state.legal().actions else _RAISE, amounts[index - BET_BASE])  # type: ignore[index]
    raise _refuse(index, state.phase)


# --- observations ---------------------------------------------------------------------------------------------

_FIELDS = ("cards", "phase", "button", "to_act", "stacks", "bets", "contrib", "pot", "legal", "folded", "all_in",
           "draws", "actions", "shown")


def offsets(sizes: list[tuple[str, int]]) -> dict[str, slice]:
    """Each field's slice of a vector that lays ``(name, length)`` fields end to end, in order."""
    out, at = {}, 0
    for name, size in sizes:
        out[name] = slice(at, at + size)
        at += size
    return out


def layout(n: int) -> dict[str, slice]:
    """Offsets of the observation's fields for a table of ``n`` seats (see the module doc)."""
    return offsets([("cards", 52), ("phase", 4), ("button", n), ("to_act", n), ("stacks", n), ("bets", n),
                    ("contrib", n), ("pot", 1), ("legal", 3), ("folded", n), ("all_in", n), ("draws", n),
                    ("actions", 2 * n * 3), ("shown", 52 * (n - 1))])


def obs_size(n: int) -> int:
    """Length of the observation vector at ``n`` seats."""
    stop: int = layout(n)["shown"].stop
    return stop


def bounds(n: int, chips: int, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 vectors of the observation at ``n`` seats whose stacks add up to ``chips``
    (chips, every seat's starting stack together) in a game of big blind ``unit`` (chips): finite, so a
    ``Box`` of them is what Gymnasium's checkers accept.

    Chip fields are at most ``chips / unit`` bb (nobody holds or bets more than the table's chips);
    ``draws`` is -1..4 (R4.1); an ``actions`` count at most ``chips + 1`` (every bet or raise lifts the
    round's bet by a chip at least, R3.6, a seat calls at most once per bet plus the blind, checks once);
    one-hot and 0/1 fields 0..1.
    """
    lay = layout(n)
    size = lay["shown"].stop
    low, high = np.zeros(size, dtype=np.float32), np.ones(size, dtype=np.float32)
    for name in ("stacks", "bets", "contrib", "pot", "legal"):
        high[lay[name]] = chips / unit
    low[lay["draws"]], high[lay["draws"]] = -1.0, 4.0
    high[lay["actions"]] = chips + 1
    return low, high


_PHASE_INDEX = {"bet1": 0, "draw": 1, "bet2": 2, "complete": 3}  # Phase members hash and compare as these
_KIND_COLUMN = {"check": 0, "call": 1, "bet": 2, "raise": 2}


class _Frame:
    """Precomputed offsets of one (table size, seat) view: field starts, seats in relative order, and where
    each seat's betting counts and shown cards go."""

    __slots__ = ("phase", "button", "to_act", "stacks", "bets", "contrib", "pot", "legal", "folded", "all_in",
                 "draws", "rel", "acts", "shown", "size")
    # Where each field of the layout starts (set from layout(n) in __init__).
    phase: int
    button: int
    to_act: int
    stacks: int
    bets: int
    contrib: int
    pot: int
    legal: int
    folded: int
    all_in: int
    draws: int

    def __init__(self, n: int, seat: int) -> None:
        lay = layout(n)
        for name in _FIELDS[1:-2]:
            setattr(self, name, lay[name].start)
        self.size = lay["shown"].stop
        self.rel = tuple((seat + k) % n for k in range(n))
        # acts[round][s]: the offset of seat s's (check, call, bet+raise) counts in that round
        self.acts = tuple(tuple(lay["actions"].start + (r * n + (s - seat) % n) * 3 for s in range(n)) for r in (0, 1))
        self.shown = tuple(None if s == seat else lay["shown"].start + 52 * ((s - seat) % n - 1) for s in range(n))


_FRAMES = {(n, seat): _Frame(n, seat) for n in TABLE_SIZES for seat in range(n)}


def _frame(n: int, seat: int) -> _Frame:
    f = _FRAMES.get((n, seat))
    if f is None:
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        f = _FRAMES[(n, seat)] = _Frame(n, seat)
    return f


def fill(v: Any, at: int, n: int, unit: float, seat: int, cards: Any, phase: str, button: int, to_act: int | None,
         stacks: Any, bets: Any, contrib: Any, legal: Any, folded: Any, all_in: Any, draws: Any, history: Any,
         shown: Any) -> None:
    """Write the observation into ``v[at : at + obs_size(n)]``, zeros before (``v``: a float32 numpy vector or a
    ``memoryview`` cast to ``"f"``, e.g. over a batch of rows); the other arguments as :func:`encode`. Only the
    non-zero entries are written: item writes are the cost (a memoryview's are about 3x cheaper than numpy's)."""
    f = _frame(n, seat)
    for c in cards:
        v[at + c] = 1.0
    v[at + f.phase + _PHASE_INDEX[phase]] = 1.0
    rel = f.rel
    v[at + f.button + rel.index(button)] = 1.0
    if to_act is not None:
        v[at + f.to_act + rel.index(to_act)] = 1.0
    at_s, at_b, at_c = at + f.stacks, at + f.bets, at + f.contrib
    at_f, at_a, at_d = at + f.folded, at + f.all_in, at + f.draws
    pot = 0
    for k, s in enumerate(rel):
        x = stacks[s]
        if x:
            v[at_s + k] = x / unit
        x = bets[s]
        if x:
            v[at_b + k] = x / unit
        x = contrib[s]
        if x:
            v[at_c + k] = x / unit
            pot += x
        if folded[s]:
            v[at_f + k] = 1.0
        if all_in[s]:
            v[at_a + k] = 1.0
        x = draws[s]
        if x is None:
            v[at_d + k] = -1.0
        elif x:
            v[at_d + k] = float(x)
    if pot:
        v[at + f.pot] = pot / unit
    if legal is not None:
        x = at + f.legal
        if legal.call_amount:
            v[x] = legal.call_amount / unit
        if legal.min_to:
            v[x + 1] = legal.min_to / unit
        if legal.max_to:
            v[x + 2] = legal.max_to / unit
    acts = f.acts[0]
    column_of = _KIND_COLUMN.get
    for event in history:
        kind = event["action"]
        column = column_of(kind)
        if column is not None:
            x = at + acts[event["seat"]] + column
            v[x] += 1.0
        elif kind == "draw":
            acts = f.acts[1]
    if shown:
        where = f.shown
        for s, held in shown.items():
            x = where[s]
            if x is not None:
                x += at
                for c in held:
                    v[x + c] = 1.0


def new_rows(rows: int, n: int) -> tuple[np.ndarray, memoryview]:
    """``rows`` observation vectors of zeros for ``n`` seats: the float32 array ``(rows, obs_size(n))`` and a flat
    ``"f"`` memoryview of the same memory, for :func:`fill` (row ``i`` starts at ``i * obs_size(n)``)."""
    obs = np.zeros((rows, _frame(n, 0).size), dtype=np.float32)
    return obs, obs.reshape(-1).data


def observe(state: HandState, seat: int, lay: dict[str, slice] | None = None) -> np.ndarray:
    """What ``seat`` sees, encoded (module doc): never another seat's cards before they are shown (R5.7).

    ``lay`` is accepted for compatibility and unused (the offsets are precomputed per table size and seat)."""
    v = np.zeros(_frame(state.n, seat).size, dtype=np.float32)
    observe_into(v.data, 0, state, seat)
    return v


def observe_into(v: Any, at: int, state: HandState, seat: int) -> None:
    """:func:`observe` written into ``v`` from ``at`` on (as :func:`fill`: zeros before, e.g. a row of
    :func:`new_rows`)."""
    to_act = state.to_act
    phase = state.phase
    legal = state.legal() if to_act == seat and phase is not Phase.DRAW else None
    shown = {s: state.cards[s] for s in state.result().shown} if phase is Phase.COMPLETE else None
    fill(v, at, state.n, float(state.config.unit), seat, state.cards[seat], phase, state.button, to_act, state.stacks,
         state.bets, state.contrib, legal, state.folded, state.all_in, state.draws, state.history, shown)


def feature_bounds(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of the ``features=True`` fields at ``n`` seats (:func:`harness.rl.features.bounds`)."""
    return features.bounds(n)


def observe_features_into(v: Any, at: int, state: HandState, seat: int) -> None:
    """The ``features=True`` fields (:mod:`harness.rl.features`) of ``seat`` in ``state``, written from ``at`` on
    (``at``: :func:`obs_size` ``(n)`` into an observation row)."""
    to_act = state.to_act
    call = state.legal().call_amount if to_act == seat and state.phase in ("bet1", "bet2") else 0
    features.fill(v, at, state.n, seat, state.cards[seat], state.draws[seat] is not None, state.button,
                  sum(state.contrib), call)


def encode(n: int, unit: float, seat: int, cards: Any, phase: str, button: int, to_act: int | None, stacks: Any,
           bets: Any, contrib: Any, legal: Any, folded: Any, all_in: Any, draws: Any, history: Any,
           shown: dict[int, Any], lay: dict[str, slice] | None = None) -> np.ndarray:
    """The observation vector from its parts (:func:`observe` for an engine state; a bot's view for
    :func:`harness.rl.as_bot`): chips in chips, cards as ints, ``legal`` None when the seat has no betting
    decision, ``shown`` the shown cards by seat."""
    v = np.zeros(_frame(n, seat).size, dtype=np.float32)
    fill(v.data, 0, n, float(unit), seat, cards, phase, button, to_act, stacks, bets, contrib, legal, folded,
         all_in, draws, history, shown)
    return v
