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
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from harness.engine import Phase
from harness.engine.state import HandState

__all__ = [
    "DISCARDS",
    "DRAW_BASE",
    "N_ACTIONS",
    "SIZES",
    "decode",
    "layout",
    "mask",
    "observe",
    "obs_size",
]

SIZES = ("min", "half_pot", "pot", "two_pots", "all_in")
_FRACTIONS = {"half_pot": 0.5, "pot": 1.0, "two_pots": 2.0}
FOLD, CALL = 0, 1
BET_BASE = 2
DISCARDS: tuple[tuple[int, ...], ...] = tuple(c for k in range(5) for c in combinations(range(7), k))
DRAW_BASE = BET_BASE + len(SIZES)
N_ACTIONS = DRAW_BASE + len(DISCARDS)
assert len(DISCARDS) == 99
_PHASES = (Phase.BET1, Phase.DRAW, Phase.BET2, Phase.COMPLETE)


def _amounts(state: HandState) -> list[int]:
    """The "to" amount of each bet size, or 0 where no bet/raise is legal."""
    lg = state.legal()
    if not lg.min_to:
        return [0] * len(SIZES)
    s = state.to_act
    call = lg.call_amount
    pot = sum(state.contrib)
    out = []
    for name in SIZES:
        if name == "min":
            to = lg.min_to
        elif name == "all_in":
            to = lg.max_to
        else:
            to = state.bets[s] + call + int(_FRACTIONS[name] * (pot + call))
            to = min(max(to, lg.min_to), lg.max_to)
        out.append(to)
    return out


def mask(state: HandState) -> np.ndarray:
    """The legal actions of the seat to act: an int8 vector of :data:`N_ACTIONS` (all 0 when the hand is over)."""
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    phase = state.phase
    if phase is Phase.COMPLETE:
        return m
    if phase is Phase.DRAW:
        m[DRAW_BASE:] = 1
        return m
    lg = state.legal()
    m[CALL] = 1
    if lg.call_amount > 0:
        m[FOLD] = 1
    if lg.min_to:
        seen = set()
        for i, to in enumerate(_amounts(state)):
            if to not in seen:
                seen.add(to)
                m[BET_BASE + i] = 1
    return m


def decode(state: HandState, index: int) -> tuple[str, Any]:
    """The engine action of ``index`` for the seat to act: ``("fold"|"check"|"call", None)``,
    ``("bet"|"raise", to)`` or ``("draw", cards)`` (card ints).

    Raises:
        ValueError: ``index`` is not legal now (see :func:`mask`).
    """
    index = int(index)
    if not 0 <= index < N_ACTIONS or not mask(state)[index]:
        raise ValueError(f"action {index} is not legal now (phase {state.phase}, seat {state.to_act})")
    if index >= DRAW_BASE:
        hand = state.cards[state.to_act]
        return "draw", [hand[p] for p in DISCARDS[index - DRAW_BASE]]
    lg = state.legal()
    if index == FOLD:
        return "fold", None
    if index == CALL:
        return ("call", None) if lg.call_amount > 0 else ("check", None)
    kind = "bet" if "bet" in lg.actions else "raise"
    return kind, _amounts(state)[index - BET_BASE]


def layout(n: int) -> dict[str, slice]:
    """Offsets of the observation's fields for a table of ``n`` seats (see the module doc)."""
    sizes = [("cards", 52), ("phase", 4), ("button", n), ("to_act", n), ("stacks", n), ("bets", n),
             ("contrib", n), ("pot", 1), ("legal", 3), ("folded", n), ("all_in", n), ("draws", n),
             ("actions", 2 * n * 3), ("shown", 52 * (n - 1))]
    out, at = {}, 0
    for name, size in sizes:
        out[name] = slice(at, at + size)
        at += size
    return out


def obs_size(n: int) -> int:
    """Length of the observation vector at ``n`` seats."""
    return layout(n)["shown"].stop


_KIND_COLUMN = {"check": 0, "call": 1, "bet": 2, "raise": 2}


def observe(state: HandState, seat: int, lay: dict[str, slice] | None = None) -> np.ndarray:
    """What ``seat`` sees, encoded (module doc): never another seat's cards before they are shown (R5.7)."""
    n = state.n
    lay = lay or layout(n)
    v = np.zeros(lay["shown"].stop, dtype=np.float32)
    unit = float(state.config.unit)
    for c in state.cards[seat]:
        v[c] = 1.0
    v[lay["phase"].start + _PHASES.index(state.phase)] = 1.0
    rel = [(seat + k) % n for k in range(n)]
    v[lay["button"].start + (state.button - seat) % n] = 1.0
    if state.to_act is not None:
        v[lay["to_act"].start + (state.to_act - seat) % n] = 1.0
    for name, values in (("stacks", state.stacks), ("bets", state.bets), ("contrib", state.contrib)):
        v[lay[name]] = [values[s] / unit for s in rel]
    v[lay["pot"].start] = sum(state.contrib) / unit
    if state.to_act == seat and state.phase is not Phase.DRAW:
        lg = state.legal()
        v[lay["legal"]] = (lg.call_amount / unit, lg.min_to / unit, lg.max_to / unit)
    v[lay["folded"]] = [state.folded[s] for s in rel]
    v[lay["all_in"]] = [state.all_in[s] for s in rel]
    v[lay["draws"]] = [-1.0 if state.draws[s] is None else state.draws[s] for s in rel]
    base = lay["actions"].start
    round_ = 0
    for event in state.history:
        kind = event["action"]
        if kind == "draw":
            round_ = 1
        column = _KIND_COLUMN.get(kind)
        if column is not None:
            v[base + (round_ * n + (event["seat"] - seat) % n) * 3 + column] += 1.0
    if state.is_complete:
        shown = lay["shown"].start
        for s in state.result().shown:
            if s != seat:
                k = (s - seat) % n - 1
                for c in state.cards[s]:
                    v[shown + 52 * k + c] = 1.0
    return v
