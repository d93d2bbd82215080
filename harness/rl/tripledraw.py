"""The action and observation encodings of Deuce-to-Seven Triple Draw (RULES.md R8) for the environments
(``game="deuce-to-seven-triple-draw"``, :mod:`harness.rl.aec`): the interface of :mod:`harness.rl.encoding`
with this game's numbers.

Actions: one ``Discrete(N_ACTIONS)`` space (39) for every decision, with a mask of the legal ones.

====================  ======================================================================
index                 action
====================  ======================================================================
0, 1                  fold, check or call (as Seven Card Draw's, :mod:`harness.rl.encoding`)
2 .. 6                bet/raise to one of ``encoding.SIZES`` (the same sizes and masking)
7 .. 38               the draw: discard the cards at one set of 0-5 positions (:data:`DISCARDS`)
====================  ======================================================================

Draw actions: index ``DRAW_BASE + i`` discards the positions ``DISCARDS[i]`` of the seat's five cards in
``cards`` order, sets sorted by size, then lexicographically: ``()`` (stand pat), ``(0,)``, ..., ``(4,)``,
``(0, 1)``, ..., ``(0, 1, 2, 3, 4)``; 32 in all (R8.1: 0 to 5 cards in each of the three draws). Every set is
legal at every draw (R6.9: the stock, then the reshuffled muck, always has the cards).

Observation (:func:`observe`): a float32 vector, chips in big blinds, seats relative to the observer (slot 0),
as Seven Card Draw's, with the fields of a game of three draws and four betting rounds (:func:`layout`):

- ``cards`` (52): own current cards, one-hot. ``phase`` (8): one-hot bet1, draw1, bet2, draw2, bet3, draw3,
  bet4, complete (the engine's ``bet2`` and ``draw`` counted by :attr:`HandState.betting_round`).
- ``button``, ``to_act``, ``stacks``, ``bets``, ``contrib`` (n each), ``pot`` (1), ``legal`` (3), ``folded``,
  ``all_in`` (n each): as Seven Card Draw's.
- ``draws`` (3 * n): per draw and relative seat, the cards drawn (0-5, public, R4.3), -1 before that seat
  has drawn in that draw.
- ``actions`` (4 * n * 3): per betting round and relative seat: checks, calls, bets+raises (counts).
- ``shown`` (52 * (n - 1)): the five cards each other seat showed down, after the hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.engine import Action, ActionKind, Phase
from harness.engine.state import HandState
from harness.rl import features
from harness.rl.actions import DISCARDS_27
from harness.rl.encoding import BET_BASE, CALL, FOLD, SIZES, action_index, betting, offsets

__all__ = ["DISCARDS", "DRAWS", "DRAW_BASE", "DRAW_KEY", "MASKS", "NONE_KEY", "N_ACTIONS", "ROUNDS", "action_of",
           "bounds", "decision", "decode", "feature_bounds", "layout", "mask", "mask_row", "obs_size", "observe",
           "observe_features_into", "observe_into"]

#: Draws and betting rounds of the game (R8.1).
DRAWS, ROUNDS = 3, 4
HOLE = 5
DISCARDS = DISCARDS_27
DRAW_BASE = BET_BASE + len(SIZES)
N_ACTIONS = DRAW_BASE + len(DISCARDS)
assert len(DISCARDS) == 32
#: The draw's mask key, and that of no decision; a betting key has bit i set when index i is legal (as
#: :mod:`harness.rl.encoding`'s keys, whose betting bits these are).
DRAW_KEY, NONE_KEY = 1 << DRAW_BASE, (1 << DRAW_BASE) + 1
#: ``MASKS[key]``: the int8 mask of a key (read only); a vectorised caller takes ``MASKS[keys]`` in one numpy call
#: (as :data:`harness.rl.encoding.MASKS`).
MASKS = np.zeros((NONE_KEY + 1, N_ACTIONS), dtype=np.int8)
for _key in range(DRAW_KEY):
    for _i in range(DRAW_BASE):
        MASKS[_key, _i] = _key >> _i & 1
MASKS[DRAW_KEY, DRAW_BASE:] = 1
MASKS.flags.writeable = False
del _key, _i
_KIND_COLUMN = {"check": 0, "call": 1, "bet": 2, "raise": 2}


def decision(state: HandState) -> tuple[int, tuple[int, ...] | None]:
    """``(mask key, bet amounts or None)`` of the seat to act (as :func:`harness.rl.encoding.decision`)."""
    if state.phase is Phase.DRAW:
        return DRAW_KEY, None
    if state.phase is Phase.COMPLETE:
        return NONE_KEY, None
    s = state.to_act
    assert s is not None  # a betting round has a seat to act
    return betting(state.legal(), state.bets[s], sum(state.contrib))


def mask_row(key: int) -> np.ndarray:
    """A new (writable) int8 mask of :data:`N_ACTIONS` for a key of :func:`decision`."""
    row: np.ndarray = MASKS[key].copy()
    return row


def mask(state: HandState) -> np.ndarray:
    """The legal actions of the seat to act (all 0 when the hand is over)."""
    return mask_row(decision(state)[0])


def action_of(state: HandState, found: tuple[int, tuple[int, ...] | None], index: Any) -> Action:
    """The engine action of ``index`` for the seat to act, ``found`` = :func:`decision` ``(state)``.

    Raises:
        ValueError: ``index`` is not an action index, or not legal now (see :func:`mask`).
    """
    index = action_index(index)
    key, amounts = found
    if key == DRAW_KEY:
        if DRAW_BASE <= index < N_ACTIONS:
            cards = state.cards[state.to_act]  # type: ignore[index]  # the draw has a seat to act
            return Action(ActionKind.DRAW, 0, tuple(cards[p] for p in DISCARDS[index - DRAW_BASE]))
    elif key == NONE_KEY:
        raise ValueError(f"action {index} is not legal: the hand is complete")
    elif 0 <= index < DRAW_BASE and key >> index & 1:
        if index == CALL:
            return Action(ActionKind.CALL if key & 1 << FOLD else ActionKind.CHECK)
        if index == FOLD:
            return Action(ActionKind.FOLD)
        kind = ActionKind.BET if ActionKind.BET in state.legal().actions else ActionKind.RAISE
        return Action(kind, amounts[index - BET_BASE])  # type: ignore[index]  # a betting key has amounts
    raise ValueError(f"action {index} is not legal now (phase {state.phase})")


def decode(state: HandState, index: int) -> tuple[str, Any]:
    """The action of ``index`` as ``(kind, to or discarded card ints or None)``.

    Raises:
        ValueError: as :func:`action_of`.
    """
    action = action_of(state, decision(state), index)
    if action.kind is ActionKind.DRAW:
        return "draw", list(action.discards)
    return str(action.kind), action.amount if action.kind in (ActionKind.BET, ActionKind.RAISE) else None


def layout(n: int) -> dict[str, slice]:
    """Offsets of the observation's fields at ``n`` seats (module doc)."""
    return offsets([("cards", 52), ("phase", 2 * DRAWS + 2), ("button", n), ("to_act", n), ("stacks", n),
                    ("bets", n), ("contrib", n), ("pot", 1), ("legal", 3), ("folded", n), ("all_in", n),
                    ("draws", DRAWS * n), ("actions", ROUNDS * n * 3), ("shown", 52 * (n - 1))])


def obs_size(n: int) -> int:
    """Length of the observation vector at ``n`` seats."""
    stop: int = layout(n)["shown"].stop
    return stop


def bounds(n: int, chips: int, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 vectors of the observation (as :func:`harness.rl.encoding.bounds`; ``draws``
    -1..5)."""
    lay = layout(n)
    size = obs_size(n)
    low, high = np.zeros(size, dtype=np.float32), np.ones(size, dtype=np.float32)
    for name in ("stacks", "bets", "contrib", "pot", "legal"):
        high[lay[name]] = chips / unit
    low[lay["draws"]], high[lay["draws"]] = -1.0, float(HOLE)
    high[lay["actions"]] = chips + 1
    return low, high


def observe(state: HandState, seat: int) -> np.ndarray:
    """What ``seat`` sees, encoded (module doc): never another seat's cards before they are shown (R5.7)."""
    v = np.zeros(obs_size(state.n), dtype=np.float32)
    observe_into(v, 0, state, seat)
    return v


def observe_into(v: Any, at: int, state: HandState, seat: int) -> None:
    """:func:`observe` written into ``v[at:]`` (zeros there before)."""
    n = state.n
    (cards, phases, button, to_act, stacks, bets, contrib, pot, legal_at, folded, all_in, draws, actions,
     shown) = (at + x for x in _starts(n))
    unit = float(state.config.unit)
    for c in state.cards[seat]:
        v[cards + c] = 1.0
    phase = state.phase
    if phase is Phase.COMPLETE:
        v[phases + 2 * DRAWS + 1] = 1.0
    else:  # bet r at 2 (r - 1), draw d (after bet d) at 2 d - 1
        v[phases + 2 * (state.betting_round - 1) + (1 if phase is Phase.DRAW else 0)] = 1.0
    v[button + (state.button - seat) % n] = 1.0
    if state.to_act is not None:
        v[to_act + (state.to_act - seat) % n] = 1.0
    st_stacks, st_bets, st_contrib, st_folded, st_all_in = (state.stacks, state.bets, state.contrib, state.folded,
                                                            state.all_in)
    for s in range(n):
        k = (s - seat) % n
        v[stacks + k] = st_stacks[s] / unit
        v[bets + k] = st_bets[s] / unit
        v[contrib + k] = st_contrib[s] / unit
        v[folded + k] = float(st_folded[s])
        v[all_in + k] = float(st_all_in[s])
    v[pot] = sum(st_contrib) / unit
    if state.to_act == seat and phase not in (Phase.DRAW, Phase.COMPLETE):
        legal = state.legal()
        for i, x in enumerate((legal.call_amount, legal.min_to, legal.max_to)):
            v[legal_at + i] = (x or 0) / unit
    drawn = [[-1.0] * n for _ in range(DRAWS)]
    done = [0] * n  # draws each seat has made: a betting round after draw d follows everyone's d-th draw
    for event in state.history:
        s, kind = event["seat"], event["action"]
        if kind == "draw":
            drawn[done[s]][s] = float(event["count"])
            done[s] += 1
        elif kind in _KIND_COLUMN:
            v[actions + (max(done) * n + (s - seat) % n) * 3 + _KIND_COLUMN[kind]] += 1.0
    for d in range(DRAWS):
        for s in range(n):
            v[draws + d * n + (s - seat) % n] = drawn[d][s]
    if phase is Phase.COMPLETE:
        for s in state.result().shown:
            if s != seat:
                base = shown + 52 * ((s - seat) % n - 1)
                for c in state.cards[s]:
                    v[base + c] = 1.0


def feature_bounds(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of the ``features=True`` fields at ``n`` seats (:func:`harness.rl.features.bounds`, Triple
    Draw's)."""
    return features.bounds(n, low_game=True)


def observe_features_into(v: Any, at: int, state: HandState, seat: int) -> None:
    """The ``features=True`` fields (:mod:`harness.rl.features`, Triple Draw's) of ``seat`` in ``state``, written
    from ``at`` on (``at``: :func:`obs_size` ``(n)`` into an observation row)."""
    phase = state.phase
    call = state.legal().call_amount if state.to_act == seat and phase in ("bet1", "bet2") else 0
    drawn = sum(1 for event in state.history if event["seat"] == seat and event["action"] == "draw")
    features.fill_27(v, at, state.n, seat, state.cards[seat], drawn < DRAWS and phase is not Phase.COMPLETE,
                     state.button, sum(state.contrib), call)


_FIELD_NAMES = ("cards", "phase", "button", "to_act", "stacks", "bets", "contrib", "pot", "legal", "folded", "all_in",
                "draws", "actions", "shown")
_STARTS: dict[int, tuple[int, ...]] = {}


def _starts(n: int) -> tuple[int, ...]:
    """The fields' offsets at ``n`` seats, in :func:`layout`'s order (computed once per table size)."""
    found = _STARTS.get(n)
    if found is None:
        lay = layout(n)
        found = _STARTS[n] = tuple(lay[name].start for name in _FIELD_NAMES)
    return found
